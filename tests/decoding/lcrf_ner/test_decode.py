"""Decoders of lcrf_ner: IOB tags, Viterbi, forward-backward, entity probabilities."""
import numpy
import pytest

from spacy_globalner.decoding import EntityArrays
from spacy_globalner.decoding.lcrf_ner.decode import decode_lcrf_ner
from spacy_globalner.decoding.lcrf_ner.iob import iob_forbidden, n_iob_tags, spans_to_tags, tags_to_spans
from spacy_globalner.decoding.lcrf_ner.marginals import forward_backward, span_probabilities
from spacy_globalner.decoding.lcrf_ner.viterbi import constrain_transitions, forbidden_score, viterbi
from tests.helpers.lcrf_brute_force import best_path, log_partition, path_probabilities, path_score, random_case
from tests.helpers.lcrf_ner import tag_marginals

# Two labels: B-A=0, B-B=1, I-A=2, I-B=3, O=4; START=5, END=6.
BA, BB, IA, IB, O = range(5)
LENGTHS = [1, 2, 4, 3, 0]


def test_tag_layout_and_forbidden_transitions():
    assert n_iob_tags(2) == 5
    forbidden = iob_forbidden(2)
    assert forbidden.shape == (7, 7)
    allowed_into_ia = {BA, IA}
    for source in range(6):  # every tag and START
        assert forbidden[source, IA] == (source not in allowed_into_ia)
        assert not forbidden[source, BA] and not forbidden[source, O]
    assert not forbidden[:, 6].any(), "any tag may end a doc"


def test_spans_to_tags_and_back():
    tags = spans_to_tags(7, [0, 3, 6], [2, 6, 7], [1, 0, 0], n_labels=2)
    assert tags.tolist() == [BB, IB, O, BA, IA, IA, BA]
    doc_ids, starts, ends, labels = tags_to_spans(tags[None], numpy.asarray([7]), 2)
    assert list(zip(starts, ends, labels)) == [(0, 2, 1), (3, 6, 0), (6, 7, 0)]
    assert doc_ids.tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    "tags,expected",
    [
        ([IA, IA, O], []),  # I at the start opens nothing
        ([O, IA, BA], [(2, 3, 0)]),  # I after O is read as O
        ([BA, IB, IB], [(0, 1, 0)]),  # I-B after B-A ends the entity
        ([BA, IA, BA, IA], [(0, 2, 0), (2, 4, 0)]),  # adjacent entities
    ],
)
def test_tags_to_spans_strict_reading(tags, expected):
    _, starts, ends, labels = tags_to_spans(numpy.asarray([tags]), numpy.asarray([len(tags)]), 2)
    assert list(zip(starts.tolist(), ends.tolist(), labels.tolist())) == expected


def test_tags_to_spans_ignores_padding():
    tags = numpy.asarray([[BA, IA, BA], [BB, BA, IA]])
    doc_ids, starts, ends, _ = tags_to_spans(tags, numpy.asarray([2, 1]), 2)
    assert list(zip(doc_ids, starts, ends)) == [(0, 0, 2), (1, 0, 1)]


@pytest.mark.parametrize("seed", range(5))
def test_viterbi_is_brute_force_argmax(seed):
    rng = numpy.random.default_rng(seed)
    emissions, transitions = random_case(rng, LENGTHS, n_tags=5)
    tags, scores = viterbi(emissions, numpy.asarray(LENGTHS), transitions)
    for row, length in enumerate(LENGTHS):
        if length == 0:
            assert scores[row] == 0
            continue
        expected = best_path(emissions[row, :length], transitions)
        assert tags[row, :length].tolist() == expected.tolist()
        assert scores[row] == pytest.approx(path_score(emissions[row, :length], transitions, expected))
        assert (tags[row, length:] == O).all()


def test_viterbi_batched_equals_unbatched():
    rng = numpy.random.default_rng(7)
    emissions, transitions = random_case(rng, LENGTHS, n_tags=5)
    batched, _ = viterbi(emissions, numpy.asarray(LENGTHS), transitions)
    for row, length in enumerate(LENGTHS):
        alone, _ = viterbi(emissions[row : row + 1, :length], numpy.asarray([length]), transitions)
        assert alone[0].tolist() == batched[row, :length].tolist()


def test_viterbi_handles_an_all_empty_batch():
    tags, scores = viterbi(numpy.zeros((3, 0, 5)), numpy.zeros(3, dtype=int), numpy.zeros((7, 7)))
    assert tags.shape == (3, 0) and scores.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_constrained_viterbi_is_valid_and_finite(dtype):
    rng = numpy.random.default_rng(1)
    emissions, transitions = random_case(rng, [6] * 20, n_tags=5)
    # Make forbidden transitions attractive, so only the constraint keeps them out.
    forbidden = iob_forbidden(2)
    transitions = numpy.where(forbidden, 5.0, transitions)
    constrained = constrain_transitions(transitions.astype(dtype), forbidden)
    assert constrained.dtype == dtype
    assert numpy.isfinite(constrained).all()
    assert constrained[forbidden].max() == forbidden_score(dtype)
    tags, scores = viterbi(emissions.astype(dtype), numpy.full(20, 6), constrained)
    assert numpy.isfinite(scores).all()
    n_tags = 5
    assert not forbidden[n_tags, tags[:, 0]].any()
    assert not forbidden[tags[:, :-1], tags[:, 1:]].any()


@pytest.mark.parametrize("seed", range(3))
def test_forward_backward_matches_brute_force(seed):
    rng = numpy.random.default_rng(seed)
    emissions, transitions = random_case(rng, LENGTHS, n_tags=5)
    lengths = numpy.asarray(LENGTHS)
    log_alpha, log_beta, log_z = forward_backward(emissions, lengths, transitions)
    marginals = tag_marginals(log_alpha, log_beta, log_z, lengths)
    for row, length in enumerate(LENGTHS):
        if length == 0:
            assert log_z[row] == 0
            continue
        assert log_z[row] == pytest.approx(log_partition(emissions[row, :length], transitions))
        paths, probs = path_probabilities(emissions[row, :length], transitions)
        expected = numpy.zeros((length, 5))
        for path, prob in zip(paths, probs):
            expected[numpy.arange(length), path] += prob
        numpy.testing.assert_allclose(marginals[row, :length], expected, atol=1e-9)
    valid = numpy.arange(marginals.shape[1])[None, :] < lengths[:, None]
    numpy.testing.assert_allclose(marginals.sum(axis=2)[valid], 1.0, atol=1e-9)
    assert (marginals[~valid] == 0).all()


def _brute_force_span_probability(emissions, transitions, start, end, label):
    """P(tags[start] = B-X, tags[start+1:end] = I-X, tags[end] != I-X)."""
    paths, probs = path_probabilities(emissions, transitions)
    total = 0.0
    for path, prob in zip(paths, probs):
        exact = path[start] == label and (path[start + 1 : end] == label + 2).all()
        if exact and (end == len(path) or path[end] != label + 2):
            total += prob
    return total


@pytest.mark.parametrize("seed", range(3))
def test_span_probabilities_match_brute_force(seed):
    rng = numpy.random.default_rng(seed)
    emissions, transitions = random_case(rng, [4, 3], n_tags=5, scale=1.0)
    spans = [(0, 0, 1, 0), (0, 0, 4, 1), (0, 1, 3, 0), (0, 3, 4, 1), (1, 0, 3, 0), (1, 2, 3, 1)]
    probs = span_probabilities(emissions, numpy.asarray([4, 3]), transitions, EntityArrays.of(*zip(*spans)), 2)
    assert probs.dtype == numpy.float32
    assert ((probs >= 0) & (probs <= 1)).all()
    for prob, (doc, start, end, label) in zip(probs, spans):
        length = [4, 3][doc]
        expected = _brute_force_span_probability(emissions[doc, :length], transitions, start, end, label)
        assert prob == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("constrained", [False, True])
@pytest.mark.parametrize("entity_fix", [False, True])
def test_decode_linear_crf_gives_scored_spans_per_doc(constrained, entity_fix):
    rng = numpy.random.default_rng(3)
    lengths = [5, 0, 1, 8]
    emissions, transitions = random_case(rng, lengths, n_tags=5, scale=3.0)
    found, invalid = decode_lcrf_ner(
        emissions.astype("float32"), numpy.asarray(lengths), transitions.astype("float32"), 2,
        constrained=constrained, entity_fix=entity_fix,
    )
    assert len(found) == 4 and invalid.shape == (4,)
    assert len(found[1]) == 0 and not invalid[1]
    if constrained:
        assert not invalid.any()
    for spans, length in zip(found, lengths):
        assert ((spans.scores >= 0) & (spans.scores <= 1)).all()
        assert (spans.ends <= length).all() and (spans.starts < spans.ends).all()
        assert (spans.starts[1:] >= spans.ends[:-1]).all(), "flat and ordered"


def test_outside_tokens_are_never_in_an_entity():
    rng = numpy.random.default_rng(4)
    emissions, transitions = random_case(rng, [6, 6], n_tags=5, scale=3.0)
    emissions[:, :, O] = -10.0  # every token would be in an entity
    outside = numpy.zeros((2, 6), dtype=bool)
    outside[0, 2] = outside[1, 0] = True
    found, _ = decode_lcrf_ner(emissions, numpy.asarray([6, 6]), transitions, 2, outside=outside)
    for spans, row in zip(found, outside):
        covered = numpy.zeros(6, dtype=bool)
        for start, end in zip(spans.starts, spans.ends):
            covered[start:end] = True
        assert not (covered & row).any() and covered[~row].all()


@pytest.mark.parametrize("entity_fix", ["none", "paper", "lenient"])
def test_zero_transitions_decode_each_token_by_argmax(entity_fix):
    """The softmax baseline: with no transitions the tags are the per-token
    argmax (then Entity-Fix), and an entity's probability is the product of
    its tokens' softmax probabilities of the exact path.
    """
    from spacy_globalner.decoding.lcrf_ner.entity_fix import entity_fix as fix

    rng = numpy.random.default_rng(5)
    lengths = numpy.asarray([6, 3, 0])
    emissions, _ = random_case(rng, list(lengths), n_tags=5, scale=3.0)
    found, invalid = decode_lcrf_ner(emissions, lengths, numpy.zeros((7, 7)), 2, entity_fix=entity_fix)
    argmax = emissions.argmax(axis=2)
    for row, length in enumerate(lengths):
        tags = argmax[row : row + 1, :length]
        if entity_fix != "none":
            tags, _ = fix(tags, numpy.asarray([length]), 2, rule=entity_fix)
        _, starts, ends, labels = tags_to_spans(tags, numpy.asarray([length]), 2)
        assert found[row].starts.tolist() == starts.tolist() and found[row].ends.tolist() == ends.tolist()
        softmax = numpy.exp(emissions[row, :length])
        softmax /= softmax.sum(axis=1, keepdims=True)
        for start, end, label, score in zip(starts, ends, labels, found[row].scores):
            expected = softmax[start, label] * softmax[start + 1 : end, label + 2].prod()
            if end < length:
                expected *= 1.0 - softmax[end, label + 2]
            assert score == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("tag_scheme,n_tags", [("iob", 5), ("bioes", 9)])
def test_independent_probabilities_are_the_crf_ones_with_zero_transitions(tag_scheme, n_tags):
    from spacy_globalner.decoding.lcrf_ner.marginals import (
        bioes_span_probabilities,
        independent_span_probabilities,
    )

    rng = numpy.random.default_rng(6)
    lengths = numpy.asarray([5, 3, 1])
    emissions, _ = random_case(rng, list(lengths), n_tags=n_tags, scale=2.0)
    spans = [(0, 0, 1, 0), (0, 0, 5, 1), (0, 1, 3, 0), (0, 4, 5, 1), (1, 0, 3, 0), (1, 1, 2, 1), (2, 0, 1, 1)]
    entities = EntityArrays.of(*zip(*spans))
    general = bioes_span_probabilities if tag_scheme == "bioes" else span_probabilities
    expected = general(emissions, lengths, numpy.zeros((n_tags + 2, n_tags + 2)), entities, 2)
    got = independent_span_probabilities(emissions, lengths, entities, 2, tag_scheme=tag_scheme)
    numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
