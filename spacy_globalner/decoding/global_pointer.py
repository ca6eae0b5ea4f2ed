"""Decode GlobalPointer band scores into spans: every cell above threshold."""
from typing import List, Sequence, Union

import numpy

from .spans import SpanArrays, split_by_doc


def band_cell_coordinates(lengths: Sequence[int], width: int):
    """Map the rows of a packed batch to docs and in-doc positions.

    lengths (Sequence[int]): Tokens per doc; the batch packs them one after another.
    width (int): Number of span widths scored per start token.
    RETURNS (Tuple[ndarray, ndarray, ndarray]): doc id of each row, position of each
        row inside its doc, and the (rows, width) mask of cells whose span ends
        inside its doc.
    """
    lengths = numpy.asarray(lengths, dtype="int64")
    n_rows = int(lengths.sum())
    doc_of_row = numpy.repeat(numpy.arange(lengths.shape[0]), lengths)
    doc_starts = numpy.cumsum(lengths) - lengths
    position = numpy.arange(n_rows) - doc_starts[doc_of_row]
    remaining = lengths[doc_of_row] - position
    valid = numpy.arange(width)[None, :] < remaining[:, None]
    return doc_of_row, position, valid


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
    doc_of_row, position, valid = band_cell_coordinates(lengths, scores.shape[1])
    above = (scores > below_in_dtype(threshold, scores.dtype)) & valid[:, :, None]
    rows, widths, label_ids = numpy.nonzero(above)
    logits = scores[rows, widths, label_ids].astype("float64")
    probs = 0.5 * (1.0 + numpy.tanh(0.5 * logits))  # overflow-free sigmoid
    starts = position[rows]
    return split_by_doc(
        doc_of_row[rows], n_docs, starts, starts + widths + 1, label_ids, probs
    )


def below_in_dtype(threshold: Union[float, numpy.ndarray], dtype) -> numpy.ndarray:
    """The threshold(s) in the scores' dtype, rounded down, so that comparing
    in that dtype (no upcast of the whole score array) keeps exactly the
    scores above the float64 threshold: for a float32 score s and t32 the
    largest float32 <= t, s > t exactly when s > t32.
    """
    wide = numpy.asarray(threshold, dtype="float64")
    narrow = wide.astype(dtype)
    return numpy.where(narrow > wide, numpy.nextafter(narrow, numpy.finfo(dtype).min), narrow)
