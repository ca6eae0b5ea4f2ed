"""Decode the band of a CRENER tag grid: every entity of up to band + 1 tokens.

A band holds row i's cells j = i - band .. i + band as columns 0 .. 2 * band
(column k: cell (i, i + k - band)); the model scores only those where spans
are bounded. The votes are decode_grid's: a link i -> i + d is on when the
sigmoid of the mean of NNC(i, i + d) and PNC(i + d, i) reaches the
threshold, an entity (head, head + d, label) closes when that of
HTC_label(head, head + d) and THC_label(head + d, head) does, and it is kept
when its tail can be reached from its head along links.

Every link on a path from head to tail lies between them, so no more than d
cells off the diagonal: the band decides the reachability of every entity
it can close exactly as the whole grid does, and this decoder returns the
entities of decode_grid that span at most band + 1 tokens, in its order and
with its scores. Reachability is computed for every head at once, one
distance at a time (band steps), instead of a search from each head.
"""
from typing import Optional

import numpy

from ..probabilities import logit, sigmoid
from ..spans import SpanArrays
from .tags import N_LINK_TAGS, NNC, PNC


def decode_band(
    margins: numpy.ndarray,
    n_labels: int,
    threshold: float = 0.5,
    label_thresholds: Optional[numpy.ndarray] = None,
) -> SpanArrays:
    """The entities of one sequence whose tag margins are given as a band.

    margins (numpy.ndarray): Tag margins of shape (n, 2 * band + 1,
        n_grid_tags), column k of row i the cell (i, i + k - band), the
        channels laid out as in `grid_tags`.
    n_labels (int): Number of entity labels.
    threshold (float): The probability, sigmoid(vote), a vote must reach.
    label_thresholds (Optional[numpy.ndarray]): Float (n_labels,): the
        probability each label's closing vote must reach (None: `threshold`).
    RETURNS (SpanArrays): Entities of up to band + 1 tokens ordered by
        (start, end, label), scored with the sigmoid of their closing vote.
    """
    n, width = margins.shape[:2]
    band = (width - 1) // 2
    if n == 0:
        return SpanArrays.empty()
    margins = margins.astype("float64", copy=False)
    heads = numpy.arange(n)[:, None]
    distances = numpy.arange(band + 1)[None, :]
    # Row and column of the mirror cell (head + d, head), in band form.
    tails = heads + distances
    inside = tails < n
    tails = numpy.minimum(tails, n - 1)
    mirror_columns = band - distances
    forward = margins[:, band:]
    backward = margins[tails, mirror_columns]
    # One cut per threshold, as decode_grid: sigmoid(vote) >= p where vote >= logit(p).
    link_cut = logit(threshold)
    links = (0.5 * (forward[:, :, NNC] + backward[:, :, PNC]) >= link_cut) & inside
    labels = slice(N_LINK_TAGS, N_LINK_TAGS + n_labels)
    mirror_labels = slice(N_LINK_TAGS + n_labels, N_LINK_TAGS + 2 * n_labels)
    close_votes = 0.5 * (forward[:, :, labels] + backward[:, :, mirror_labels])
    close_cut = link_cut if label_thresholds is None else logit(label_thresholds)
    closed = (close_votes >= close_cut) & inside[:, :, None]
    reached = _reachable(links, closed.any(axis=2).any(axis=0))
    head_ids, distance_ids, label_ids = numpy.nonzero(closed & reached[:, :, None])
    scores = sigmoid(close_votes[head_ids, distance_ids, label_ids])
    return SpanArrays(
        head_ids.astype("int64"),
        (head_ids + distance_ids + 1).astype("int64"),
        label_ids.astype("int64"),
        scores.astype("float32"),
    )


def _reachable(links: numpy.ndarray, wanted: numpy.ndarray) -> numpy.ndarray:
    """Bool (n, band + 1): can token i + d be reached from token i along links?

    links (numpy.ndarray): Bool (n, band + 1), links[i, d] the link i -> i + d
        (column 0 unused).
    wanted (numpy.ndarray): Bool (band + 1,), the distances any candidate
        closes at; the search stops after the farthest.
    """
    n, width = links.shape
    reached = numpy.zeros((n, width), dtype=bool)
    reached[:, 0] = True
    candidates = numpy.flatnonzero(wanted)
    farthest = int(candidates.max()) if candidates.size else 0
    rows = numpy.arange(n)[:, None]
    for d in range(1, farthest + 1):
        # i + d is reached from i through some reached i + e and a link
        # (i + e) -> (i + d), e = 0 .. d - 1.
        steps = numpy.arange(d)[None, :]
        via = numpy.minimum(rows + steps, n - 1)
        reached[:, d] = (reached[:, :d] & links[via, d - steps]).any(axis=1)
    return reached
