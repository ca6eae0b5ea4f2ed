"""Gold spans of an Example, mapped onto the predicted doc's tokens."""
from typing import List, Tuple

from spacy.tokens import Span
from spacy.training import Example

from .edges import trim_spans


def reference_spans(example: Example, spans_key: str) -> List[Span]:
    """Gold spans on the reference doc: doc.spans[spans_key], else doc.ents."""
    reference = example.reference
    if spans_key in reference.spans:
        return list(reference.spans[spans_key])
    return list(reference.ents)


def aligned_gold_spans(example: Example, spans_key: str) -> Tuple[List[Span], List[Span]]:
    """Gold spans in the predicted tokenization, and those that cannot be mapped.

    `spacy.Corpus` re-tokenizes raw text, so gold token offsets are not the
    predicted ones ("NF-kappa B" may be two gold tokens and four predicted):
    spans are aligned through the character offsets.
    RETURNS (Tuple[List[Span], List[Span]]): Aligned spans on example.predicted
        (same span with two labels kept), and the reference spans that did not align.
        Aligned spans are trimmed of leading and trailing whitespace and control
        tokens, on which no component starts or ends an entity.
    """
    gold = reference_spans(example, spans_key)
    if not gold:
        return [], []
    strings = example.predicted.vocab.strings
    for label in {span.label_ for span in gold}:
        strings.add(label)  # the reference may come with a vocab of its own
    aligned = example.get_aligned_spans_y2x(gold, allow_overlap=True)
    found = {(span.start_char, span.end_char, span.label) for span in aligned}
    missed = [s for s in gold if (s.start_char, s.end_char, s.label) not in found]
    return trim_spans(example.predicted, list(aligned)), missed
