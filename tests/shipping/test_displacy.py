"""displaCy's span style shows nested predictions: a token inside two spans gets
two span lines, one per label (docs/images/displacy_spans.png is made by
docs/render_displacy.py)."""
from html.parser import HTMLParser
from typing import Dict, List, Tuple

import numpy
import pytest
import spacy
from spacy import displacy

from spacy_globalner.decoding import SpanArrays
from spacy_globalner.pipeline.ents_filters import highest_score_filter
from spacy_globalner.pipeline.span_output import write_spans
from tests.helpers.trained_pipelines import component_params, trained_dir


class _TokenBlocks(HTMLParser):
    """Collects, per token block of the span style, the span lines and labels."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: List[str] = []
        self.tokens: List[Dict] = []

    def handle_starttag(self, tag, attrs):
        style = dict(attrs).get("style", "")
        depth = len(self.stack)
        if tag == "span" and "font-weight: bold" in style and "inline-block" in style:
            self.tokens.append({"text": "", "lines": set(), "labels": [], "depth": depth})
            kind = "token"
        elif tag == "span" and "height: 4px" in style and self.tokens:
            self.tokens[-1]["lines"].add(style.split("top:")[1].split(";")[0].strip())
            kind = "line"
        elif tag == "span" and "z-index: 10" in style:
            kind = "label"
        else:
            kind = tag
        self.stack.append(kind)

    def handle_endtag(self, tag):
        self.stack.pop()

    def handle_data(self, data):
        if not data.strip() or not self.stack:
            return
        if self.stack[-1] == "token":
            self.tokens[-1]["text"] += data.strip()
        elif self.stack[-1] == "label":
            self.tokens[-1]["labels"].append(data.strip())


def rendered_blocks(html: str) -> List[Tuple[str, int, List[str]]]:
    """(token text, number of span lines under it, labels starting on it) for
    each token inside at least one span, in order."""
    parser = _TokenBlocks()
    parser.feed(html)
    return [(t["text"], len(t["lines"]), t["labels"]) for t in parser.tokens]


def rendered_tokens(html: str) -> Dict[str, Tuple[int, List[str]]]:
    return {text: (lines, labels) for text, lines, labels in rendered_blocks(html)}


def test_nested_spans_written_by_the_components_render():
    nlp = spacy.blank("en")
    doc = nlp("These data indicate that IL-4 suppresses human activated monocytes .")
    labels = ["cell_type", "protein"]
    # what every component writes: doc.spans[key] with attrs["scores"], ents flat
    found = SpanArrays(
        starts=numpy.array([4, 6, 8]), ends=numpy.array([5, 9, 9]),
        label_ids=numpy.array([1, 0, 0]), scores=numpy.array([3.0, 2.0, 1.0]),
    )
    write_spans(doc, found, labels, "sc", highest_score_filter)
    html = displacy.render(doc, style="span", options={"spans_key": "sc"})
    tokens = rendered_tokens(html)
    assert tokens["IL-4"] == (1, ["protein"])
    assert tokens["human"] == (1, ["cell_type"])
    assert tokens["activated"] == (1, [])
    # "monocytes" is inside both cell_type spans: two lines, the inner one's label
    assert tokens["monocytes"] == (2, ["cell_type"])
    assert "suppresses" not in tokens


@pytest.mark.parametrize("name", component_params())
def test_predicted_spans_render(name):
    nlp = spacy.load(trained_dir(name))
    key = nlp.get_pipe(name).key
    doc = nlp("Our data suggest that lipoxygenase metabolites activate ROI formation which "
              "then induce IL-2 expression via NF-kappa B activation .")
    # Without predictions every comparison below would hold on empty lists.
    assert len(doc.spans[key]) > 0, f"{name} predicted no span: nothing to render"
    html = displacy.render(doc, style="span", options={"spans_key": key})
    blocks = rendered_blocks(html)
    assert blocks
    depth = numpy.zeros(len(doc), dtype=int)
    for span in doc.spans[key]:
        depth[span.start:span.end] += 1
    covered = [token for token in doc if depth[token.i]]
    assert [text for text, _, _ in blocks] == [token.text for token in covered]
    assert [lines for _, lines, _ in blocks] == [depth[token.i] for token in covered]
    starts = sorted(span.label_ for span in doc.spans[key])
    assert sorted(label for _, _, labels in blocks for label in labels) == starts
