"""Windows over long docs, so that an n x n grid never grows past a fixed size.

A doc of up to `max_length` tokens is one window. A longer doc is cut at
sentence boundaries where it has them, packing whole sentences greedily into
windows of at most `max_length` tokens. A doc without sentence boundaries (or
a single sentence longer than `max_length`) gets overlapping windows of
`max_length` tokens, each with `max_length // 8` tokens of context on either
side of its core.

Each window owns a core; the cores partition the doc. An edge of a window
that cuts the doc (where its core ends before the window does) hides what
lies beyond it, so an entity found touching such an edge may be cut short.
It is not kept from that window where another window holds the same tokens
away from its own cut edges, and so sees it whole. Neighbours share
2 * (max_length // 8) tokens: an entity inside the shared part that touches
one cut edge is away from the other window's, except the shared part itself,
[start of the later window, end of the earlier one), which touches a cut
edge in both. An entity that touches a cut edge and that no window holds
whole (that one, and any that runs from the later window's start past the
earlier one's end, or from before the later one's start to the earlier
one's end) is kept: no window has a better view of it. The entities kept
from all windows are merged, each (start, end, label) once with its best
score, so an entity longer than a core that crosses a core boundary is
still found. An entity that reaches past both ends of a shared part lies in
no window and is lost: windows of max_length tokens find every entity of up
to 2 * (max_length // 8) tokens (64 at 256) wherever it lies.

A plan is an int64 array with one row per window:
[doc, start, end, core_start, core_end] (token offsets in the doc, end exclusive).
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from ..spans import SpanArrays, split_by_doc

DOC, START, END, CORE_START, CORE_END = range(5)


def plan_windows(
    lengths: Sequence[int],
    sentence_starts: Sequence[Optional[numpy.ndarray]],
    max_length: int,
) -> numpy.ndarray:
    """The windows of a batch of docs (empty docs get none).

    lengths (Sequence[int]): Tokens per doc.
    sentence_starts (Sequence[Optional[numpy.ndarray]]): Per doc, the first
        token of each sentence, or None where the doc has no sentence boundaries.
    max_length (int): Most tokens in a window.
    RETURNS (numpy.ndarray): The plan, shape (n_windows, 5), in doc order.
    """
    rows = []
    for doc_id, (length, starts) in enumerate(zip(lengths, sentence_starts)):
        if length == 0:
            continue
        if length <= max_length:
            rows.append(numpy.asarray([[doc_id, 0, length, 0, length]], dtype="int64"))
            continue
        for start, end in _sentence_segments(length, starts, max_length):
            rows.append(_segment_windows(doc_id, start, end, max_length))
    if not rows:
        return numpy.zeros((0, 5), dtype="int64")
    return numpy.concatenate(rows)


def _sentence_segments(length: int, starts: Optional[numpy.ndarray], max_length: int) -> List[tuple]:
    """Greedy packing of whole sentences into segments of at most max_length
    tokens (a longer sentence is a segment of its own)."""
    if starts is None:
        return [(0, length)]
    bounds = numpy.unique(numpy.concatenate(([0], numpy.asarray(starts, dtype="int64"), [length])))
    bounds = bounds[(bounds >= 0) & (bounds <= length)].tolist()
    segments = []
    segment_start = 0
    for previous, bound in zip(bounds[:-1], bounds[1:]):
        if bound - segment_start > max_length and previous > segment_start:
            segments.append((segment_start, previous))
            segment_start = previous
    segments.append((segment_start, length))
    return segments


def _segment_windows(doc_id: int, start: int, end: int, max_length: int) -> numpy.ndarray:
    """Windows over one segment: the segment itself when it fits, else
    overlapping windows whose cores partition it."""
    if end - start <= max_length:
        return numpy.asarray([[doc_id, start, end, start, end]], dtype="int64")
    context = max_length // 8
    stride = max_length - 2 * context
    n_windows = 1 + -(-(end - start - max_length) // stride)
    window_starts = start + stride * numpy.arange(n_windows, dtype="int64")
    window_ends = numpy.minimum(window_starts + max_length, end)
    core_starts = window_starts + context
    core_starts[0] = start
    core_ends = window_starts + max_length - context
    core_ends[-1] = end
    return numpy.stack(
        [numpy.full_like(window_starts, doc_id), window_starts, window_ends, core_starts, core_ends],
        axis=1,
    )


def merge_window_spans(windows: numpy.ndarray, found: Sequence[SpanArrays], n_docs: int) -> List[SpanArrays]:
    """The spans of `merge_windows`, without a cap or counts."""
    return merge_windows(windows, found, n_docs)[0]


def merge_windows(
    windows: numpy.ndarray,
    found: Sequence[SpanArrays],
    n_docs: int,
    max_candidates: Optional[int] = None,
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """Shift each window's spans to doc offsets, drop those touching an edge
    that cuts the doc (where another window holds them whole), and keep each
    (doc, start, end, label) once, with its highest score.

    windows (numpy.ndarray): The plan, one row per entry of `found`.
    found (Sequence[SpanArrays]): Spans of each window, in window offsets.
    n_docs (int): Number of docs in the batch.
    max_candidates (Optional[int]): The most spans one doc may yield: where
        it has more, the highest-scoring are kept (ties: the earlier ones).
        None or 0: no bound.
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): Spans of each doc,
        ordered by (start, end, label); and the int64 (n_docs,) number of
        spans each doc had before the cap.
    """
    if not len(found):
        return [SpanArrays.empty() for _ in range(n_docs)], numpy.zeros((n_docs,), dtype="int64")
    counts = numpy.asarray([len(spans) for spans in found], dtype="int64")
    window_of_span = numpy.repeat(numpy.arange(len(found)), counts)
    rows = windows[window_of_span]
    starts = numpy.concatenate([spans.starts for spans in found]).astype("int64") + rows[:, START]
    ends = numpy.concatenate([spans.ends for spans in found]).astype("int64") + rows[:, START]
    label_ids = numpy.concatenate([spans.label_ids for spans in found]).astype("int64")
    scores = numpy.concatenate([spans.scores for spans in found]).astype("float32")
    doc_ids = rows[:, DOC]
    at_cut = _touches_cut_edge(rows, starts, ends)
    if at_cut.any():
        # Drop those only where another window holds them whole.
        at_cut[at_cut] = _held_whole(windows, doc_ids[at_cut], starts[at_cut], ends[at_cut])
    order = numpy.lexsort((-scores, label_ids, ends, starts, doc_ids))
    order = order[~at_cut[order]]
    key = numpy.stack([doc_ids, starts, ends, label_ids], axis=1)[order]
    first = numpy.ones(len(order), dtype=bool)
    first[1:] = (key[1:] != key[:-1]).any(axis=1)
    order = order[first]
    counts = numpy.bincount(doc_ids[order], minlength=n_docs).astype("int64")
    if max_candidates and counts.max(initial=0) > max_candidates:
        order = order[_top_per_doc(doc_ids[order], scores[order], counts, max_candidates)]
    spans = split_by_doc(doc_ids[order], n_docs, starts[order], ends[order], label_ids[order], scores[order])
    return spans, counts


def _top_per_doc(doc_ids: numpy.ndarray, scores: numpy.ndarray, counts: numpy.ndarray, k: int) -> numpy.ndarray:
    """Bool per entry (sorted by doc): is it among its doc's k highest scores?
    Among equal scores the earlier entries win; the entries keep their order."""
    by_score = numpy.lexsort((numpy.arange(len(scores)), -scores, doc_ids))
    rank = numpy.arange(len(scores)) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    keep = numpy.zeros(len(scores), dtype=bool)
    keep[by_score[rank < k]] = True
    return keep


def _touches_cut_edge(rows: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray) -> numpy.ndarray:
    """Bool per span: does it touch an edge of its window `rows` that cuts the doc?"""
    cut_before = (rows[:, CORE_START] > rows[:, START]) & (starts == rows[:, START])
    cut_after = (rows[:, CORE_END] < rows[:, END]) & (ends == rows[:, END])
    return cut_before | cut_after


def _held_whole(windows: numpy.ndarray, doc_ids: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray):
    """Bool per span (doc offsets): does some window of its doc hold it
    without touching a cut edge?

    The plan is sorted by (doc, start) and its ends never decrease, so the
    windows that contain a span are one run, found by binary search; as
    neighbours overlap by less than a stride, the run has at most two.
    """
    stride = int(max(windows[:, END].max(), ends.max())) + 1
    window_starts = windows[:, DOC] * stride + windows[:, START]
    window_ends = windows[:, DOC] * stride + windows[:, END]
    first = numpy.searchsorted(window_ends, doc_ids * stride + ends, side="left")
    stop = numpy.searchsorted(window_starts, doc_ids * stride + starts, side="right")
    held = numpy.zeros(len(starts), dtype=bool)
    for offset in (0, 1):
        candidate = first + offset
        valid = candidate < stop
        rows = windows[numpy.minimum(candidate, len(windows) - 1)]
        held |= valid & ~_touches_cut_edge(rows, starts, ends)
    return held
