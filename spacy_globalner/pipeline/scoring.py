"""Scoring shared by every component: spans (nested, overlap allowed) and ents."""
from typing import Any, Callable, Dict, Iterable

from spacy.scorer import Scorer, get_ner_prf
from spacy.training import Example
from spacy.util import registry

# The factories' default_score_weights, keyed as score_spans_and_ents returns
# them for the default spans_key "sc". The nested heads (global_pointer,
# crener) are selected on their spans, the flat ones (lcrf_ner, cse_ner),
# which write doc.ents first, on their ents.
NESTED_NER_SCORE_WEIGHTS = {
    "spans_sc_f": 1.0,
    "spans_sc_p": 0.0,
    "spans_sc_r": 0.0,
    "ents_f": 0.0,
    "ents_p": 0.0,
    "ents_r": 0.0,
}
FLAT_NER_SCORE_WEIGHTS = {
    "ents_f": 1.0,
    "ents_p": 0.0,
    "ents_r": 0.0,
    "spans_sc_f": 0.0,
    "spans_sc_p": 0.0,
    "spans_sc_r": 0.0,
}


def score_spans_and_ents(
    examples: Iterable[Example],
    *,
    spans_key: str = "sc",
    set_ents: bool = True,
    **kwargs: Any,
) -> Dict[str, Any]:
    """P/R/F, overall and per label, of doc.spans[spans_key] and of doc.ents.

    Gold spans are read from doc.spans[spans_key] of the reference, or from
    doc.ents where the reference has no such key, as in training.
    RETURNS (Dict[str, Any]): spans_{key}_p/r/f/per_type and, if set_ents,
        ents_p/r/f/per_type.
    """
    examples = list(examples)

    def getter(doc, attr):
        return doc.spans[spans_key] if spans_key in doc.spans else doc.ents

    scores = Scorer.score_spans(
        examples,
        attr=f"spans_{spans_key}",
        getter=getter,
        has_annotation=lambda doc: spans_key in doc.spans or doc.has_annotation("ENT_IOB"),
        labeled=True,
        allow_overlap=True,
    )
    if set_ents:
        scores.update(get_ner_prf(examples))
    return scores


@registry.scorers("spacy-globalner.span_scorer.v1")
def make_span_scorer() -> Callable[..., Dict[str, Any]]:
    return score_spans_and_ents
