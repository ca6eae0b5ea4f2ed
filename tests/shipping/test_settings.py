"""Every setting of each factory and architecture is checked when the component
is created, through nlp.add_pipe(config=...) as a user's config reaches it.

Ranges are checked by spacy_globalner.validation (catalogue errors); types,
and values that a config cannot hold (NaN, inf), by spaCy's config validation
("config" below) before the factory runs.
"""
import inspect
import re

import pytest
import spacy
from spacy.language import Language
from spacy.util import registry
from thinc.api import ConfigValidationError

from tests.helpers.trained_pipelines import SMALL_MODELS

GP, CRENER, LCRF, CSE = "global_pointer", "crener", "lcrf_ner", "cse_ner"
MODEL = "model"  # a setting of the component's architecture

# (component, setting (or "model" + setting), bad value, expected error code)
BAD_SETTINGS = [
    # global_pointer factory
    (GP, "spans_key", "", "E012"),
    (GP, "spans_key", " sc", "E012"),
    (GP, "threshold", float("nan"), "E961"),
    (GP, "threshold", float("inf"), "E961"),
    (GP, "threshold", -0.5, "E050"),  # a logit: thresholds are probabilities
    (GP, "threshold", 1.5, "E050"),
    (GP, "max_candidates", -1, "E052"),
    (GP, "max_span_width", 0, "E006"),
    (GP, "max_span_width", -2, "E006"),
    (GP, "set_ents", "yes", "config"),
    (GP, "prior_offset", "yes", "config"),
    (GP, "ents_filter", 3, "config"),
    (GP, "scorer", 3, "config"),
    # spacy-globalner.GlobalPointer.v1
    (GP, (MODEL, "head_width"), 0, "E010"),
    (GP, (MODEL, "head_width"), 15, "E010"),
    (GP, (MODEL, "rope"), "yes", "config"),
    (GP, (MODEL, "efficient"), 2, "config"),
    (GP, (MODEL, "dropout"), 1.5, "E012"),
    (GP, (MODEL, "dropout"), 1.0, "E012"),
    (GP, (MODEL, "dropout"), -0.1, "E012"),
    (GP, (MODEL, "mixed_precision"), "fp16", "config"),
    (GP, (MODEL, "tok2vec"), 3, "config"),
    # crener factory
    (CRENER, "spans_key", "", "E012"),
    (CRENER, "threshold", float("nan"), "E961"),
    (CRENER, "positive_weight", 0.0, "E206"),
    (CRENER, "positive_weight", -1.0, "E206"),
    (CRENER, "max_grid_length", 0, "E200"),
    (CRENER, "max_grid_length", 7, "E230"),
    (CRENER, "max_candidates", -1, "E052"),
    (CRENER, "unsegmented_window", 7, "E233"),
    (CRENER, "unsegmented_window", "short", "config"),
    (CRENER, "set_ents", 1.0, "config"),
    (CRENER, "ents_filter", "longest", "config"),
    (CRENER, "scorer", 3, "config"),
    # spacy-globalner.CRENER.v1
    (CRENER, (MODEL, "token_width"), 0, "E201"),
    (CRENER, (MODEL, "token_width"), 15, "E202"),
    (CRENER, (MODEL, "context_depth"), -1, "E201"),
    (CRENER, (MODEL, "grid_width"), 0, "E201"),
    (CRENER, (MODEL, "distance_width"), 0, "E201"),
    (CRENER, (MODEL, "region_width"), 0, "E201"),
    (CRENER, (MODEL, "conv_width"), 0, "E201"),
    (CRENER, (MODEL, "dilations"), [], "E204"),
    (CRENER, (MODEL, "dilations"), [1, 0], "E204"),
    (CRENER, (MODEL, "enhancement_rounds"), -1, "E201"),
    (CRENER, (MODEL, "attention_heads"), 0, "E201"),
    (CRENER, (MODEL, "attention_heads"), 3, "E203"),  # token_width 16
    (CRENER, (MODEL, "biaffine_width"), 0, "E201"),
    (CRENER, (MODEL, "predictor_width"), 0, "E201"),
    (CRENER, (MODEL, "learned_threshold"), "yes", "config"),
    (CRENER, (MODEL, "dropout"), 1.5, "E012"),
    (CRENER, (MODEL, "max_batch_cells"), 0, "E201"),
    (CRENER, (MODEL, "mixed_precision"), 2, "config"),
    (CRENER, (MODEL, "tok2vec"), "cnn", "config"),
    (CRENER, (MODEL, "transformer_depth"), -1, "E201"),
    (CRENER, (MODEL, "attention_embedding_width"), -1, "E201"),
    (CRENER, (MODEL, "parallel_dilations"), "yes", "config"),
    (CRENER, (MODEL, "cln_bias_from"), "column", "E220"),
    (CRENER, (MODEL, "enhancement"), "full", "E220"),
    (CRENER, (MODEL, "predictor_input"), "mlp", "E220"),
    # lcrf_ner factory
    (LCRF, "spans_key", "", "E012"),
    (LCRF, "constrained", "no", "config"),
    (LCRF, "entity_fix", 0.5, "config"),
    (LCRF, "scorer", 3, "config"),
    # spacy-globalner.LCRFNER.v1
    (LCRF, (MODEL, "dropout"), 1.5, "E012"),
    (LCRF, (MODEL, "dropout"), -0.5, "E012"),
    (LCRF, (MODEL, "mixed_precision"), "bf16", "config"),
    (LCRF, (MODEL, "tok2vec"), None, "config"),
    (LCRF, (MODEL, "transitions"), "hmm", "E122"),
    (LCRF, (MODEL, "transitions"), None, "config"),
    (LCRF, (MODEL, "tag_scheme"), "bilou", "E121"),
    (LCRF, "set_ents", "yes", "config"),
    (LCRF, "entity_fix", "strict", "E120"),
    # head_lr_scale, every factory
    (GP, "head_lr_scale", 0.0, "E040"),
    (CRENER, "head_lr_scale", -1.0, "E040"),
    (LCRF, "head_lr_scale", 0.0, "E040"),
    (CSE, "head_lr_scale", -2.0, "E040"),
    # cse_ner factory
    (CSE, "spans_key", "", "E012"),
    (CSE, "threshold", -0.1, "E130"),  # 0 and 1 are allowed: spacy find-threshold tries both
    (CSE, "threshold", 1.5, "E130"),
    (CSE, "set_ents", "no", "config"),
    (CSE, "scorer", 3, "config"),
    # spacy-globalner.CSENER.v1
    (CSE, (MODEL, "dropout"), 1.5, "E012"),
    (CSE, (MODEL, "mixed_precision"), "fp16", "config"),
    (CSE, (MODEL, "tok2vec"), 3, "config"),
]


def _row_id(row) -> str:
    name, setting, value, _ = row
    setting = ".".join(setting) if isinstance(setting, tuple) else setting
    return f"{name}-{setting}={value!r}"


# A factory setting refused by a catalogue error (not by spaCy's config validation).
CATALOGUE_ROWS = [row for row in BAD_SETTINGS if row[3] not in ("config", "E961") and isinstance(row[1], str)]


@pytest.mark.parametrize("name,setting,value,code", CATALOGUE_ROWS, ids=[_row_id(r) for r in CATALOGUE_ROWS])
def test_bad_setting_error_names_the_component(name, setting, value, code):
    """The component's name goes where the component is meant, never the setting's."""
    config = {"model": dict(SMALL_MODELS[name]), setting: value}
    with pytest.raises(ValueError, match=rf"\[{code}\]") as error:
        spacy.blank("en").add_pipe(name, name="my_ner", config=config)
    message = str(error.value)
    assert f"'{setting}'" not in message, message
    assert set(re.findall(r"of '([^']*)'", message)) <= {"my_ner"}, message


def test_threshold_error_gives_the_command_for_this_component():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"\[E050\] threshold of 'my_gp' .* got -1") as error:
        nlp.add_pipe("global_pointer", name="my_gp", config={"threshold": -1, "spans_key": "genes"})
    assert "spacy find-threshold MODEL DEV my_gp threshold spans_genes_f" in str(error.value)
    pipe = nlp.add_pipe("global_pointer", name="my_gp", config={"spans_key": "genes"})
    pipe.cfg["threshold"] = 2.0  # set in Python after creation: checked when it is used
    with pytest.raises(ValueError, match=r"\[E050\] threshold of 'my_gp' .* got 2.0"):
        pipe.label_thresholds()


def test_cse_ner_set_ents_error_names_the_component():
    """A Python caller skips spaCy's config validation."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("cse_ner", config={"model": dict(SMALL_MODELS[CSE])})
    with pytest.raises(ValueError, match=r"\[E012\] my_cse: set_ents must be true or false, got 'no'"):
        type(pipe)(nlp.vocab, pipe.model, "my_cse", set_ents="no")


@pytest.mark.parametrize("name,setting,value,code", BAD_SETTINGS, ids=[_row_id(r) for r in BAD_SETTINGS])
def test_bad_setting_is_refused(name, setting, value, code):
    # Small heads: a good setting elsewhere must not trip a cross-check (E203).
    config = {"model": dict(SMALL_MODELS[name])}
    if isinstance(setting, tuple):
        config["model"][setting[1]] = value
    else:
        config[setting] = value
    nlp = spacy.blank("en")
    if code == "config":
        with pytest.raises(ConfigValidationError, match=setting[-1] if isinstance(setting, tuple) else setting):
            nlp.add_pipe(name, config=config)
    else:
        with pytest.raises(ValueError, match=rf"\[{code}\]"):
            nlp.add_pipe(name, config=config)
    assert name not in nlp.pipe_names


@pytest.mark.parametrize("name", [GP, CRENER, LCRF, CSE])
def test_the_table_covers_every_setting(name):
    """A new setting of a factory or architecture needs a row above."""
    meta = Language.get_factory_meta(name)
    architecture = registry.architectures.get(meta.default_config["model"]["@architectures"])
    factory = registry.factories.get(name)
    settings = set(inspect.signature(factory).parameters) - {"nlp", "name", "model"}
    settings |= {(MODEL, key) for key in inspect.signature(architecture).parameters}
    covered = {setting for row_name, setting, _, _ in BAD_SETTINGS if row_name == name}
    assert settings - covered == set()


@pytest.mark.parametrize("name", [GP, CRENER, LCRF, CSE])
def test_defaults_and_edges_are_accepted(name):
    nlp = spacy.blank("en")
    nlp.add_pipe(name, config={"model": {**SMALL_MODELS[name], "dropout": 0.0}, "spans_key": "genia"})
    assert nlp.get_pipe(name).key == "genia"
