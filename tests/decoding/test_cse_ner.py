"""CSE decoding: the paper's rules on worked examples, and well-formed,
non-overlapping entities for any probabilities."""
import numpy
import pytest

from spacy_globalner.decoding.cse_ner import decode_cse_ner

HI, LO = 0.9, 0.1


def decode_one(start, end, classes=None, n_labels=2, **kwargs):
    length = len(start)
    if classes is None:
        classes = numpy.zeros((length, n_labels + 1))
        classes[:, 0] = 1.0
    found, repaired = decode_cse_ner(
        numpy.asarray([start]), numpy.asarray([end]), numpy.asarray([classes]), numpy.asarray([length]), **kwargs
    )
    return list(zip(found[0].starts.tolist(), found[0].ends.tolist())), bool(repaired[0])


@pytest.mark.parametrize(
    "start,end,expected,repaired",
    [
        # Markers that pair up as they are.
        ([HI, LO, LO, HI, LO], [LO, HI, LO, LO, HI], [(0, 2), (3, 5)], False),
        ([LO, HI, LO], [LO, HI, LO], [(1, 2)], False),  # one token is both markers
        # A missing end between two starts: the highest end probability in between.
        ([HI, LO, LO, HI, LO], [LO, 0.3, 0.4, LO, HI], [(0, 3), (3, 5)], True),
        ([HI, LO, HI], [0.45, 0.2, HI], [(0, 1), (2, 3)], True),  # the start's own token counts
        # A missing start between two ends: the highest start probability in between.
        ([HI, LO, 0.2, 0.4, LO], [LO, HI, LO, LO, HI], [(0, 2), (3, 5)], True),
        # The doc's edges close and open markers too.
        ([LO, HI, LO, LO], [LO, LO, 0.3, 0.2], [(1, 3)], True),
        ([0.2, 0.4, LO], [LO, LO, HI], [(1, 3)], True),
        ([LO, LO], [LO, LO], [], False),
    ],
)
def test_paper_rules(start, end, expected, repaired):
    assert decode_one(start, end) == (expected, repaired)


def test_class_is_the_argmax_of_the_mean_over_the_entity():
    # Label 1 wins on one token, label 0 on average over three.
    classes = numpy.asarray([[0.6, 0.0, 0.4], [0.0, 0.7, 0.3], [0.6, 0.0, 0.4], [0.0, 0.0, 1.0]])
    found = decode_cse_ner(
        numpy.asarray([[HI, LO, LO, LO]]), numpy.asarray([[LO, LO, HI, LO]]), classes[None], numpy.asarray([4])
    )[0][0]
    assert found.label_ids.tolist() == [0]
    assert found.scores[0] == pytest.approx(HI * HI * 0.4, rel=1e-5)
    # "other" is never an entity label: the best entity label is taken.
    found = decode_cse_ner(
        numpy.asarray([[LO, LO, LO, HI]]), numpy.asarray([[LO, LO, LO, HI]]), classes[None], numpy.asarray([4])
    )[0][0]
    assert found.label_ids.tolist() == [0] and found.starts.tolist() == [3]


def test_threshold_and_padding():
    start = numpy.asarray([[0.7, LO, HI], [HI, HI, HI]])
    end = numpy.asarray([[0.7, LO, HI], [HI, HI, HI]])
    classes = numpy.full((2, 3, 3), 1 / 3)
    found, _ = decode_cse_ner(start, end, classes, numpy.asarray([3, 0]), threshold=0.8)
    assert found[0].starts.tolist() == [2] and len(found[1]) == 0
    empty, repaired = decode_cse_ner(numpy.zeros((2, 0)), numpy.zeros((2, 0)), numpy.zeros((2, 0, 3)), numpy.zeros(2))
    assert [len(spans) for spans in empty] == [0, 0] and not repaired.any()


@pytest.mark.parametrize("seed", range(5))
def test_any_probabilities_give_well_formed_non_overlapping_entities(seed):
    rng = numpy.random.default_rng(seed)
    n_docs, max_length, n_labels = 64, 20, 3
    lengths = rng.integers(0, max_length + 1, size=n_docs)
    # Skewed, so that markers are sometimes dense and sometimes rare.
    start = rng.random((n_docs, max_length)) ** rng.uniform(0.3, 3.0)
    end = rng.random((n_docs, max_length)) ** rng.uniform(0.3, 3.0)
    classes = rng.dirichlet(numpy.ones(n_labels + 1), size=(n_docs, max_length))
    found, repaired = decode_cse_ner(start, end, classes, lengths)
    assert len(found) == n_docs and repaired.shape == (n_docs,)
    n_entities = 0
    for spans, length, doc_start, doc_end in zip(found, lengths, start, end):
        assert ((spans.starts >= 0) & (spans.starts < spans.ends) & (spans.ends <= length)).all()
        assert (spans.starts[1:] >= spans.ends[:-1]).all(), "ordered, no two overlap"
        assert ((spans.label_ids >= 0) & (spans.label_ids < n_labels)).all()
        assert ((spans.scores >= 0) & (spans.scores <= 1)).all()
        # Every marker above the threshold is used, as a start or an end.
        for t in numpy.flatnonzero(doc_start[:length] > 0.5):
            assert t in spans.starts
        for t in numpy.flatnonzero(doc_end[:length] > 0.5):
            assert t + 1 in spans.ends
        n_entities += len(spans)
    assert n_entities > 50 and repaired.any()
