"""The BIOES scheme of lcrf_ner: forbidden transitions, conversions, Viterbi,
entity probabilities and Entity-Fix, against brute force over tiny docs.
"""
import itertools

import numpy
import pytest

from spacy_globalner.decoding import EntityArrays
from spacy_globalner.decoding.lcrf_ner.bioes import (
    bioes_forbidden,
    bioes_to_iob,
    iob_to_bioes,
    n_bioes_tags,
    spans_to_tags,
    tags_to_spans,
)
from spacy_globalner.decoding.lcrf_ner.decode import decode_lcrf_ner
from spacy_globalner.decoding.lcrf_ner.marginals import bioes_span_probabilities
from spacy_globalner.decoding.lcrf_ner.schemes import forbidden_transitions, n_tags, repair
from spacy_globalner.decoding.lcrf_ner.viterbi import constrain_transitions, viterbi
from tests.helpers.lcrf_brute_force import best_path, path_probabilities, path_score, random_case

# Two labels: B-A=0, B-B=1, I-A=2, I-B=3, L-A=4, L-B=5, U-A=6, U-B=7, O=8.
BA, BB, IA, IB, LA, LB, UA, UB, O = range(9)
N_LABELS = 2
N_TAGS = 9


def read(tags):
    _, starts, ends, labels = tags_to_spans(numpy.asarray([tags]), numpy.asarray([len(tags)]), N_LABELS)
    return list(zip(starts.tolist(), ends.tolist(), labels.tolist()))


def is_valid(path):
    forbidden = bioes_forbidden(N_LABELS)
    path = list(path)
    return not (
        forbidden[N_TAGS, path[0]]
        or forbidden[path[-1], N_TAGS + 1]
        or any(forbidden[a, b] for a, b in zip(path[:-1], path[1:]))
    )


def test_layout_and_scheme_dispatch():
    assert n_bioes_tags(2) == n_tags("bioes", 2) == 9
    assert (forbidden_transitions("bioes", 2) == bioes_forbidden(2)).all()
    with pytest.raises(ValueError, match="tag_scheme"):
        n_tags("biluo", 2)


@pytest.mark.parametrize("length", [1, 2, 3, 4])
def test_forbidden_matrix_allows_exactly_the_sequences_that_read_back(length):
    """A tag sequence is valid under the matrix iff writing its strict reading
    back as tags gives the same sequence."""
    n_valid = 0
    for path in itertools.product(range(N_TAGS), repeat=length):
        spans = read(path)
        starts, ends, labels = (numpy.asarray(c, dtype="int64") for c in zip(*spans)) if spans else ([], [], [])
        rewritten = spans_to_tags(length, starts, ends, labels, N_LABELS).tolist()
        assert is_valid(path) == (rewritten == list(path)), path
        n_valid += is_valid(path)
    assert n_valid > 0


@pytest.mark.parametrize(
    "tags,expected",
    [
        ([UA, O, BB, IB, LB], [(0, 1, 0), (2, 5, 1)]),
        ([BA, LA, UA], [(0, 2, 0), (2, 3, 0)]),
        ([BA, O, LA], []),  # an unclosed B and an L without B are no entities
        ([BA, IA, IA], []),
        ([BA, LB, UB], [(2, 3, 1)]),  # a type switch breaks the entity
        ([IA, LA, O], []),
    ],
)
def test_strict_reading(tags, expected):
    assert read(tags) == expected


def test_spans_to_tags():
    tags = spans_to_tags(8, [0, 2, 5], [1, 5, 7], [1, 0, 1], N_LABELS)
    assert tags.tolist() == [UB, O, BA, IA, LA, BB, LB, O]


def test_iob_projection_round_trips_valid_sequences():
    iob = bioes_to_iob(numpy.asarray([[UB, O, BA, IA, LA, BB, LB, O]]), N_LABELS)
    # IOB with two labels: B-A=0, B-B=1, I-A=2, I-B=3, O=4.
    assert iob.tolist() == [[1, 4, 0, 2, 2, 1, 3, 4]]
    back = iob_to_bioes(iob, numpy.asarray([8]), N_LABELS)
    assert back.tolist() == [[UB, O, BA, IA, LA, BB, LB, O]]


@pytest.mark.parametrize("seed", range(3))
def test_constrained_viterbi_is_the_best_valid_path(seed):
    rng = numpy.random.default_rng(seed)
    emissions, transitions = random_case(rng, [3, 2, 1], n_tags=N_TAGS)
    constrained = constrain_transitions(transitions, bioes_forbidden(N_LABELS))
    tags, _ = viterbi(emissions, numpy.asarray([3, 2, 1]), constrained)
    for row, length in enumerate([3, 2, 1]):
        valid = [
            numpy.asarray(p) for p in itertools.product(range(N_TAGS), repeat=length) if is_valid(p)
        ]
        scores = [path_score(emissions[row, :length], transitions, p) for p in valid]
        assert tags[row, :length].tolist() == valid[int(numpy.argmax(scores))].tolist()
        assert is_valid(tags[row, :length])
    unconstrained, _ = viterbi(emissions[:1, :3], numpy.asarray([3]), transitions)
    assert unconstrained[0].tolist() == best_path(emissions[0, :3], transitions).tolist()


@pytest.mark.parametrize("seed", range(3))
def test_span_probabilities_match_brute_force(seed):
    rng = numpy.random.default_rng(seed)
    emissions, transitions = random_case(rng, [4, 3], n_tags=N_TAGS, scale=1.0)
    spans = [(0, 0, 1, 0), (0, 0, 4, 1), (0, 1, 3, 0), (0, 3, 4, 1), (0, 0, 3, 1), (1, 0, 3, 0), (1, 2, 3, 1)]
    probs = bioes_span_probabilities(emissions, numpy.asarray([4, 3]), transitions, EntityArrays.of(*zip(*spans)), 2)
    assert probs.dtype == numpy.float32
    for prob, (doc, start, end, label) in zip(probs, spans):
        length = [4, 3][doc]
        exact = spans_to_tags(end - start, [0], [end - start], [label], N_LABELS)
        paths, path_probs = path_probabilities(emissions[doc, :length], transitions)
        expected = sum(p for path, p in zip(paths, path_probs) if (path[start:end] == exact).all())
        assert prob == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    "tags,expected",
    [
        ([BA, O], [UA, O]),  # an unclosed B is closed where its run ends
        ([BA, IA], [BA, LA]),  # also at the end of the doc
        ([UA, IB, LB], [BA, IA, LA]),  # I after U continues the A entity
        ([O, IA, LA, UB], [O, O, O, UB]),  # I after O takes the O (paper's rule)
        ([LB, O], [UB, O]),  # at the doc's start it opens an entity
        ([BA, LB], [BA, LA]),
    ],
)
def test_entity_fix_follows_the_scheme(tags, expected):
    fixed, changed = repair("bioes", numpy.asarray([tags]), numpy.asarray([len(tags)]), N_LABELS)
    assert fixed[0].tolist() == expected and changed[0]


def test_entity_fix_lenient_rule_under_bioes():
    fixed, _ = repair("bioes", numpy.asarray([[O, IA, LA, UB]]), numpy.asarray([4]), N_LABELS, rule="lenient")
    assert fixed.tolist() == [[O, BA, LA, UB]]


@pytest.mark.parametrize("rule", ["paper", "lenient"])
def test_entity_fix_gives_valid_sequences_and_leaves_valid_ones(rule):
    rng = numpy.random.default_rng(0)
    lengths = rng.integers(1, 10, size=400)
    tags = rng.integers(0, N_TAGS, size=(400, 10))
    tags[:100] = [
        spans_to_tags(10, [0, 3, 7][:k], [2, 4, 10][:k], [1, 0, 1][:k], N_LABELS) for k in rng.integers(0, 4, 100)
    ]
    lengths[:100] = 10
    fixed, changed = repair("bioes", tags, lengths, N_LABELS, rule=rule)
    for row, length in enumerate(lengths):
        assert is_valid(fixed[row, :length]), (tags[row, :length], fixed[row, :length])
        assert changed[row] == (not is_valid(tags[row, :length]))
        assert (fixed[row, length:] == tags[row, length:]).all()
    assert not changed[:100].any()
    again, changed_again = repair("bioes", fixed, lengths, N_LABELS, rule=rule)
    assert (again == fixed).all() and not changed_again.any()


@pytest.mark.parametrize("constrained", [False, True])
@pytest.mark.parametrize("entity_fix", ["none", "paper", "lenient"])
def test_decode_bioes_gives_flat_scored_spans(constrained, entity_fix):
    rng = numpy.random.default_rng(3)
    lengths = [5, 0, 1, 8]
    emissions, transitions = random_case(rng, lengths, n_tags=N_TAGS, scale=3.0)
    found, invalid = decode_lcrf_ner(
        emissions.astype("float32"), numpy.asarray(lengths), transitions.astype("float32"), N_LABELS,
        constrained=constrained, entity_fix=entity_fix, tag_scheme="bioes",
    )
    assert len(found) == 4 and len(found[1]) == 0
    if constrained:
        assert not invalid.any()
    for spans, length in zip(found, lengths):
        assert ((spans.scores >= 0) & (spans.scores <= 1)).all()
        assert (spans.ends <= length).all() and (spans.starts < spans.ends).all()
        assert (spans.starts[1:] >= spans.ends[:-1]).all()


def run_reading(tags):
    """Entities of a BIOES sequence where every run (of its IOB projection)
    that is not exactly one valid entity counts as one wrong entity (label -1).
    """
    iob = bioes_to_iob(numpy.asarray(tags), N_LABELS).tolist()
    valid = set(read(tags))
    entities, position = set(), 0
    while position < len(iob):
        if iob[position] == 2 * N_LABELS:
            position += 1
            continue
        end = position + 1
        while end < len(iob) and N_LABELS <= iob[end] < 2 * N_LABELS:
            end += 1
        entity = (position, end, iob[position] % N_LABELS)
        entities.add(entity if entity in valid else (position, end, -1))
        position = end
    return entities


def random_valid(rng, length):
    spans, position = [], 0
    while position < length:
        width = int(rng.integers(1, 4))
        if rng.random() < 0.4 and position + width <= length:
            spans.append((position, position + width, int(rng.integers(N_LABELS))))
            position += width
        else:
            position += 1
    starts, ends, labels = (numpy.asarray(c, dtype="int64") for c in zip(*spans)) if spans else ([], [], [])
    return spans_to_tags(length, starts, ends, labels, N_LABELS).tolist()


@pytest.mark.parametrize("rule", ["paper", "lenient"])
def test_entity_fix_never_lowers_f1_when_invalid_runs_count_as_wrong(rule):
    """The paper's claim under BIOES, over random tag sequences and gold."""

    def f1(gold, predicted):
        if not gold and not predicted:
            return 1.0
        return 2 * len(gold & predicted) / (len(gold) + len(predicted))

    rng = numpy.random.default_rng(0)
    n_gained = 0
    for _ in range(3000):
        length = int(rng.integers(1, 9))
        predicted = rng.integers(0, N_TAGS, size=length)
        gold = set(read(random_valid(rng, length)))
        fixed, _ = repair("bioes", predicted[None], numpy.asarray([length]), N_LABELS, rule=rule)
        before, after = f1(gold, run_reading(predicted.tolist())), f1(gold, run_reading(fixed[0].tolist()))
        assert after >= before, (gold, predicted, fixed[0])
        assert run_reading(fixed[0].tolist()) == set(read(fixed[0].tolist()))
        n_gained += after > before
    assert n_gained > 100
