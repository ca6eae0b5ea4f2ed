import numpy
import spacy
from spacy.tokens import Span

from spacy_globalner.decoding import SpanArrays
from spacy_globalner.pipeline.ents_filters import highest_score_filter, longest_first_filter
from spacy_globalner.pipeline.span_output import write_spans


def make_doc():
    return spacy.blank("en")("a b c d e f")


def test_highest_score_filter_prefers_confident_spans():
    doc = make_doc()
    spans = [Span(doc, 0, 3, "X"), Span(doc, 1, 2, "Y"), Span(doc, 3, 4, "X"), Span(doc, 2, 5, "Y")]
    kept = highest_score_filter(spans, [0.6, 0.9, 0.8, 0.7])
    # 0.9 wins, 0.8 fits beside it, 0.7 and 0.6 overlap what was taken.
    assert [(s.start, s.end, s.label_) for s in kept] == [(1, 2, "Y"), (3, 4, "X")]


def test_longest_first_filter_keeps_the_outer_layer():
    doc = make_doc()
    spans = [Span(doc, 0, 3, "X"), Span(doc, 1, 2, "Y"), Span(doc, 3, 4, "X"), Span(doc, 2, 5, "Y")]
    kept = longest_first_filter(spans, [0.6, 0.9, 0.8, 0.7])
    # Two spans of 3 tokens: the more confident (2, 5) wins, (0, 3) overlaps it.
    assert [(s.start, s.end) for s in kept] == [(1, 2), (2, 5)]


def test_write_spans_keeps_nested_spans_and_non_conflicting_existing_ents():
    doc = make_doc()
    doc.ents = [Span(doc, 5, 6, "OLD"), Span(doc, 2, 3, "CLASH")]
    found = SpanArrays(numpy.array([0, 1, 2]), numpy.array([3, 2, 4]), numpy.array([0, 1, 0]),
                       numpy.array([0.9, 0.95, 0.6], dtype="float32"))
    write_spans(doc, found, ["X", "Y"], "sc", longest_first_filter)
    group = doc.spans["sc"]
    assert [(s.start, s.end, s.label_) for s in group] == [(0, 3, "X"), (1, 2, "Y"), (2, 4, "X")]
    numpy.testing.assert_allclose(group.attrs["scores"], [0.9, 0.95, 0.6])
    assert [(e.start, e.end, e.label_) for e in doc.ents] == [(0, 3, "X"), (5, 6, "OLD")]


def test_write_spans_without_filter_leaves_ents_alone():
    """Spans that a filter would put in doc.ents (one overlaps the existing
    entity) go to doc.spans only."""
    doc = make_doc()
    doc.ents = [Span(doc, 5, 6, "OLD")]
    found = SpanArrays(numpy.array([0, 4]), numpy.array([2, 6]), numpy.array([0, 0]),
                       numpy.array([0.9, 0.8], dtype="float32"))
    write_spans(doc, found, ["X"], "custom", None)
    assert [(s.start, s.end, s.label_) for s in doc.spans["custom"]] == [(0, 2, "X"), (4, 6, "X")]
    assert [(e.start, e.end, e.label_) for e in doc.ents] == [(5, 6, "OLD")]


def test_write_spans_of_nothing_writes_an_empty_group():
    doc = make_doc()
    doc.ents = [Span(doc, 5, 6, "OLD")]
    write_spans(doc, SpanArrays.empty(), ["X"], "custom", None)
    assert len(doc.spans["custom"]) == 0 and [e.label_ for e in doc.ents] == ["OLD"]
