"""Decode GlobalPointer band scores into spans: every cell above threshold."""
from typing import List, Sequence, Union

import numpy

from .spans import SpanArrays, split_by_doc


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


def decode_band_scores(
    scores: numpy.ndarray, lengths: Sequence[int], threshold: Union[float, numpy.ndarray] = 0.0
) -> List[SpanArrays]:
    """Every cell (start, width, label) with a logit above `threshold` is a span.

    scores (numpy.ndarray): Logits of shape (n_tokens, width, n_labels); row r is
        the span starting at packed token r, column w ends w tokens later.
    lengths (Sequence[int]): Tokens per doc in the packed batch.
    threshold (Union[float, numpy.ndarray]): Logit a cell must exceed to become
        a span: one for all labels, or an (n_labels,) vector of one per label.
    RETURNS (List[SpanArrays]): The spans of each doc, ordered by (start, end),
        with sigmoid(logit) as score. Nested and overlapping spans are kept.
    """
    n_docs = len(lengths)
    if scores.size == 0:
        return [SpanArrays.empty() for _ in range(n_docs)]
    doc_of_row, position, remaining = band_rows(lengths)
    rows, widths, label_ids = cells_above(scores, below_in_dtype(threshold, scores.dtype))
    # Cells past a doc's end are dropped among the few cells above threshold
    # rather than masked over the whole band first.
    inside = widths < remaining[rows]
    rows, widths, label_ids = rows[inside], widths[inside], label_ids[inside]
    logits = scores[rows, widths, label_ids].astype("float64")
    probs = 0.5 * (1.0 + numpy.tanh(0.5 * logits))  # overflow-free sigmoid
    starts = position[rows]
    return split_by_doc(
        doc_of_row[rows], n_docs, starts, starts + widths + 1, label_ids, probs
    )


def cells_above(scores: numpy.ndarray, threshold: numpy.ndarray):
    """(rows, widths, label_ids) of the cells of a (rows, width, labels) array
    above `threshold` (a scalar, or one per label), in C order: one pass over
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
        flat = numpy.flatnonzero(labels_first > lowest)
        rows, rest = numpy.divmod(flat, n_labels * n_width)
        label_ids, widths = numpy.divmod(rest, n_width)
        order = numpy.argsort((rows * n_width + widths) * n_labels + label_ids, kind="stable")
        rows, widths, label_ids = rows[order], widths[order], label_ids[order]
    else:
        flat = numpy.flatnonzero(scores > lowest)
        rows, rest = numpy.divmod(flat, n_width * n_labels)
        widths, label_ids = numpy.divmod(rest, n_labels)
    if threshold.ndim and (threshold > lowest).any():
        keep = scores[rows, widths, label_ids] > threshold[label_ids]
        rows, widths, label_ids = rows[keep], widths[keep], label_ids[keep]
    return rows, widths, label_ids


def below_in_dtype(threshold: Union[float, numpy.ndarray], dtype) -> numpy.ndarray:
    """The threshold(s) in the scores' dtype, rounded down, so that comparing
    in that dtype (no upcast of the whole score array) keeps exactly the
    scores above the float64 threshold: for a float32 score s and t32 the
    largest float32 <= t, s > t exactly when s > t32.
    """
    wide = numpy.asarray(threshold, dtype="float64")
    narrow = wide.astype(dtype)
    return numpy.where(narrow > wide, numpy.nextafter(narrow, numpy.finfo(dtype).min), narrow)
