import numpy
import pytest

from spacy_globalner.decoding.global_pointer import decode_band
from tests.helpers.global_pointer import decode_band_scores

LOW = numpy.finfo("float32").min


def sigmoid(logits):
    return (0.5 * (1.0 + numpy.tanh(0.5 * numpy.asarray(logits, dtype="float64")))).astype("float32")


def band(n_tokens, width, n_labels, cells):
    """Logits with every cell at -5 except the given {(row, w, label): logit}."""
    scores = numpy.full((n_tokens, width, n_labels), -5.0, dtype="float32")
    for (row, w, label), value in cells.items():
        scores[row, w, label] = value
    return scores


def as_tuples(found):
    return list(zip(found.starts.tolist(), found.ends.tolist(), found.label_ids.tolist()))


def test_decode_nested_adjacent_single_token_and_edges():
    # One doc of 6 tokens: [0,3) label 0 with nested [1,2) label 1; adjacent [3,4)
    # and [4,6) label 0 (the last touches the doc edge); the first is at the start.
    scores = band(6, 3, 2, {(0, 2, 0): 4.0, (1, 0, 1): 1.0, (3, 0, 0): 0.5, (4, 1, 0): 2.0})
    (found,) = decode_band_scores(scores, [6])
    assert as_tuples(found) == [(0, 3, 0), (1, 2, 1), (3, 4, 0), (4, 6, 0)]
    expected = 1 / (1 + numpy.exp(-numpy.array([4.0, 1.0, 0.5, 2.0])))
    numpy.testing.assert_allclose(found.scores, expected, rtol=1e-6)


def test_same_span_two_labels_and_threshold():
    scores = band(3, 2, 2, {(1, 1, 0): 0.3, (1, 1, 1): 0.7})
    (found,) = decode_band_scores(scores, [3])
    assert as_tuples(found) == [(1, 3, 0), (1, 3, 1)]
    # the threshold is a probability: sigmoid(0.5) = 0.62 lies between the two scores
    (found,) = decode_band_scores(scores, [3], threshold=0.6225)
    assert as_tuples(found) == [(1, 3, 1)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_span_is_kept_where_the_score_users_read_reaches_the_threshold(dtype):
    """As spancat: score >= threshold, on the float32 score in attrs["scores"],
    for thresholds at a score, just above and below it, 0 and 1."""
    logits = numpy.asarray([-30.0, -2.0, -0.5, 0.0, 0.5, 3.0, 16.0, 17.0, 30.0], dtype=dtype)
    scores = logits.reshape(-1, 1, 1)
    read = sigmoid(logits.astype("float64"))
    cuts = [0.0, 1.0, 0.5, float(numpy.nextafter(numpy.float32(1.0), 0))] + [float(v) for v in read]
    cuts += [float(numpy.nextafter(v, 0)) for v in read] + [float(numpy.nextafter(v, 1)) for v in read]
    for threshold in cuts:
        (found,) = decode_band_scores(scores, [len(logits)], threshold)
        assert found.starts.tolist() == numpy.flatnonzero(read >= threshold).tolist(), threshold
        assert found.scores.tolist() == read[read >= threshold].tolist()
    assert len(decode_band_scores(scores, [len(logits)], 0.0)[0]) == len(logits)
    (found,) = decode_band_scores(scores, [len(logits)], 1.0)
    assert found.starts.tolist() == numpy.flatnonzero(read == 1.0).tolist() and len(found) >= 1


def test_cells_past_the_doc_end_and_band_edge_are_never_spans():
    # Two packed docs of 2 and 3 tokens; width 3. Row 1 (last token of doc 0)
    # with w=1 would cross into doc 1: invalid even with a high logit.
    scores = band(5, 3, 1, {(1, 1, 0): 9.0, (1, 0, 0): 1.0, (2, 2, 0): 3.0, (4, 1, 0): 8.0})
    first, second = decode_band_scores(scores, [2, 3])
    assert as_tuples(first) == [(1, 2, 0)]
    # (2, 2) is the band's last column: a span of width 3 covering all of doc 1.
    assert as_tuples(second) == [(0, 3, 0)]


def test_empty_docs_and_empty_batches():
    scores = band(3, 2, 1, {(0, 0, 0): 2.0, (2, 0, 0): 2.0})
    a, b, c, d = decode_band_scores(scores, [0, 2, 0, 1])
    assert len(a) == 0 and len(c) == 0
    assert as_tuples(b) == [(0, 1, 0)] and as_tuples(d) == [(0, 1, 0)]
    assert [len(x) for x in decode_band_scores(numpy.zeros((0, 0, 2), "float32"), [0, 0])] == [0, 0]


def test_masked_cells_are_ignored_even_with_threshold_0():
    scores = band(2, 2, 1, {(1, 1, 0): LOW})
    (found,) = decode_band_scores(scores, [2], threshold=0.0)
    assert as_tuples(found) == [(0, 1, 0), (0, 2, 0), (1, 2, 0)]


@pytest.mark.parametrize("layout", ["rows, widths, labels", "rows, labels, widths"])
@pytest.mark.parametrize("thresholds", [[0.38, 0.5, 0.69], [0.57, 0.57, 0.57], 0.52])
def test_decode_matches_a_cell_by_cell_reading_of_random_bands(layout, thresholds):
    """In C order, and in the scorer's own memory layout (labels before widths)."""
    rng = numpy.random.default_rng(0)
    lengths = [5, 0, 1, 7, 3]
    width, n_labels = 4, 3
    scores = rng.normal(size=(sum(lengths), width, n_labels)).astype("float32")
    if layout == "rows, labels, widths":
        scores = numpy.ascontiguousarray(scores.transpose(0, 2, 1)).transpose(0, 2, 1)
        assert not scores.flags.c_contiguous
    thresholds = numpy.broadcast_to(numpy.asarray(thresholds, dtype="float64"), (n_labels,))
    found = decode_band_scores(scores, lengths, thresholds)
    row = 0
    for length, spans in zip(lengths, found):
        expected = [
            (start, start + w + 1, label)
            for start in range(length)
            for w in range(width)
            for label in range(n_labels)
            if start + w < length and sigmoid(scores[row + start, w, label]) >= thresholds[label]
        ]
        assert as_tuples(spans) == expected
        row += length


def test_max_candidates_keeps_the_highest_scores_of_each_doc_in_order():
    rng = numpy.random.default_rng(0)
    lengths = [6, 1, 5]
    scores = rng.normal(size=(sum(lengths), 3, 2)).astype("float32")
    full, counts = decode_band(scores, lengths, 0.3)
    capped, capped_counts = decode_band(scores, lengths, 0.3, max_candidates=4)
    assert capped_counts.tolist() == counts.tolist() == [len(spans) for spans in full]
    assert counts[0] > 4 and counts[1] <= 4 and counts[2] > 4
    for whole, cut in zip(full, capped):
        assert len(cut) == min(len(whole), 4)
        best = numpy.sort(whole.scores)[::-1][: len(cut)]
        assert sorted(cut.scores.tolist(), reverse=True) == best.tolist()
        kept = set(as_tuples(cut))
        assert [t for t in as_tuples(whole) if t in kept] == as_tuples(cut)  # (start, end) order kept
    assert [len(x) for x in decode_band_scores(scores, lengths, 0.3, max_candidates=None)] == counts.tolist()
