"""What lcrf_ner and cse_ner share: one implementation for both heads, and
the behaviour both must show (labels, edge cases, the flat output in doc.ents
and doc.spans, serialization, scoring)."""
import warnings

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
from tests.helpers.components import overfit_pipeline
from tests.helpers.lcrf_ner import N_UPDATES, TRAIN_DATA, make_examples, overfit, predictions

FLAT_HEADS = ["cse_ner", "lcrf_ner"]


@pytest.fixture(scope="module", params=FLAT_HEADS)
def trained(request):
    """(factory, nlp, pipe, examples) of a head overfit on TRAIN_DATA."""
    return (request.param, *overfit_pipeline(request.param))


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_labels_from_data_and_explicit(factory):
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe(factory)
    nlp.initialize(lambda: make_examples(nlp))
    assert pipe.labels == ("LOC", "ORG", "PER")
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe(factory)
    pipe.initialize(lambda: make_examples(nlp), labels=["PER", "LOC", "ORG", "MISC"])
    assert pipe.labels == ("PER", "LOC", "ORG", "MISC")


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_explicit_labels_missing_one_from_the_data_raise(factory):
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe(factory)
    with pytest.raises(ValueError, match=r"\[E003\].*'ORG'"):
        pipe.initialize(lambda: make_examples(nlp), labels=["PER", "LOC"])


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_no_labels_raise(factory):
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe(factory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"\[E025\]"):
            pipe.initialize(lambda: make_examples(nlp, [("Nichts hier .", [])]))


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_use_before_initialize_raises(factory):
    nlp = spacy.blank("de")
    nlp.add_pipe(factory)
    with pytest.raises(ValueError, match=r"\[E002\]"):
        nlp("Paris")


def test_empty_whitespace_and_one_token_docs(trained):
    _, nlp, _, _ = trained
    docs = list(nlp.pipe(["", "   ", "Paris", "\n"]))
    assert [len(doc.ents) for doc in (docs[0], docs[1], docs[3])] == [0, 0, 0]
    assert len(docs[0].spans["sc"]) == 0 and len(docs[0].spans["sc"].attrs["scores"]) == 0
    assert [ent.text for ent in docs[2].ents] in ([], ["Paris"])


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_gold_from_flat_spans_key(factory):
    nlp, _, examples = overfit({"spans_key": "flat"}, n_iter=N_UPDATES[factory], factory=factory, key="flat")
    doc = nlp(TRAIN_DATA[1][0])
    assert [(s.start, s.end, s.label_) for s in doc.spans["flat"]] == [(1, 3, "ORG"), (5, 7, "LOC")]
    assert nlp.evaluate(examples)["spans_flat_f"] == 1.0


def test_spans_and_ents_are_the_same(trained):
    _, nlp, _, _ = trained
    doc = nlp(TRAIN_DATA[0][0])
    assert list(doc.spans["sc"]) == list(doc.ents)


def test_to_disk_from_disk_round_trip(trained, tmp_path):
    _, nlp, _, _ = trained
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert predictions(loaded) == predictions(nlp)


def test_to_bytes_from_bytes_round_trip(trained):
    factory, nlp, _, _ = trained
    loaded = spacy.blank("de")
    loaded.add_pipe(factory)
    loaded.from_bytes(nlp.to_bytes())
    assert loaded.get_pipe(factory).labels == nlp.get_pipe(factory).labels
    assert predictions(loaded) == predictions(nlp)


def test_evaluate_keys(trained):
    _, nlp, _, examples = trained
    scores = nlp.evaluate(examples)
    for key in ("ents_p", "ents_r", "ents_f", "ents_per_type", "spans_sc_p", "spans_sc_r", "spans_sc_f"):
        assert key in scores
    assert scores["ents_f"] == 1.0


def test_pipe_with_mixed_batch_lengths(trained):
    _, nlp, _, _ = trained
    texts = ["Paris", TRAIN_DATA[0][0], "", "Rom und Paris und New York und Berlin heute .", "Merkel"]
    batched = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts, batch_size=5)]
    alone = [[(e.start, e.end, e.label_) for e in nlp(text).ents] for text in texts]
    assert batched == alone


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


@pytest.mark.parametrize("factory", FLAT_HEADS)
def test_flat_heads_weigh_ents_f(factory):
    nlp = spacy.blank("en")
    nlp.add_pipe(factory)
    weights = nlp.config["training"]["score_weights"]
    assert weights["ents_f"] == 1.0
    assert all(weights[key] == 0.0 for key in ("ents_p", "ents_r", "spans_sc_f", "spans_sc_p", "spans_sc_r"))
