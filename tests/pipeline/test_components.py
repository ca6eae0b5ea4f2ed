"""What every component does alike, one test over the four heads (their list
and fixtures in tests/helpers/components.py): the settings `add_pipe` gives,
and a head trained on two sentences predicting their gold."""
import inspect
import re

import pytest
import spacy
from spacy.language import Language
from spacy.util import registry

from spacy_globalner import CRENER, CSENER, LCRFNER, GlobalPointer
from tests.helpers.components import FACTORIES, HEADS, overfit_pipeline

# The pipe class and its cfg from `nlp.add_pipe(factory)` with no config.
DEFAULTS = {
    "global_pointer": (GlobalPointer, {
        "labels": [], "spans_key": "sc", "set_ents": True, "threshold": 0.3775, "max_candidates": 20000,
        "max_span_width": None, "head_lr_scale": 1.0, "prior_offset": True}),
    "crener": (CRENER, {
        "labels": [], "spans_key": "sc", "set_ents": True, "threshold": 0.5,
        "positive_weight": 5.0, "max_grid_length": 256, "unsegmented_window": 96, "max_candidates": 20000,
        "head_lr_scale": 1.0}),
    "lcrf_ner": (LCRFNER, {
        "labels": [], "spans_key": "sc", "set_ents": True, "constrained": False, "entity_fix": "paper",
        "head_lr_scale": 1.0}),
    "cse_ner": (CSENER, {
        "labels": [], "spans_key": "sc", "set_ents": True, "threshold": 0.5, "head_lr_scale": 1.0}),
}
# Every score of a span the overfit head predicts is above this (and at most 1).
# cse_ner's multiplies three probabilities: start marker, end marker, label.
MIN_SCORES = {"global_pointer": 0.5, "crener": 0.5, "lcrf_ner": 0.5, "cse_ner": 0.25}


@pytest.mark.parametrize("factory", FACTORIES)
def test_add_pipe_with_defaults(factory):
    pipe_class, cfg = DEFAULTS[factory]
    nlp = spacy.blank(HEADS[factory].lang)
    pipe = nlp.add_pipe(factory)
    assert isinstance(pipe, pipe_class)
    assert pipe.labels == ()
    assert pipe.cfg == cfg
    assert not pipe.is_initialized


def _overlap(spans) -> bool:
    spans = sorted(spans)
    return any(a[1] > b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("factory", FACTORIES)
def test_overfits_two_sentences(factory):
    """Every gold span and no other in doc.spans["sc"], each scored above the
    head's floor; doc.ents a non-empty, non-overlapping choice among them:
    the gold itself where the gold is flat."""
    nlp, _, examples = overfit_pipeline(factory)
    docs = list(nlp.pipe([example.predicted.copy() for example in examples]))
    for doc, (_, gold) in zip(docs, HEADS[factory].train_data):
        spans = sorted((span.start, span.end, span.label_) for span in doc.spans["sc"])
        assert spans == sorted(gold)
        scores = doc.spans["sc"].attrs["scores"]
        assert scores.shape == (len(gold),)
        assert ((scores > MIN_SCORES[factory]) & (scores <= 1.0)).all(), scores
        ents = [(ent.start, ent.end, ent.label_) for ent in doc.ents]
        assert ents and set(ents) <= set(spans) and not _overlap(ents)
        if not _overlap(gold):
            assert ents == sorted(gold)


@pytest.mark.parametrize("factory", FACTORIES)
def test_every_argument_of_the_factory_and_the_class_is_documented(factory):
    """As spaCy's spancat documents its factory and class: `name (Type): ...`
    for each argument."""
    make = registry.factories.get(factory)
    cls = DEFAULTS[factory][0]
    for function in (make, cls.__init__):
        names = [name for name in inspect.signature(function).parameters if name != "self"]
        doc = inspect.getdoc(function) or ""
        missing = [name for name in names if not re.search(rf"^{name} \(\S.*\): \S", doc, re.M)]
        assert not missing, f"{function.__qualname__} documents no {missing}"


@pytest.mark.parametrize("factory", FACTORIES)
def test_a_default_is_written_in_the_default_config_and_the_class(factory):
    """As spancat's: the factory's signature names the settings of its
    default_config without defaults of its own, and the class's __init__
    defaults to the same values."""
    default_config = Language.get_factory_meta(factory).default_config
    parameters = inspect.signature(registry.factories.get(factory)).parameters
    assert set(parameters) - {"nlp", "name"} == set(default_config)
    assert all(parameter.default is inspect.Parameter.empty for parameter in parameters.values())
    init = inspect.signature(DEFAULTS[factory][0].__init__).parameters
    for key, value in default_config.items():
        if key in init and not isinstance(value, dict):
            assert init[key].default == value, key
