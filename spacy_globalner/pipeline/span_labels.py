"""Labels and gold spans of a span component: adding labels, inferring them
from the training data, and the aligned gold spans each update learns from."""
import warnings
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Span
from spacy.training import Example

from ..errors import Errors, Warnings
from .gold import aligned_gold_spans

# With at least this many gold spans, losing most of them to misalignment means
# the tokenizer does not match the corpus: an error, not a warning.
MIN_SPANS_FOR_MISMATCH = 10


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


class LabelsAndGold:
    """The labels in cfg["labels"] and the gold spans under cfg["spans_key"].
    Mixed into SpanPipe, which sets self.cfg, self.vocab and self.name."""

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    @property
    def key(self) -> str:
        return self.cfg["spans_key"]

    def add_label(self, label: str) -> int:
        if not isinstance(label, str) or not label:
            raise ValueError(Errors.E005.format(label=label))
        if label in self.labels:
            return 0
        if self.is_initialized:
            raise ValueError(
                Errors.E004.format(label=label, name=self.name, labels=list(self.labels))
            )
        self.cfg["labels"] = list(self.labels) + [label]
        self.vocab.strings.add(label)
        return 1

    def _require_labels(self) -> None:
        if not self.labels:
            raise ValueError(Errors.E001.format(name=self.name, key=self.key))

    def _gold_spans(self, example: Example) -> List[Span]:
        """Aligned gold spans of one example; unknown labels raise E003."""
        aligned, missed = aligned_gold_spans(example, self.key)
        if missed:
            self.n_unaligned_gold += len(missed)
            if not self._unaligned_reported:
                self._unaligned_reported = True
                warnings.warn(
                    Warnings.W004.format(count=len(missed), name=self.name, example=missed[0].text)
                )
        labels = set(self.labels)
        for span in aligned:
            if span.label_ not in labels:
                raise ValueError(
                    Errors.E003.format(label=span.label_, name=self.name, labels=list(self.labels))
                )
        return aligned

    def _summarise_gold(self, get_examples: Callable[[], Iterable[Example]]) -> GoldSummary:
        summary = GoldSummary()
        self._unaligned_reported = True  # reported here for the whole corpus
        for example in get_examples():
            summary.add(*aligned_gold_spans(example, self.key))
        total = len(summary.widths) + len(summary.missed)
        if total >= MIN_SPANS_FOR_MISMATCH and len(summary.missed) > total / 2:
            raise ValueError(
                Errors.E011.format(
                    count=len(summary.missed), total=total, name=self.name,
                    example=summary.missed[0].text,
                )
            )
        if summary.missed:
            warnings.warn(
                Warnings.W002.format(
                    count=len(summary.missed), name=self.name, example=summary.missed[0].text
                )
            )
        if not summary.widths and not summary.missed:
            warnings.warn(Warnings.W003.format(name=self.name, key=self.key))
        return summary

    def _initialize_labels(self, summary: GoldSummary, labels: Optional[Iterable[str]]) -> None:
        if labels is not None:
            for label in labels:
                self.add_label(label)
            unknown = sorted(summary.labels - set(self.labels))
            if unknown:
                raise ValueError(
                    Errors.E003.format(label=unknown[0], name=self.name, labels=list(self.labels))
                )
        else:
            for label in sorted(summary.labels):
                self.add_label(label)
        self._require_labels()
