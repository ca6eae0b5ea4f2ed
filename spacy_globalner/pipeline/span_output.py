"""Write decoded spans to a Doc: all of them to doc.spans, a flat view to doc.ents."""
from typing import Optional, Sequence

import numpy
from spacy.tokens import Doc, Span, SpanGroup

from ..decoding import SpanArrays
from .ents_filters import EntsFilter


def write_spans(
    doc: Doc,
    found: SpanArrays,
    labels: Sequence[str],
    spans_key: str,
    ents_filter: Optional[EntsFilter],
) -> None:
    """Store `found` in doc.spans[spans_key] with attrs["scores"], and, when an
    ents filter is given, a non-overlapping subset in doc.ents.

    Entities already in doc.ents (from an earlier component) are kept unless
    they overlap a new one, as spaCy's span_ruler does.
    """
    spans = [
        Span(doc, int(start), int(end), label=labels[int(label_id)])
        for start, end, label_id in zip(found.starts, found.ends, found.label_ids)
    ]
    scores = numpy.asarray(found.scores, dtype="float32")
    group = SpanGroup(doc, name=spans_key, spans=spans, attrs={"scores": scores})
    doc.spans[spans_key] = group
    if ents_filter is None:
        return
    new_ents = ents_filter(spans, scores)
    covered = numpy.zeros((len(doc),), dtype=bool)
    for ent in new_ents:
        covered[ent.start : ent.end] = True
    kept = [ent for ent in doc.ents if not covered[ent.start : ent.end].any()]
    doc.ents = sorted(kept + list(new_ents), key=lambda span: span.start)
