"""The decoders' common types: the entities of a batch as parallel arrays,
and one set of typed, scored spans per doc."""
from typing import List, NamedTuple

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


class EntityArrays(NamedTuple):
    """The entities of a batch, as parallel int arrays (token offsets, end
    exclusive), ordered by doc.

    doc_ids (numpy.ndarray[int]): The doc of each entity, ascending.
    starts (numpy.ndarray[int]): First token of each entity.
    ends (numpy.ndarray[int]): One past the last token of each entity.
    label_ids (numpy.ndarray[int]): Index of each entity's label.
    """

    doc_ids: numpy.ndarray
    starts: numpy.ndarray
    ends: numpy.ndarray
    label_ids: numpy.ndarray

    @classmethod
    def of(cls, doc_ids, starts, ends, label_ids) -> "EntityArrays":
        """RETURNS (EntityArrays): The arguments as int64 arrays (views where they are)."""
        return cls(*(numpy.asarray(array, dtype="int64") for array in (doc_ids, starts, ends, label_ids)))

    def __len__(self) -> int:  # type: ignore[override]
        return int(numpy.size(self.doc_ids))


def split_by_doc(entities: EntityArrays, n_docs: int, scores) -> List[SpanArrays]:
    """Split a batch's entities and their scores into one SpanArrays per doc.

    entities (EntityArrays): The entities, sorted by doc id.
    n_docs (int): Number of docs in the batch (docs without spans get empty arrays).
    scores (numpy.ndarray[float]): The score of each entity.
    RETURNS (List[SpanArrays]): One entry per doc.
    """
    doc_ids, starts, ends, label_ids = entities
    bounds = numpy.searchsorted(doc_ids, numpy.arange(n_docs + 1), side="left").tolist()
    scores = numpy.asarray(scores).astype("float32")  # once for the batch, not once per doc
    return [
        SpanArrays(starts[lo:hi], ends[lo:hi], label_ids[lo:hi], scores[lo:hi])
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]
