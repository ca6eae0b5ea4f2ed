"""Decode GlobalPointer band scores into spans: every cell whose score reaches the threshold."""
from typing import List, Optional, Sequence, Tuple, Union

import numpy

from .probabilities import logit, sigmoid
from .spans import EntityArrays, SpanArrays, split_by_doc


def band_rows(lengths: Sequence[int]):
    """Map the rows of a packed batch to docs and in-doc positions.

    lengths (Sequence[int]): Tokens per doc; the batch packs them one after another.
    RETURNS (Tuple[ndarray, ndarray, ndarray]): doc id of each row, position of
        each row inside its doc, and the tokens from each row to its doc's end
        (1 for a doc's last token).
    """
    lengths = numpy.asarray(lengths, dtype="int64")
    doc_of_row = numpy.repeat(numpy.arange(lengths.shape[0]), lengths)
    position = numpy.arange(int(lengths.sum())) - (numpy.cumsum(lengths) - lengths)[doc_of_row]
    return doc_of_row, position, lengths[doc_of_row] - position


def band_cell_coordinates(lengths: Sequence[int], width: int):
    """band_rows, with the (rows, width) mask of cells whose span ends inside
    its doc in place of the tokens remaining.

    width (int): Number of span widths scored per start token.
    """
    doc_of_row, position, remaining = band_rows(lengths)
    return doc_of_row, position, numpy.arange(width)[None, :] < remaining[:, None]


def decode_band(
    scores: numpy.ndarray,
    lengths: Sequence[int],
    threshold: Union[float, numpy.ndarray] = 0.5,
    max_candidates: Optional[int] = None,
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """Every cell (start, width, label) whose score, sigmoid(logit), is at
    least `threshold` is a span, as spancat keeps a span.

    The band is compared in logits, with one cut per label taken once per
    batch (see `logit_cuts`); only the few cells found get a sigmoid, and
    those are held to the threshold on the float32 score users read.

    scores (numpy.ndarray): Logits of shape (n_tokens, width, n_labels); row r is
        the span starting at packed token r, column w ends w tokens later.
    lengths (Sequence[int]): Tokens per doc in the packed batch.
    threshold (Union[float, numpy.ndarray]): Probability in [0, 1] a span's
        score must reach: one for all labels, or an (n_labels,) vector of one
        per label. 0 keeps every cell, 1 only those scored 1.0.
    max_candidates (Optional[int]): The most spans one doc may yield: where
        more cells reach the threshold, the highest-scoring ones are kept
        (None: no bound).
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): The spans of each doc,
        ordered by (start, end), with sigmoid(logit) as score (nested and
        overlapping spans are kept); and the int64 (n_docs,) count of cells
        each doc had at the threshold, before the cap.
    """
    n_docs = len(lengths)
    if scores.size == 0:
        return [SpanArrays.empty() for _ in range(n_docs)], numpy.zeros((n_docs,), dtype="int64")
    threshold = numpy.asarray(threshold, dtype="float64")
    doc_of_row, position, remaining = band_rows(lengths)
    rows, widths, label_ids = cells_above(scores, logit_cuts(threshold, scores.dtype))
    # Cells past a doc's end are dropped among the few cells above threshold
    # rather than masked over the whole band first.
    inside = widths < remaining[rows]
    rows, widths, label_ids = rows[inside], widths[inside], label_ids[inside]
    logits = scores[rows, widths, label_ids].astype("float64")
    probs = sigmoid(logits).astype("float32")
    # The cut may let through cells just below: the score users read decides.
    keep = probs >= (threshold[label_ids] if threshold.ndim else threshold)
    rows, widths, label_ids, logits, probs = rows[keep], widths[keep], label_ids[keep], logits[keep], probs[keep]
    doc_ids = doc_of_row[rows]
    n_found = numpy.bincount(doc_ids, minlength=n_docs)
    if max_candidates is not None and n_found.max(initial=0) > max_candidates:
        keep = top_per_doc(doc_ids, logits, n_found, max_candidates)
        rows, widths, label_ids, probs, doc_ids = rows[keep], widths[keep], label_ids[keep], probs[keep], doc_ids[keep]
    starts = position[rows]
    spans = split_by_doc(EntityArrays(doc_ids, starts, starts + widths + 1, label_ids), n_docs, probs)
    return spans, n_found


def top_per_doc(doc_ids: numpy.ndarray, scores: numpy.ndarray, counts: numpy.ndarray, k: int) -> numpy.ndarray:
    """Bool mask of the k highest-scoring entries of each doc (all of a doc
    with at most k); among equal scores, the earlier ones.

    doc_ids (numpy.ndarray): The doc of each entry, ascending.
    scores (numpy.ndarray): The score of each entry.
    counts (numpy.ndarray): Entries per doc (bincount of doc_ids).
    """
    order = numpy.lexsort((-scores, doc_ids))
    rank = numpy.arange(doc_ids.shape[0]) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    keep = numpy.zeros(doc_ids.shape[0], dtype=bool)
    keep[order[rank < k]] = True
    return keep


def logit_cuts(threshold: numpy.ndarray, dtype) -> numpy.ndarray:
    """The logit(s), in the scores' dtype, below which no cell can reach
    `threshold` (a probability, or one per label) as a float32 score.

    A cell's score is float32(0.5 * (1 + tanh(logit / 2))) in float64, so a
    score just below the threshold may round up to it: the cut is the logit
    of the float32 just below the threshold's, less the float64 formula's
    error (1e-15 absolute, from the cancellation in 1 + tanh at low scores),
    rounded down in the scores' dtype. 0 (and any threshold below 1e-15)
    gives the dtype's lowest: every cell; 1 gives the logit where the score
    rounds to 1.0 (about 16.6).
    """
    wide = numpy.asarray(threshold, dtype="float64")
    narrow = wide.astype("float32")
    narrow = numpy.where(narrow > wide, numpy.nextafter(narrow, numpy.float32(0)), narrow)
    below = numpy.nextafter(narrow, numpy.float32(0)).astype("float64") - 1e-15
    lowest = float(numpy.finfo(dtype).min)  # no score is lower: every cell
    with numpy.errstate(invalid="ignore"):
        logits = numpy.where(below > 0.0, logit(below), lowest)
    return below_in_dtype(numpy.maximum(logits, lowest), dtype)


def cells_above(scores: numpy.ndarray, threshold: numpy.ndarray):
    """(rows, widths, label_ids) of the cells of a (rows, width, labels) array
    at or above `threshold` (a scalar, or one per label), in C order: one pass over
    a flat view against the lowest threshold, several times faster than
    numpy.nonzero on the 3-D mask and than comparing with a per-label vector;
    the few cells found are then held to their own label's threshold.
    """
    n_width, n_labels = scores.shape[1], scores.shape[2]
    threshold = numpy.asarray(threshold)
    lowest = threshold.min()
    labels_first = scores.transpose(0, 2, 1)
    if labels_first.flags.c_contiguous and not scores.flags.c_contiguous:
        # The scorer's own layout, (rows, labels, widths) in memory: the pass
        # runs in that order, and the few cells found are put back in order.
        flat = numpy.flatnonzero(labels_first >= lowest)
        rows, rest = numpy.divmod(flat, n_labels * n_width)
        label_ids, widths = numpy.divmod(rest, n_width)
        order = numpy.argsort((rows * n_width + widths) * n_labels + label_ids, kind="stable")
        rows, widths, label_ids = rows[order], widths[order], label_ids[order]
    else:
        flat = numpy.flatnonzero(scores >= lowest)
        rows, rest = numpy.divmod(flat, n_width * n_labels)
        widths, label_ids = numpy.divmod(rest, n_labels)
    if threshold.ndim and (threshold > lowest).any():
        keep = scores[rows, widths, label_ids] >= threshold[label_ids]
        rows, widths, label_ids = rows[keep], widths[keep], label_ids[keep]
    return rows, widths, label_ids


def below_in_dtype(threshold: Union[float, numpy.ndarray], dtype) -> numpy.ndarray:
    """The threshold(s) in the scores' dtype, rounded down, so that comparing
    in that dtype (no upcast of the whole score array) misses no score at or
    above the float64 threshold: for t32 the largest float32 <= t, every
    float32 s >= t has s >= t32.
    """
    wide = numpy.asarray(threshold, dtype="float64")
    narrow = wide.astype(dtype)
    return numpy.where(narrow > wide, numpy.nextafter(narrow, numpy.finfo(dtype).min), narrow)
