"""The lcrf_ner component: setup, settings, training, Entity-Fix counts
(test_flat_ner.py holds what it shares with cse_ner)."""

import numpy
import pytest
import spacy
from thinc.api import fix_random_seed

from spacy_globalner import LCRFNER
from tests.helpers import head_module
from tests.helpers.components import overfit_pipeline
from tests.helpers.lcrf_ner import TRAIN_DATA, make_examples, overfit, predictions


@pytest.fixture(scope="module")
def trained():
    return overfit_pipeline("lcrf_ner")


def test_non_bool_options_raise():
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=r"\[E100\] constrained"):
        LCRFNER(nlp.vocab, nlp.add_pipe("lcrf_ner").model, constrained="yes")


@pytest.mark.parametrize("value", ["yes", "strict", 1])
def test_unknown_entity_fix_raises(value):
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=r"\[E120\] entity_fix"):
        LCRFNER(nlp.vocab, nlp.add_pipe("lcrf_ner").model, entity_fix=value)


@pytest.mark.parametrize("value,rule", [(True, "paper"), (False, "none"), ("lenient", "lenient")])
def test_entity_fix_reads_booleans_as_rules(value, rule):
    nlp = spacy.blank("de")
    assert nlp.add_pipe("lcrf_ner", config={"entity_fix": value}).cfg["entity_fix"] == rule


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), "big", True])
def test_bad_head_lr_scale_raises(value):
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=r"\[E040\] head_lr_scale"):
        LCRFNER(nlp.vocab, nlp.add_pipe("lcrf_ner").model, head_lr_scale=value)


def test_scores_of_the_wrong_shape_raise(trained):
    nlp, pipe, examples = trained
    emissions, transitions = pipe.predict([eg.predicted for eg in examples])
    with pytest.raises(ValueError, match=r"\[E101\]"):
        pipe.get_loss(examples, (emissions[:, :, :-1], transitions))
    with pytest.raises(ValueError, match=r"\[E101\]"):
        pipe.get_loss(examples[:1], (emissions, transitions))


def test_entity_fix_counts_the_decoded_docs(trained):
    """(tests/pipeline/test_components.py checks what the overfit head predicts.)"""
    nlp, pipe, _ = trained
    predictions(nlp)
    assert pipe.entity_fix_counts.sequences >= 2
    assert 0.0 <= pipe.entity_fix_counts.share <= 1.0


def test_overlapping_gold_warns_once_and_learns_the_outer_layer():
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe("lcrf_ner")
    nested = [(TRAIN_DATA[1][0], [(1, 3, "ORG"), (2, 3, "ORG"), (5, 7, "LOC"), (5, 6, "LOC")])]
    examples = make_examples(nlp, nested, key="sc")
    with pytest.warns(UserWarning, match=r"\[W100\] 2 gold span\(s\) of 4") as record:
        pipe.initialize(lambda: examples)
    assert sum("W100" in str(w.message) for w in record) == 1
    tags = pipe._gold_tags(examples, numpy.asarray([8]), 8)
    b_org, b_loc, i_org, i_loc, o = (pipe.labels.index("ORG"), pipe.labels.index("LOC"),
                                      2 + pipe.labels.index("ORG"), 2 + pipe.labels.index("LOC"), 4)
    assert tags[0].tolist() == [o, b_org, i_org, o, o, b_loc, i_loc, o]


def test_constrained_decoding_never_needs_repairs():
    nlp, pipe, _ = overfit({"constrained": True}, n_iter=5)
    list(nlp.pipe(["Paris", "Die Vereinten Nationen tagen in Rom ."] * 5))
    assert pipe.entity_fix_counts.sequences == 10 and pipe.entity_fix_counts.repaired == 0
    pipe.entity_fix_counts.reset()
    assert pipe.entity_fix_counts.share == 0.0


@pytest.mark.parametrize("transitions,learned", [("penalised", True), ("crf", False)])
def test_penalties_move_only_when_learned(transitions, learned):
    _, pipe, _ = overfit({"model": {"transitions": transitions}}, n_iter=5)
    module = head_module(pipe.model)
    moved = module.transitions.w_factor.item() != 1.0 or module.transitions.w_absolute.item() != 0.0
    assert moved == learned


def test_tok2vec_listener_config():
    fix_random_seed(0)
    nlp = spacy.blank("de")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("lcrf_ner", config={"model": {"tok2vec": {
        "@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "*"}}})
    examples = make_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer, drop=0.0)
    assert nlp.evaluate(examples)["ents_f"] == 1.0
