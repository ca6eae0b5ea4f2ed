"""Windows over long docs, so that an n x n grid never grows past a fixed size.

A doc of up to `max_length` tokens is one window. A longer doc is cut at
sentence boundaries where it has them, packing whole sentences greedily into
windows of at most `max_length` tokens. A doc without sentence boundaries (or
a single sentence longer than `max_length`) gets overlapping windows of
`unsegmented_length` tokens (`max_length` unless set shorter), each with
`unsegmented_length // 8` tokens of context on either side of its core.
Every token of such text pays for about 4/3 * unsegmented_length grid cells,
against the length of its own sentence in segmented text.

Each window owns a core; the cores partition the doc. An edge of a window
that cuts the doc (where its core ends before the window does) hides what
lies beyond it, so an entity found touching such an edge may be cut short.
It is not kept from that window where another window holds the same tokens
away from its own cut edges, and so sees it whole. Neighbours share
2 * (W // 8) tokens, W the windows' length: an entity inside the shared part that touches
one cut edge is away from the other window's, except the shared part itself,
[start of the later window, end of the earlier one), which touches a cut
edge in both. An entity that touches a cut edge and that no window holds
whole (that one, and any that runs from the later window's start past the
earlier one's end, or from before the later one's start to the earlier
one's end) is kept: no window has a better view of it. The entities kept
from all windows are merged, each (start, end, label) once with its best
score, so an entity longer than a core that crosses a core boundary is
still found. An entity that reaches past both ends of a shared part lies in
no window and is lost: windows of W tokens find every entity of up to
2 * (W // 8) tokens (64 at 256, 24 at 96) wherever it lies.

A plan is an int64 array with one row per window:
[doc, start, end, core_start, core_end] (token offsets in the doc, end exclusive).
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from ..spans import SpanArrays

DOC, START, END, CORE_START, CORE_END = range(5)


def plan_windows(
    lengths: Sequence[int],
    sentence_starts: Sequence[Optional[numpy.ndarray]],
    max_length: int,
    unsegmented_length: Optional[int] = None,
) -> numpy.ndarray:
    """The windows of a batch of docs (empty docs get none).

    lengths (Sequence[int]): Tokens per doc.
    sentence_starts (Sequence[Optional[numpy.ndarray]]): Per doc, the first
        token of each sentence, or None where the doc has no sentence boundaries.
    max_length (int): Most tokens in a window.
    unsegmented_length (Optional[int]): Tokens in each of the overlapping
        windows over text longer than max_length with no sentence boundary
        inside (at most max_length; None: max_length).
    RETURNS (numpy.ndarray): The plan, shape (n_windows, 5), in doc order.
    """
    window = max_length if unsegmented_length is None else min(unsegmented_length, max_length)
    rows = []
    for doc_id, (length, starts) in enumerate(zip(lengths, sentence_starts)):
        if length == 0:
            continue
        if length <= max_length:
            rows.append(numpy.asarray([[doc_id, 0, length, 0, length]], dtype="int64"))
            continue
        for start, end in _sentence_segments(length, starts, max_length):
            if end - start <= max_length:
                rows.append(numpy.asarray([[doc_id, start, end, start, end]], dtype="int64"))
            else:
                rows.append(_segment_windows(doc_id, start, end, window))
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
    """Overlapping windows of max_length tokens over a segment longer than
    that, whose cores partition it."""
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
        it has more, the highest-scoring are kept (among equal scores, the
        first in (start, end, label) order). None or 0: no bound.
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): Spans of each doc,
        ordered by (start, end, label); and the int64 (n_docs,) number of
        spans each doc had before the cap.
    """
    merger = WindowMerger(windows, n_docs, max_candidates)
    for spans in found:
        merger.add(spans)
    return merger.result()


class WindowMerger:
    """merge_windows one window at a time, so that a caller can decode a
    window, hand over its spans and free them: with max_candidates, a doc
    holds at most 2 * max_candidates spans at any time, however many its
    windows find (a doc's top k is the top k of its windows' top k, once
    duplicates keep their best score).

    windows (numpy.ndarray): The plan; `add` takes its windows in order.
    n_docs (int): Number of docs in the batch.
    max_candidates (Optional[int]): See merge_windows.
    """

    def __init__(self, windows: numpy.ndarray, n_docs: int, max_candidates: Optional[int] = None) -> None:
        self.windows = windows
        self.n_docs = n_docs
        self.max_candidates = max_candidates or None
        self.counts = numpy.zeros((n_docs,), dtype="int64")
        self.parts: List[List[tuple]] = [[] for _ in range(n_docs)]
        self.held = numpy.zeros((n_docs,), dtype="int64")
        self.next_window = 0
        # Spans of the previous window inside the next one: the only place
        # where a span can be found twice (neighbours overlap, no three do).
        self.shared: Optional[tuple] = None

    def add(self, spans: SpanArrays) -> None:
        """The spans of the next window of the plan, in window offsets."""
        index = self.next_window
        self.next_window += 1
        row = self.windows[index]
        doc = int(row[DOC])
        starts = numpy.asarray(spans.starts, dtype="int64") + row[START]
        ends = numpy.asarray(spans.ends, dtype="int64") + row[START]
        label_ids = numpy.asarray(spans.label_ids, dtype="int64")
        scores = numpy.asarray(spans.scores, dtype="float32")
        at_cut = _touches_cut_edge(row[None, :], starts, ends)
        if at_cut.any():
            # Drop those only where another window holds them whole.
            at_cut[at_cut] = _held_whole(self.windows, numpy.full(int(at_cut.sum()), doc), starts[at_cut], ends[at_cut])
            keep = ~at_cut
            starts, ends, label_ids, scores = starts[keep], ends[keep], label_ids[keep], scores[keep]
        starts, ends, label_ids, scores = _best(starts, ends, label_ids, scores, None)
        n_repeated = 0
        if self.shared is not None and self.shared[0] == doc and len(starts):
            _, shared_starts, shared_ends, shared_labels = self.shared
            width = int(max(ends.max(), shared_ends.max(initial=0))) + 1
            n_labels = int(max(label_ids.max(), shared_labels.max(initial=0))) + 1
            n_repeated = int(numpy.isin(
                _keys(starts, ends, label_ids, width, n_labels),
                _keys(shared_starts, shared_ends, shared_labels, width, n_labels),
            ).sum())
        self.counts[doc] += len(starts) - n_repeated
        following = self.windows[index + 1] if index + 1 < len(self.windows) else None
        if following is not None and int(following[DOC]) == doc:
            inside = starts >= following[START]
            self.shared = (doc, starts[inside], ends[inside], label_ids[inside])
        else:
            self.shared = None
        if len(starts):
            self.parts[doc].append((starts, ends, label_ids, scores))
            self.held[doc] += len(starts)
            if self.max_candidates is not None and self.held[doc] > 2 * self.max_candidates:
                self._prune(doc)

    def _prune(self, doc: int) -> None:
        best = _best(*(numpy.concatenate(column) for column in zip(*self.parts[doc])), self.max_candidates)
        self.parts[doc] = [best]
        self.held[doc] = len(best[0])

    def result(self) -> Tuple[List[SpanArrays], numpy.ndarray]:
        """RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): See merge_windows."""
        merged = []
        for doc in range(self.n_docs):
            if not self.parts[doc]:
                merged.append(SpanArrays.empty())
                continue
            starts, ends, label_ids, scores = _best(
                *(numpy.concatenate(column) for column in zip(*self.parts[doc])), self.max_candidates
            )
            order = numpy.lexsort((label_ids, ends, starts))
            merged.append(SpanArrays(starts[order], ends[order], label_ids[order], scores[order]))
        return merged, self.counts


def _keys(starts, ends, label_ids, width: int, n_labels: int) -> numpy.ndarray:
    """One int64 per (start, end, label) of a doc, for offsets below `width`."""
    return (starts * width + ends) * n_labels + label_ids


def _best(starts, ends, label_ids, scores, k: Optional[int]):
    """Each (start, end, label) once with its best score; then, with k, the k
    highest-scoring (ties: the first in (start, end, label) order)."""
    order = numpy.lexsort((-scores, label_ids, ends, starts))
    starts, ends, label_ids, scores = starts[order], ends[order], label_ids[order], scores[order]
    first = numpy.ones(len(starts), dtype=bool)
    first[1:] = (starts[1:] != starts[:-1]) | (ends[1:] != ends[:-1]) | (label_ids[1:] != label_ids[:-1])
    starts, ends, label_ids, scores = starts[first], ends[first], label_ids[first], scores[first]
    if k is not None and len(starts) > k:
        top = numpy.lexsort((label_ids, ends, starts, -scores))[:k]
        starts, ends, label_ids, scores = starts[top], ends[top], label_ids[top], scores[top]
    return starts, ends, label_ids, scores


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
