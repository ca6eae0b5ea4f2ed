"""The cse_ner component: setup, settings, training, the loss (test_flat_ner.py
holds what it shares with lcrf_ner)."""

import numpy
import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_globalner import CSENER
from tests.helpers import head_module
from tests.helpers.components import overfit_pipeline
from tests.helpers.lcrf_ner import TRAIN_DATA, make_examples, predictions


@pytest.fixture(scope="module")
def trained():
    return overfit_pipeline("cse_ner")


@pytest.mark.parametrize("threshold", [1.5, -0.5, float("nan"), "half", True])
def test_bad_threshold_raises(threshold):
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=r"\[E130\] threshold"):
        CSENER(nlp.vocab, nlp.add_pipe("cse_ner").model, threshold=threshold)


def test_thresholds_0_and_1_mark_every_token_and_none(trained):
    """spacy find-threshold sweeps 0..1 with both ends: 0 makes every token a
    start and an end (one-token entities), 1 no token (no entities)."""
    nlp, pipe, examples = trained
    for value in (0.0, 1.0):
        assert CSENER(nlp.vocab, pipe.model, threshold=value).cfg["threshold"] == value
    text = examples[0].reference.text
    pipe.cfg["threshold"] = 0.0
    try:
        doc = nlp(text)
        assert [(ent.start, ent.end) for ent in doc.ents] == [(i, i + 1) for i in range(len(doc))]
        pipe.cfg["threshold"] = 1.0
        assert not nlp(text).ents
    finally:
        pipe.cfg["threshold"] = 0.5


def test_scores_of_the_wrong_shape_raise(trained):
    nlp, pipe, examples = trained
    scores = pipe.predict([eg.predicted for eg in examples])
    assert scores.shape[2] == 2 + len(pipe.labels) + 1
    with pytest.raises(ValueError, match=r"\[E131\]"):
        pipe.get_loss(examples, scores[:, :, :-1])
    with pytest.raises(ValueError, match=r"\[E131\]"):
        pipe.get_loss(examples[:1], scores)


def test_marker_fix_counts_the_decoded_docs(trained):
    """(tests/pipeline/test_components.py checks what the overfit head predicts.)"""
    nlp, _, _ = trained
    predictions(nlp)
    counts = nlp.get_pipe("cse_ner").marker_fix_counts
    assert counts.sequences >= 2 and 0.0 <= counts.share <= 1.0


def test_loss_is_the_three_losses_summed_per_doc():
    """The loss against a hand computation of the paper's three terms."""
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe("cse_ner")
    examples = make_examples(nlp)
    nlp.initialize(lambda: examples)
    scores = pipe.predict([eg.predicted for eg in examples])
    loss, d_scores = pipe.get_loss(examples, scores)
    logits = numpy.asarray(scores, dtype="float64")
    expected = 0.0
    for row, (_, spans) in enumerate(TRAIN_DATA):
        n = len(examples[row].predicted)
        starts, ends, classes = numpy.zeros(n), numpy.zeros(n), numpy.full(n, 3)
        for s, e, label in spans:
            starts[s], ends[e - 1] = 1, 1
            classes[s:e] = pipe.labels.index(label)
        for column, target in ((0, starts), (1, ends)):
            p = 1 / (1 + numpy.exp(-logits[row, :n, column]))
            expected -= (target * numpy.log(p) + (1 - target) * numpy.log(1 - p)).sum()
        z = logits[row, :n, 2:]
        log_softmax = z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))
        expected -= log_softmax[numpy.arange(n), classes].sum()
    assert loss == pytest.approx(expected / 2, rel=1e-4)
    assert d_scores.shape == scores.shape and d_scores.dtype == scores.dtype
    n_short = len(examples[1].predicted)
    assert not numpy.asarray(d_scores)[1, n_short:].any(), "no gradient on padding"


def test_overlapping_gold_warns_and_learns_the_outermost():
    nlp = spacy.blank("de")
    nlp.add_pipe("cse_ner", config={"spans_key": "nested"})
    reference = nlp.make_doc(TRAIN_DATA[1][0])
    reference.spans["nested"] = [Span(reference, 1, 3, "ORG"), Span(reference, 2, 3, "LOC")]
    examples = [Example(nlp.make_doc(TRAIN_DATA[1][0]), reference)]
    with pytest.warns(UserWarning, match=r"W130"):
        nlp.initialize(lambda: examples)


def test_head_lr_scale_reaches_the_head():
    def one_step(scale):
        fix_random_seed(0)
        nlp = spacy.blank("de")
        pipe = nlp.add_pipe("cse_ner", config={"head_lr_scale": scale})
        examples = make_examples(nlp)
        nlp.initialize(lambda: examples)
        weight = head_module(pipe.model).output.weight
        before = weight.detach().numpy().copy()
        nlp.update(examples, sgd=Adam(0.001), drop=0.0)
        return weight.detach().numpy() - before

    plain, scaled = one_step(1.0), one_step(5.0)
    moved = numpy.abs(plain) > 1e-7
    assert moved.any()
    numpy.testing.assert_allclose(scaled[moved], 5.0 * plain[moved], rtol=1e-2)
