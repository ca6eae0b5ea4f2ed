"""What the flat heads (lcrf_ner, cse_ner) share: they learn one
non-overlapping layer of the gold spans (the outermost), never put an entity
on whitespace, and count the decoded docs whose raw output had to be repaired.
"""
import warnings
from typing import Callable, Iterable, List, Sequence, Tuple

import numpy
from spacy.attrs import IS_SPACE
from spacy.tokens import Doc, Span
from spacy.training import Example

from .ents_filters import longest_first_filter
from .gold import GoldSummary, aligned_gold_spans
from .span_pipe import SpanPipe


class EntityFixCounts:
    """How many raw outputs (non-empty docs) had to be repaired: a forbidden
    transition that Entity-Fix repairs (or would repair, when it is switched
    off) for lcrf_ner, markers that did not pair up for cse_ner.
    """

    def __init__(self) -> None:
        self.sequences = 0
        self.repaired = 0

    @property
    def share(self) -> float:
        """RETURNS (float): repaired / sequences, 0.0 before any decoding."""
        return self.repaired / self.sequences if self.sequences else 0.0

    def add(self, sequences: int, repaired: int) -> None:
        self.sequences += sequences
        self.repaired += repaired

    def reset(self) -> None:
        self.sequences = 0
        self.repaired = 0

    def __repr__(self) -> str:
        return f"EntityFixCounts(repaired={self.repaired}, sequences={self.sequences})"


class FlatSpanPipe(SpanPipe):
    """A SpanPipe that learns the outermost layer of the gold spans; at
    initialize it warns once (with `overlapping_gold_warning`, formatted with
    count, total and name) about the gold spans that layer drops.
    """

    overlapping_gold_warning: str = ""

    def _initialize_settings(
        self, summary: GoldSummary, get_examples: Callable[[], Iterable[Example]]
    ) -> None:
        """Warn once about gold spans that overlap: only the outermost are learned."""
        self._warn_overlapping_gold(get_examples)

    def _warn_overlapping_gold(self, get_examples: Callable[[], Iterable[Example]]) -> None:
        total = dropped = 0
        for example in get_examples():
            aligned, _ = aligned_gold_spans(example, self.key)
            total += len(aligned)
            dropped += len(aligned) - len(outermost_spans(aligned))
        if dropped:
            warnings.warn(self.overlapping_gold_warning.format(count=dropped, total=total, name=self.name))

    def _outermost_gold_spans(self, example: Example) -> List[Span]:
        """The gold spans of `example` that the head learns."""
        return outermost_spans(self._gold_spans(example))


def expected_scores_shape(lengths: numpy.ndarray, width: int) -> Tuple[int, int, int]:
    """The shape of a batch's padded per-token scores: (n_docs, max_length, width)."""
    return (len(lengths), int(numpy.max(lengths, initial=0)), width)


def whitespace_tokens(docs: Sequence[Doc], max_length: int) -> numpy.ndarray:
    """Bool (n_docs, max_length): True at whitespace tokens, which are never
    part of an entity (as in spaCy's ner).
    """
    outside = numpy.zeros((len(docs), max_length), dtype=bool)
    for row, doc in enumerate(docs):
        outside[row, : len(doc)] = doc.to_array([IS_SPACE]).reshape(-1).astype(bool)
    return outside


def outermost_spans(spans: Sequence[Span]) -> List[Span]:
    """The non-overlapping layer a flat head can tag: longest spans first (so
    nested spans give way to the span around them), then the earliest.
    """
    return longest_first_filter(spans, [0.0] * len(spans))
