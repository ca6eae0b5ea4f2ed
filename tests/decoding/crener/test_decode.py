"""The CRENER tag grid: gold encoding and decoding are inverses; the decoder on
hand-made margins; windows over long docs."""
import json

import numpy
import pytest

from spacy_globalner.decoding import SpanArrays
from spacy_globalner.decoding.crener.decode import decode_grid
from spacy_globalner.decoding.crener.tags import NNC, PNC, encode_grid_entities, htc_channel, n_grid_tags, thc_channel
from spacy_globalner.decoding.crener.windows import merge_windows, plan_windows
from tests.helpers.crener import decode_grid_windows, merge_window_spans


def _round_trip(length, entities, n_labels):
    """Encode gold entities as tags, turn the tags into margins, decode."""
    entities = numpy.asarray(entities, dtype="int64").reshape(-1, 3)
    tags = encode_grid_entities(length, entities[:, 0], entities[:, 1], entities[:, 2], n_labels)
    found = decode_grid(numpy.where(tags, 5.0, -5.0), n_labels)
    return {(int(s), int(e), int(l)) for s, e, l in zip(found.starts, found.ends, found.label_ids)}


@pytest.mark.parametrize(
    "length,entities",
    [
        (6, []),
        (6, [(0, 1, 0)]),  # single token at the left edge
        (6, [(5, 6, 1)]),  # single token at the right edge
        (6, [(0, 6, 0)]),  # the whole doc
        (6, [(0, 2, 0), (2, 4, 0), (4, 6, 1)]),  # adjacent, same and other label
        (8, [(1, 5, 0), (1, 2, 1), (3, 5, 1), (4, 5, 0)]),  # nested, shared head and tail
        (6, [(1, 3, 0), (1, 3, 1)]),  # same span, two labels
        (6, [(0, 3, 0), (2, 5, 1)]),  # overlapping, crossing
        (1, [(0, 1, 2)]),  # one-token doc
    ],
)
def test_encode_decode_round_trip(length, entities):
    assert _round_trip(length, entities, 3) == set(entities)


def test_encoding_layout():
    tags = encode_grid_entities(5, numpy.asarray([1]), numpy.asarray([4]), numpy.asarray([1]), 2)
    assert tags.shape == (5, 5, n_grid_tags(2)) and tags.dtype == bool
    assert {tuple(c) for c in numpy.argwhere(tags[:, :, NNC])} == {(1, 2), (2, 3)}
    assert {tuple(c) for c in numpy.argwhere(tags[:, :, PNC])} == {(2, 1), (3, 2)}
    assert numpy.argwhere(tags[:, :, htc_channel(1, 2)]).tolist() == [[1, 3]]
    assert numpy.argwhere(tags[:, :, thc_channel(1, 2)]).tolist() == [[3, 1]]
    assert tags.sum() == 6


def test_round_trip_genia_dev(shared_data):
    """Every entity of every GENIA dev sentence survives encode -> decode: 100%
    (4,461 entities in 1,669 sentences; nesting and same-span labels included)."""
    labels = {}
    n_entities = n_recovered = 0
    for line in (shared_data / "genia" / "dev.jsonl").read_text(encoding="utf8").splitlines():
        record = json.loads(line)
        entities = {(s, e, labels.setdefault(t, len(labels))) for s, e, t in record["entities"]}
        found = _round_trip(len(record["tokens"]), sorted(entities), 5)
        n_entities += len(entities)
        n_recovered += len(found & entities)
        assert found == entities, record
    assert n_entities > 4000 and n_recovered == n_entities


def _margins(n, n_labels, links=(), closes=()):
    margins = numpy.full((n, n, n_grid_tags(n_labels)), -3.0)
    for i, j in links:
        margins[i, j, NNC] = margins[j, i, PNC] = 2.0
    for h, t, label, value in closes:
        margins[h, t, htc_channel(label, n_labels)] = value
        margins[t, h, thc_channel(label, n_labels)] = value
    return margins


def test_decoder_needs_a_path_of_links():
    margins = _margins(6, 1, links=[(0, 1), (1, 2), (3, 4)], closes=[(0, 2, 0, 2.0), (2, 4, 0, 2.0)])
    found = decode_grid(margins, 1)
    assert list(zip(found.starts, found.ends)) == [(0, 3)]  # (2, 4) lacks the link 2 -> 3


def test_decoder_single_token_needs_no_link():
    found = decode_grid(_margins(3, 2, closes=[(2, 2, 1, 1.0)]), 2)
    assert (found.starts.tolist(), found.ends.tolist(), found.label_ids.tolist()) == ([2], [3], [1])
    assert numpy.allclose(found.scores, 1 / (1 + numpy.exp(-1.0)))


def test_decoder_directions_vote():
    margins = _margins(3, 1, links=[(0, 1)], closes=[(0, 1, 0, 2.0)])
    margins[1, 0, PNC] = -1.0  # NNC 2.0 and PNC -1.0: the link's mean is 0.5, on
    margins[1, 0, thc_channel(0, 1)] = -3.0  # HTC 2.0 and THC -3.0: the closure's mean is -0.5, off
    assert len(decode_grid(margins, 1)) == 0
    margins[1, 0, thc_channel(0, 1)] = -1.0
    assert len(decode_grid(margins, 1)) == 1
    assert len(decode_grid(margins, 1, threshold=0.7311)) == 0  # sigmoid(0.5) is 0.6225


def test_decoder_keeps_a_vote_that_reaches_the_threshold():
    """`>=`, as global_pointer and calibration keep a score that reaches it:
    a closing vote of 0 has the score 0.5, and 0.5 keeps it."""
    margins = _margins(2, 1, links=[(0, 1)], closes=[(0, 1, 0, 0.0)])
    found = decode_grid(margins, 1, threshold=0.5)
    assert list(zip(found.starts, found.ends)) == [(0, 2)] and found.scores.tolist() == [0.5]
    assert len(decode_grid(margins, 1, threshold=numpy.nextafter(0.5, 1.0))) == 0
    # 0 keeps every cell of the upper triangle, 1 none
    assert len(decode_grid(margins, 1, threshold=0.0)) == 3 and len(decode_grid(margins, 1, threshold=1.0)) == 0


def test_decoder_follows_links_past_a_gap():
    """Links need not join neighbours: a path 0 -> 2 -> 3 reaches tail 3."""
    found = decode_grid(_margins(4, 1, links=[(0, 2), (2, 3)], closes=[(0, 3, 0, 1.0)]), 1)
    assert list(zip(found.starts, found.ends)) == [(0, 4)]


def test_decoder_ignores_lower_triangle_closures():
    margins = _margins(4, 1, links=[(0, 1)])
    margins[1, 0, htc_channel(0, 1)] = margins[0, 1, thc_channel(0, 1)] = 5.0  # (head 1, tail 0)
    assert len(decode_grid(margins, 1)) == 0


def test_decoder_empty():
    assert len(decode_grid(numpy.zeros((0, 0, n_grid_tags(2))), 2)) == 0


def test_plan_windows_short_and_empty_docs():
    plan = plan_windows([5, 0, 3], [None, None, None], 8)
    assert plan.tolist() == [[0, 0, 5, 0, 5], [2, 0, 3, 0, 3]]


def test_plan_windows_overlapping_cores_partition_doc():
    plan = plan_windows([1000], [None], 64)
    assert (plan[:, 2] - plan[:, 1] <= 64).all()
    assert plan[0, 3] == 0 and plan[-1, 4] == 1000
    assert (plan[1:, 3] == plan[:-1, 4]).all()
    assert ((plan[:, 3] >= plan[:, 1]) & (plan[:, 4] <= plan[:, 2])).all()
    assert (plan[1:, 1] < plan[:-1, 2]).all()  # neighbours overlap


def test_plan_windows_packs_whole_sentences():
    starts = numpy.arange(0, 100, 10)  # ten sentences of ten tokens
    plan = plan_windows([100], [starts], 35)
    assert plan[:, 1:3].tolist() == [[0, 30], [30, 60], [60, 90], [90, 100]]
    assert (plan[:, 1:3] == plan[:, 3:5]).all()


def test_plan_windows_splits_a_long_sentence():
    plan = plan_windows([120], [numpy.asarray([0, 10, 110])], 32)
    assert plan[0, 1:3].tolist() == [0, 10] and plan[-1, 1:3].tolist() == [110, 120]
    inside = plan[1:-1]
    assert inside[0, 3] == 10 and inside[-1, 4] == 110 and (inside[1:, 3] == inside[:-1, 4]).all()


def test_plan_windows_unsegmented_length():
    """Text longer than max_length without a sentence boundary gets windows of
    unsegmented_length (context // 8 either side, cores partitioning it); a
    doc that fits, and packed sentences, keep max_length; a longer
    unsegmented_length is held to max_length."""
    sentences = numpy.asarray([0, 10, 20, 300])  # a 280-token sentence inside
    plan = plan_windows([1000, 200, 310], [None, None, sentences], 256, 64)
    unsegmented, fits, segmented = (plan[plan[:, 0] == doc] for doc in range(3))
    assert (unsegmented[:, 2] - unsegmented[:, 1]).max() == 64 and len(unsegmented) == 21
    assert unsegmented[0, 3] == 0 and unsegmented[-1, 4] == 1000
    assert (unsegmented[1:, 3] == unsegmented[:-1, 4]).all()
    assert (unsegmented[1:, 3] - unsegmented[1:, 1] == 8).all()  # 64 // 8 tokens of context
    assert fits.tolist() == [[1, 0, 200, 0, 200]]
    assert segmented[0, 1:5].tolist() == [0, 20, 0, 20]  # two whole sentences
    assert segmented[-1, 1:5].tolist() == [300, 310, 300, 310]
    long_sentence = segmented[1:-1]
    assert (long_sentence[:, 2] - long_sentence[:, 1] <= 64).all()
    assert long_sentence[0, 3] == 20 and long_sentence[-1, 4] == 300
    numpy.testing.assert_array_equal(plan_windows([1000], [None], 64, 256), plan_windows([1000], [None], 64))
    numpy.testing.assert_array_equal(plan_windows([1000], [None], 256, None), plan_windows([1000], [None], 256))


def test_merge_drops_spans_at_cut_edges_and_keeps_each_span_once():
    windows = numpy.asarray([[0, 0, 8, 0, 6], [0, 4, 12, 6, 12], [1, 0, 3, 0, 3]])
    found = [
        # (5, 8) touches window 0's cut right edge: maybe cut short, not kept from here.
        SpanArrays(numpy.asarray([1, 5, 5]), numpy.asarray([3, 8, 7]), numpy.asarray([0, 0, 1]),
                   numpy.asarray([0.9, 0.8, 0.4])),
        # (4, 6) touches window 1's cut left edge; (5, 8) is whole here; (5, 7) is found twice.
        SpanArrays(numpy.asarray([0, 2, 1, 1]), numpy.asarray([2, 4, 4, 3]), numpy.asarray([1, 1, 0, 1]),
                   numpy.asarray([0.7, 0.6, 0.75, 0.65])),
        # A doc in one window has no cut edge: its span at both ends is kept.
        SpanArrays(numpy.asarray([0]), numpy.asarray([3]), numpy.asarray([2]), numpy.asarray([0.5])),
    ]
    doc0, doc1 = merge_window_spans(windows, found, 2)
    assert list(zip(doc0.starts, doc0.ends, doc0.label_ids)) == [(1, 3, 0), (5, 7, 1), (5, 8, 0), (6, 8, 1)]
    numpy.testing.assert_allclose(doc0.scores, [0.9, 0.65, 0.75, 0.6])
    assert list(zip(doc1.starts, doc1.ends)) == [(0, 3)]


def test_decode_grid_windows_uses_threshold_class():
    n_labels = 1
    tags = encode_grid_entities(3, numpy.asarray([0]), numpy.asarray([2]), numpy.asarray([0]), n_labels)
    grid = numpy.concatenate((numpy.full((3, 3, 1), 1.0), numpy.where(tags, 3.0, 0.5)), axis=-1)
    windows = numpy.asarray([[0, 0, 3, 0, 3]])
    (found,) = decode_grid_windows([grid], windows, 1, n_labels)
    assert list(zip(found.starts, found.ends)) == [(0, 2)]
    grid[:, :, 0] = 4.0  # the threshold class now beats every tag
    (found,) = decode_grid_windows([grid], windows, 1, n_labels)
    assert len(found) == 0


def test_merge_caps_each_doc_at_its_best_spans():
    """max_candidates keeps each doc's highest scores (ties: the earlier span),
    in (start, end, label) order, and counts the spans before the cap."""
    windows = numpy.asarray([[0, 0, 6, 0, 6], [1, 0, 4, 0, 4]])
    found = [
        SpanArrays(numpy.asarray([0, 1, 2, 3]), numpy.asarray([1, 2, 3, 4]), numpy.zeros(4, "int64"),
                   numpy.asarray([0.6, 0.9, 0.6, 0.7])),
        SpanArrays(numpy.asarray([0]), numpy.asarray([2]), numpy.asarray([1]), numpy.asarray([0.8])),
    ]
    (doc0, doc1), counts = merge_windows(windows, found, 2, max_candidates=3)
    assert counts.tolist() == [4, 1]
    assert list(zip(doc0.starts, doc0.ends)) == [(0, 1), (1, 2), (3, 4)]
    numpy.testing.assert_allclose(doc0.scores, [0.6, 0.9, 0.7])
    assert list(zip(doc1.starts, doc1.ends)) == [(0, 2)]
    for no_bound in (None, 0):
        (doc0, _), counts = merge_windows(windows, found, 2, max_candidates=no_bound)
        assert len(doc0) == 4 and counts.tolist() == [4, 1]


def _reference_merge(windows, found, k):
    """merge_windows written out span by span: shift, drop a span at a cut edge
    where another window holds it away from its cut edges, best score per
    span, then the k best by (-score, start, end, label)."""
    def at_cut(row, start, end):
        return (row[3] > row[1] and start == row[1]) or (row[4] < row[2] and end == row[2])

    best, counts = {}, {}
    for row, spans in zip(windows.tolist(), found):
        for s, e, label, score in zip(spans.starts, spans.ends, spans.label_ids, spans.scores):
            start, end = int(s) + row[1], int(e) + row[1]
            if at_cut(row, start, end) and any(
                other[0] == row[0] and other[1] <= start and end <= other[2] and not at_cut(other, start, end)
                for other in windows.tolist()
            ):
                continue
            key = (row[0], start, end, int(label))
            best[key] = max(best.get(key, -1.0), float(score))
    for doc, *_ in best:
        counts[doc] = counts.get(doc, 0) + 1
    kept = sorted(best, key=lambda key: (key[0], -best[key], key[1:]))
    if k:
        kept = [key for key in kept if sum(1 for o in kept[: kept.index(key)] if o[0] == key[0]) < k]
    return sorted((key, round(best[key], 6)) for key in kept), counts


@pytest.mark.parametrize("max_candidates", [None, 7, 40])
def test_merge_equals_the_span_by_span_reference(max_candidates):
    rng = numpy.random.RandomState(max_candidates or 0)
    windows = plan_windows([90, 20, 70], [None, None, numpy.asarray([0, 30, 40])], 24)
    found = []
    for _, start, end, _, _ in windows.tolist():
        n = rng.randint(0, 30)
        starts = rng.randint(0, end - start, n)
        ends = numpy.minimum(starts + rng.randint(1, 6, n), end - start)
        scores = rng.choice([0.3, 0.5, 0.6, 0.9], n).astype("float32")  # ties across windows
        found.append(SpanArrays(starts, ends, rng.randint(0, 2, n), scores))
    merged, counts = merge_windows(windows, found, 3, max_candidates=max_candidates)
    expected, expected_counts = _reference_merge(windows, found, max_candidates)
    got = sorted(
        ((doc, int(s), int(e), int(label)), round(float(score), 6))
        for doc, spans in enumerate(merged)
        for s, e, label, score in zip(spans.starts, spans.ends, spans.label_ids, spans.scores)
    )
    assert got == expected
    assert counts.tolist() == [expected_counts.get(doc, 0) for doc in range(3)]
    for spans in merged:
        assert list(zip(spans.starts, spans.ends, spans.label_ids)) == sorted(
            zip(spans.starts, spans.ends, spans.label_ids)
        )
