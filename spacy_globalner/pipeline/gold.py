"""Gold spans of an Example, mapped onto the predicted doc's tokens."""
import warnings
from typing import Iterable, List, Sequence, Tuple

from spacy.tokens import Span
from spacy.training import Example

from ..errors import Errors, Warnings
from .edges import trim_spans


class GoldSummary:
    """What a pass over the training data found: labels, widest span, misses."""

    def __init__(self) -> None:
        self.labels: set = set()
        self.widths: List[int] = []
        self.missed: List[Span] = []

    def add(self, aligned: Sequence[Span], missed: Sequence[Span]) -> None:
        self.labels.update(span.label_ for span in aligned)
        self.labels.update(span.label_ for span in missed)
        self.widths.extend(len(span) for span in aligned)
        self.missed.extend(missed)


def reference_spans(example: Example, spans_key: str) -> List[Span]:
    """Gold spans on the reference doc: doc.spans[spans_key], else doc.ents."""
    reference = example.reference
    if spans_key in reference.spans:
        return list(reference.spans[spans_key])
    return list(reference.ents)


def check_gold_layer(examples: Iterable[Example], spans_key: str, name: str, *, labels_given: bool) -> None:
    """Say where a component's gold comes from when it is not its own key.

    A doc without doc.spans[spans_key] gives its doc.ents (reference_spans):
    the flat layer, while the scorer reads doc.spans[spans_key], so a
    corpus with its gold under another key would train on the wrong layer
    and score 0 without a word. Warn once (W008) where any example falls
    back to doc.ents while the data holds gold under another doc.spans key:
    a corpus with doc.ents alone (a flat one) means the fallback. Raise E025
    where no example holds gold in either and no labels were given (nothing
    to learn labels from). With labels given, initializing without gold
    builds an untrained pipe, as spaCy's components allow (W003 says so).

    examples (Iterable[Example]): The training data.
    spans_key (str): The component's doc.spans key.
    name (str): The component's name.
    labels_given (bool): Whether the component has labels without the data.
    """
    n_examples = n_fallback = n_gold = 0
    other_keys = set()
    for example in examples:
        n_examples += 1
        reference = example.reference
        other_keys.update(key for key, group in reference.spans.items() if key != spans_key and len(group))
        if spans_key in reference.spans:
            n_gold += len(reference.spans[spans_key])
        elif len(reference.ents):
            n_fallback += 1
            n_gold += len(reference.ents)
    keys = ", ".join(repr(key) for key in sorted(other_keys)) or "none"
    if n_gold == 0 and not labels_given:
        raise ValueError(Errors.E025.format(name=name, key=spans_key, count=n_examples, keys=keys))
    if n_fallback and other_keys:
        warnings.warn(
            Warnings.W008.format(name=name, key=spans_key, count=n_fallback, total=n_examples, keys=keys)
        )


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
