"""The pieces lcrf_ner and cse_ner share: one implementation for both heads."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_globalner import CSENER, LCRFNER
from spacy_globalner.pipeline import cse_ner, lcrf_ner
from spacy_globalner.pipeline.flat_ner import (
    EntityFixCounts,
    FlatSpanPipe,
    expected_scores_shape,
    outermost_spans,
    whitespace_tokens,
)


def test_both_flat_heads_share_one_implementation():
    assert issubclass(LCRFNER, FlatSpanPipe) and issubclass(CSENER, FlatSpanPipe)
    assert lcrf_ner.EntityFixCounts is cse_ner.EntityFixCounts is EntityFixCounts
    assert lcrf_ner.outermost_spans is outermost_spans  # the name users import from lcrf_ner
    assert "W100" in LCRFNER.overlapping_gold_warning and "W130" in CSENER.overlapping_gold_warning


def test_entity_fix_counts():
    counts = EntityFixCounts()
    assert counts.share == 0.0
    counts.add(4, 1)
    counts.add(4, 2)
    assert (counts.sequences, counts.repaired, counts.share) == (8, 3, 3 / 8)
    assert repr(counts) == "EntityFixCounts(repaired=3, sequences=8)"
    counts.reset()
    assert (counts.sequences, counts.repaired) == (0, 0)


def test_whitespace_tokens_are_marked_and_padding_is_not():
    vocab = spacy.blank("en").vocab
    docs = [
        Doc(vocab, words=["a", "\n", "b"], spaces=[True, False, False]),
        Doc(vocab, words=["  ", "c"], spaces=[False, False]),
    ]
    assert whitespace_tokens(docs, 4).tolist() == [[False, True, False, False], [True, False, False, False]]


def test_outermost_spans_keep_the_longest_then_the_earliest():
    doc = Doc(spacy.blank("en").vocab, words=list("abcdef"))
    spans = [doc[1:2], doc[0:3], doc[2:5], doc[4:6]]
    assert [(span.start, span.end) for span in outermost_spans(spans)] == [(0, 3), (4, 6)]


@pytest.mark.parametrize("lengths,expected", [([3, 5, 0], (3, 5, 7)), ([], (0, 0, 7))])
def test_expected_scores_shape(lengths, expected):
    assert expected_scores_shape(numpy.asarray(lengths, dtype="int64"), 7) == expected


@pytest.mark.parametrize("factory", ["lcrf_ner", "cse_ner"])
def test_flat_heads_weigh_ents_f(factory):
    nlp = spacy.blank("en")
    nlp.add_pipe(factory)
    weights = nlp.config["training"]["score_weights"]
    assert weights["ents_f"] == 1.0
    assert all(weights[key] == 0.0 for key in ("ents_p", "ents_r", "spans_sc_f", "spans_sc_p", "spans_sc_r"))
