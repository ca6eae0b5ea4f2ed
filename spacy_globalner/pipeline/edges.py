"""Which tokens an entity may start or end on.

Like spaCy's own `ner`, which never starts or ends an entity on a whitespace
token, no component returns (or learns) an entity whose text starts or ends
with whitespace or an invisible format character (zero-width space and
joiner, byte order mark, right-to-left marks), or on a token that holds a
control character (NUL, BEL, the ESC of an ANSI escape ...). Such a token may
still sit inside an entity.

Gold spans are trimmed with masks computed once per doc from the text's code
points (only its distinct characters are classified one by one); decoded
spans are checked at their two edge tokens (each token text classified once
per process), or with the masks when there are more spans than tokens.
"""
import functools
import unicodedata
from typing import List, Tuple

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH
from spacy.tokens import Doc, Span

from ..decoding import SpanArrays


@functools.lru_cache(maxsize=65536)
def _char_class(char: str) -> int:
    """2: a control character (Cc); 1: whitespace or an invisible format
    character (Cf: zero-width, bidi marks, BOM); 0: anything else.
    """
    category = unicodedata.category(char)
    if category == "Cc" and not char.isspace():
        return 2
    return 1 if char.isspace() or category == "Cf" else 0


def edge_masks(doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Bool arrays (len(doc),): may an entity start / end on each token.

    A token with a control character anywhere ("\\x1b[31" of an ANSI escape,
    "IL-2\\x00") may neither start nor end one; a token whose first (last)
    character is whitespace or a format character may not start (end) one.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): can_start, can_end.
    """
    if not len(doc):
        empty = numpy.zeros((0,), dtype=bool)
        return empty, empty.copy()
    if doc.text.isprintable():
        # the usual case: no control or format characters, and the only
        # whitespace is " ", which spaCy keeps in whitespace tokens of its own
        can_edge = doc.to_array(IS_SPACE) == 0
        return can_edge, can_edge.copy()
    codes = numpy.frombuffer(doc.text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    unique, inverse = numpy.unique(codes, return_inverse=True)
    classes = numpy.fromiter(
        (_char_class(chr(code)) for code in unique), dtype="int8", count=len(unique)
    )[inverse.reshape(-1)]
    offsets = doc.to_array([IDX, LENGTH]).astype("int64", copy=False)
    first = offsets[:, 0]
    end = first + numpy.maximum(offsets[:, 1], 1)
    n_control = numpy.concatenate([[0], numpy.cumsum(classes == 2)])
    clean = (n_control[end] - n_control[first]) == 0
    return clean & (classes[first] == 0), clean & (classes[end - 1] == 0)


@functools.lru_cache(maxsize=65536)
def token_edges(text: str) -> Tuple[bool, bool]:
    """May a token with this text start / end an entity (the rule of
    `edge_masks`, for one token)? Cached: token texts repeat.
    """
    if not text:
        return False, False
    classes = [_char_class(char) for char in text]
    if 2 in classes:
        return False, False
    return classes[0] == 0, classes[-1] == 0


def filter_span_arrays(doc: Doc, found: SpanArrays) -> SpanArrays:
    """Drop the decoded spans that start or end on a token that may not.

    A doc usually has far fewer spans than tokens: then only the spans' edge
    tokens are looked at, each token text classified once per process. A
    model that calls more spans than the doc has tokens (early in training)
    gets the doc's masks instead, so the cost stays O(tokens).
    """
    if not len(found):
        return found
    if len(found) > len(doc):
        can_start, can_end = edge_masks(doc)
        keep = can_start[numpy.asarray(found.starts)] & can_end[numpy.asarray(found.ends) - 1]
        if keep.all():
            return found
    else:
        # lists, not arrays: a doc has a few spans, and numpy's per-call cost
        # would outweigh the work
        kept = [
            token_edges(doc[start].text)[0] and token_edges(doc[end - 1].text)[1]
            for start, end in zip(numpy.asarray(found.starts).tolist(), numpy.asarray(found.ends).tolist())
        ]
        if all(kept):
            return found
        keep = numpy.asarray(kept, dtype=bool)
    return SpanArrays(*(numpy.asarray(field)[keep] for field in found))


def trim_spans(doc: Doc, spans: List[Span]) -> List[Span]:
    """Gold spans with their leading and trailing invisible tokens cut off
    (a span of such tokens only is left out: no component can predict it).
    """
    if not spans:
        return spans
    can_start, can_end = edge_masks(doc)
    if can_start.all() and can_end.all():
        return spans
    n = len(doc)
    index = numpy.arange(n)
    # next_start[i]: first token >= i that may start an entity (n if none);
    # prev_end[i]: last token <= i that may end one (-1 if none).
    next_start = numpy.minimum.accumulate(numpy.where(can_start, index, n)[::-1])[::-1]
    prev_end = numpy.maximum.accumulate(numpy.where(can_end, index, -1))
    starts = numpy.fromiter((s.start for s in spans), dtype="int64", count=len(spans))
    ends = numpy.fromiter((s.end for s in spans), dtype="int64", count=len(spans))
    new_starts = next_start[starts]
    new_ends = prev_end[ends - 1] + 1
    trimmed = []
    for span, start, end in zip(spans, new_starts.tolist(), new_ends.tolist()):
        if start == span.start and end == span.end:
            trimmed.append(span)
        elif start < end:
            trimmed.append(Span(doc, start, end, label=span.label))
    return trimmed
