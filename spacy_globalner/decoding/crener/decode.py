"""Decode CRENER tag grids into entities: links from a head, closed by a typed tail.

A tag's vote is its logit minus the cell's threshold-class logit, and its
score sigmoid(vote); it is on where that score reaches `threshold`, a
probability, as every head's span score does. Each relation is predicted
twice, once per direction, and the two votes are averaged: a link i -> j
(j > i) is on when the mean of NNC(i, j) and PNC(j, i) is, and an entity
(head, tail, label) is closed when the mean of HTC_label(head, tail) and
THC_label(tail, head) is.

An entity is a closed (head, tail, label) whose tail can be reached from its
head along links, found by a depth-first search over the links above
threshold only. Single-token entities are closed on the diagonal and need no
link. Nested, overlapping and same-span-two-label entities all come out.
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from ...errors import Errors
from ..probabilities import logit, sigmoid
from ..spans import SpanArrays
from .band import decode_band
from .tags import N_LINK_TAGS, NNC, PNC
from .windows import WindowMerger


def decode_grid(
    margins: numpy.ndarray,
    n_labels: int,
    threshold: float = 0.5,
    label_thresholds: Optional[numpy.ndarray] = None,
) -> SpanArrays:
    """The entities of one sequence.

    margins (numpy.ndarray): Tag margins of shape (n, n, n_grid_tags), laid
        out as in `grid_tags`.
    n_labels (int): Number of entity labels.
    threshold (float): The probability, sigmoid(vote), a vote must reach.
    label_thresholds (Optional[numpy.ndarray]): Float (n_labels,): the
        probability each label's closing vote must reach (None: `threshold`);
        neighbour links, which have no label, keep `threshold`.
    RETURNS (SpanArrays): Entities ordered by (start, end, label), scored with
        the sigmoid of their closing vote's mean margin.
    """
    n = margins.shape[0]
    if n == 0:
        return SpanArrays.empty()
    margins = margins.astype("float64", copy=False)
    upper = numpy.triu(numpy.ones((n, n), dtype=bool))
    link_votes = 0.5 * (margins[:, :, NNC] + margins[:, :, PNC].T)
    # sigmoid(vote) >= p where vote >= logit(p): one cut per threshold, no
    # sigmoid over the grid (logit(0) = -inf keeps every cell, logit(1) = inf none).
    link_cut = logit(threshold)
    link_rows, link_cols = numpy.nonzero((link_votes >= link_cut) & ~numpy.eye(n, dtype=bool) & upper)
    htc = margins[:, :, N_LINK_TAGS : N_LINK_TAGS + n_labels]
    thc = margins[:, :, N_LINK_TAGS + n_labels :].transpose(1, 0, 2)
    close_votes = 0.5 * (htc + thc)
    close_cut = link_cut if label_thresholds is None else logit(label_thresholds)
    heads, tails, label_ids = numpy.nonzero((close_votes >= close_cut) & upper[:, :, None])
    keep = _reached(heads, tails, link_rows, link_cols, n)
    heads, tails, label_ids = heads[keep], tails[keep], label_ids[keep]
    votes = close_votes[heads, tails, label_ids]
    scores = sigmoid(votes)
    return SpanArrays(
        heads.astype("int64"),
        tails.astype("int64") + 1,
        label_ids.astype("int64"),
        scores.astype("float32"),
    )


def _reached(
    heads: numpy.ndarray,
    tails: numpy.ndarray,
    link_rows: numpy.ndarray,
    link_cols: numpy.ndarray,
    n: int,
) -> numpy.ndarray:
    """Bool per closing candidate: is its tail reachable from its head?

    Candidates come sorted by head (numpy.nonzero is row-major), so each head
    is searched once, no further than its farthest candidate tail.
    """
    keep = heads == tails
    if link_rows.size == 0 or keep.all():
        return keep
    # Links come sorted by row too: a CSR adjacency without sorting.
    link_starts = numpy.searchsorted(link_rows, numpy.arange(n + 1))
    multi = numpy.flatnonzero(~keep)
    group_starts = numpy.flatnonzero(numpy.diff(heads[multi], prepend=-1))
    group_ends = numpy.append(group_starts[1:], multi.size)
    for lo, hi in zip(group_starts.tolist(), group_ends.tolist()):
        members = multi[lo:hi]
        head = int(heads[members[0]])
        seen = _search(head, int(tails[members].max()), link_cols, link_starts)
        keep[members] = numpy.isin(tails[members], seen)
    return keep


def _search(head: int, limit: int, link_cols: numpy.ndarray, link_starts: numpy.ndarray) -> List[int]:
    """Tokens reachable from `head` along links without passing `limit`."""
    seen = {head}
    stack = [head]
    while stack:
        node = stack.pop()
        for target in link_cols[link_starts[node] : link_starts[node + 1]].tolist():
            if target <= limit and target not in seen:
                seen.add(target)
                stack.append(target)
    return list(seen)


def decode_windows(
    grids: Sequence[numpy.ndarray],
    windows: numpy.ndarray,
    n_docs: int,
    n_labels: int,
    threshold: float = 0.5,
    label_thresholds: Optional[numpy.ndarray] = None,
    max_candidates: Optional[int] = None,
    band: Optional[int] = None,
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """Decode the grid of every window and map the entities back to their docs.

    grids (Sequence[numpy.ndarray]): One (length, length, 1 + n_grid_tags)
        logit grid per window; channel 0 is the threshold class.
    windows (numpy.ndarray): The window plan (see `decoding.crener.windows.plan_windows`).
    n_docs (int): Number of docs in the batch.
    n_labels (int): Number of entity labels.
    threshold (float): The probability a vote must reach (see `decode_grid`).
    label_thresholds (Optional[numpy.ndarray]): Per-label probabilities for
        the closing votes (see `decode_grid`).
    max_candidates (Optional[int]): The most entities one doc may yield, the
        highest-scoring kept (None or 0: no bound).
    band (Optional[int]): Entities span at most band + 1 tokens, and a grid
        of 2 * band + 1 columns is a band of that many cells either side of
        the diagonal, (length, 2 * band + 1, 1 + n_grid_tags) (see
        `decode_band`); any other grid is whole and shorter than 2 * band +
        1. None: whole grids, entities of any length.
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): The entities of each
        doc, in doc offsets; and how many each doc had before the cap.
    """
    # One window at a time, so that a doc holds its best spans so far, not
    # every span of every window (an untrained model closes most cells).
    merger = WindowMerger(windows, n_docs, max_candidates)
    for grid in grids:
        margins = grid[:, :, 1:] - grid[:, :, :1]
        if band is None:
            merger.add(decode_grid(margins, n_labels, threshold, label_thresholds))
        elif grid.shape[1] == 2 * band + 1:
            merger.add(decode_band(margins, n_labels, threshold, label_thresholds))
        elif grid.shape[0] == grid.shape[1] < 2 * band + 1:
            found = decode_grid(margins, n_labels, threshold, label_thresholds)
            held = found.ends - found.starts <= band + 1
            merger.add(SpanArrays(*(column[held] for column in found)))
        else:
            raise ValueError(Errors.E234.format(shape=grid.shape, band=band, width=2 * band + 1))
    return merger.result()
