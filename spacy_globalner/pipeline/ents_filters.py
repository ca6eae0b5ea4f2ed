"""Filters that choose a flat, non-overlapping view of scored, possibly nested spans.

A filter takes the candidate spans and their scores and returns the subset to
write to `doc.ents`. They are registered in `registry.misc` so a config can swap
them: `ents_filter = {"@misc": "spacy-globalner.longest_first_filter.v1"}`.
"""
from typing import Callable, Iterable, List, Sequence, Tuple

import numpy
from spacy.tokens import Span
from spacy.util import registry

EntsFilter = Callable[[Sequence[Span], Sequence[float]], List[Span]]


def _take_greedily(spans: Sequence[Span], bounds: List[Tuple[int, int]], order: Iterable[int]) -> List[Span]:
    """The spans in `order`, each unless it overlaps one taken before it.

    bounds (List[Tuple[int, int]]): (start, end) of each span.
    """
    used = bytearray(max(end for _, end in bounds))
    taken = []
    for i in order:
        start, end = bounds[i]
        if not any(used[start:end]):
            taken.append(i)
            used[start:end] = b"\x01" * (end - start)
    return [spans[i] for i in sorted(taken, key=lambda i: bounds[i][0])]


def _bounds_and_values(spans: Sequence[Span], scores: Sequence[float]) -> Tuple[List[Tuple[int, int]], List[float]]:
    """Plain Python numbers to sort by: a doc has a few spans, and reading
    them from the Spans and arrays in every comparison would cost more."""
    values = scores.tolist() if isinstance(scores, numpy.ndarray) else [float(score) for score in scores]
    return [(span.start, span.end) for span in spans], values


def highest_score_filter(spans: Sequence[Span], scores: Sequence[float]) -> List[Span]:
    """Keep the most confident spans first; ties go to the longer, then earlier span."""
    if len(spans) < 2:  # the usual case: nothing to choose between
        return list(spans)
    bounds, values = _bounds_and_values(spans, scores)
    order = sorted(range(len(spans)), key=lambda i: (-values[i], bounds[i][0] - bounds[i][1], bounds[i][0]))
    return _take_greedily(spans, bounds, order)


def longest_first_filter(spans: Sequence[Span], scores: Sequence[float]) -> List[Span]:
    """Keep the longest spans first (the outer layer of nested entities)."""
    if len(spans) < 2:  # the usual case: nothing to choose between
        return list(spans)
    bounds, values = _bounds_and_values(spans, scores)
    order = sorted(range(len(spans)), key=lambda i: (bounds[i][0] - bounds[i][1], -values[i], bounds[i][0]))
    return _take_greedily(spans, bounds, order)


@registry.misc("spacy-globalner.highest_score_filter.v1")
def make_highest_score_filter() -> EntsFilter:
    return highest_score_filter


@registry.misc("spacy-globalner.longest_first_filter.v1")
def make_longest_first_filter() -> EntsFilter:
    return longest_first_filter
