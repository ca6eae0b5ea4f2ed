"""Write decoded spans to a Doc: all of them to doc.spans, a flat view to doc.ents."""
from typing import Optional, Sequence, Union

import numpy
from spacy.tokens import Doc, Span, SpanGroup

from ..decoding import SpanArrays
from .ents_filters import EntsFilter


def write_spans(
    doc: Doc,
    found: SpanArrays,
    labels: Sequence[Union[str, int]],
    spans_key: str,
    ents_filter: Optional[EntsFilter],
) -> None:
    """Store `found` in doc.spans[spans_key] with attrs["scores"], and, when an
    ents filter is given, a non-overlapping subset in doc.ents.

    Entities already in doc.ents (from an earlier component) are kept unless
    they overlap a new one, as spaCy's span_ruler does.

    labels (Sequence[Union[str, int]]): The label of each label id, as a name
        or as its StringStore hash (which spares a lookup per span).
    """
    label_ids = numpy.asarray(found.label_ids).tolist()
    spans = [
        Span(doc, start, end, label=labels[label_id])
        for start, end, label_id in zip(
            numpy.asarray(found.starts).tolist(), numpy.asarray(found.ends).tolist(), label_ids
        )
    ]
    scores = numpy.asarray(found.scores, dtype="float32")
    group = SpanGroup(doc, name=spans_key, spans=spans, attrs={"scores": scores})
    doc.spans[spans_key] = group
    if ents_filter is None:
        return
    new_ents = list(ents_filter(spans, scores))
    earlier = doc.ents
    if earlier:
        covered = numpy.zeros((len(doc),), dtype=bool)
        for ent in new_ents:
            covered[ent.start : ent.end] = True
        new_ents += [ent for ent in earlier if not covered[ent.start : ent.end].any()]
    # What the doc.ents setter does, without its copy of every span.
    doc.set_ents(sorted(new_ents, key=lambda span: span.start), default="outside")
