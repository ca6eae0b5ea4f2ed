"""Filters that choose a flat, non-overlapping view of scored, possibly nested spans.

A filter takes the candidate spans and their scores and returns the subset to
write to `doc.ents`. They are registered in `registry.misc` so a config can swap
them: `ents_filter = {"@misc": "spacy-globalner.longest_first_filter.v1"}`.
"""
from typing import Callable, Iterable, List, Sequence

from spacy.tokens import Span
from spacy.util import registry

EntsFilter = Callable[[Sequence[Span], Sequence[float]], List[Span]]


def _take_greedily(ordered: Iterable[Span]) -> List[Span]:
    taken: List[Span] = []
    used = set()
    for span in ordered:
        tokens = range(span.start, span.end)
        if not any(i in used for i in tokens):
            taken.append(span)
            used.update(tokens)
    return sorted(taken, key=lambda span: span.start)


def highest_score_filter(spans: Sequence[Span], scores: Sequence[float]) -> List[Span]:
    """Keep the most confident spans first; ties go to the longer, then earlier span."""
    order = sorted(
        range(len(spans)),
        key=lambda i: (-float(scores[i]), -len(spans[i]), spans[i].start),
    )
    return _take_greedily(spans[i] for i in order)


def longest_first_filter(spans: Sequence[Span], scores: Sequence[float]) -> List[Span]:
    """Keep the longest spans first (the outer layer of nested entities)."""
    order = sorted(
        range(len(spans)),
        key=lambda i: (-len(spans[i]), -float(scores[i]), spans[i].start),
    )
    return _take_greedily(spans[i] for i in order)


@registry.misc("spacy-globalner.highest_score_filter.v1")
def make_highest_score_filter() -> EntsFilter:
    return highest_score_filter


@registry.misc("spacy-globalner.longest_first_filter.v1")
def make_longest_first_filter() -> EntsFilter:
    return longest_first_filter
