"""The decoders' common output: one set of typed, scored spans per doc."""
from typing import NamedTuple

import numpy


class SpanArrays(NamedTuple):
    """Spans found in one doc, as parallel arrays (token offsets, end exclusive).

    starts (numpy.ndarray[int]): First token of each span.
    ends (numpy.ndarray[int]): One past the last token of each span.
    label_ids (numpy.ndarray[int]): Index of each span's label.
    scores (numpy.ndarray[float]): Confidence of each span, in [0, 1].
    """

    starts: numpy.ndarray
    ends: numpy.ndarray
    label_ids: numpy.ndarray
    scores: numpy.ndarray

    @classmethod
    def empty(cls) -> "SpanArrays":
        ints = numpy.zeros((0,), dtype="int64")
        return cls(ints, ints.copy(), ints.copy(), numpy.zeros((0,), dtype="float32"))

    def __len__(self) -> int:  # type: ignore[override]
        return int(self.starts.shape[0])


def split_by_doc(doc_ids, n_docs: int, starts, ends, label_ids, scores):
    """Split flat span arrays, sorted by doc id, into one SpanArrays per doc.

    doc_ids (numpy.ndarray[int]): The doc of each span, ascending.
    n_docs (int): Number of docs in the batch (docs without spans get empty arrays).
    RETURNS (List[SpanArrays]): One entry per doc.
    """
    bounds = numpy.searchsorted(doc_ids, numpy.arange(n_docs + 1), side="left").tolist()
    scores = numpy.asarray(scores).astype("float32")  # once for the batch, not once per doc
    return [
        SpanArrays(starts[lo:hi], ends[lo:hi], label_ids[lo:hi], scores[lo:hi])
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]
