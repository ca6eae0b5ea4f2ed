"""The arms of the LCRF_NER paper as settings of lcrf_ner: the softmax
baseline (transitions = "none"), the plain CRF, BIOES tags, and the head's
own learning-rate scale."""
import numpy
import pytest
import spacy
from thinc.api import Adam, fix_random_seed

from spacy_globalner.ml.torch.lcrf_ner.scorer import ZeroTransitions
from tests.helpers import head_module
from tests.helpers.lcrf_ner import TRAIN_DATA, make_examples, overfit, predictions


def torch_module(pipe):
    return head_module(pipe.model)


@pytest.mark.parametrize(
    "model",
    [
        {"transitions": "none"},
        {"transitions": "none", "tag_scheme": "bioes"},
        {"transitions": "crf", "tag_scheme": "bioes"},
        {"tag_scheme": "bioes"},
    ],
)
def test_variants_overfit_and_round_trip(model, tmp_path):
    nlp, pipe, examples = overfit({"model": model}, n_iter=40)
    assert nlp.evaluate(examples)["ents_f"] == 1.0
    n_labels = len(pipe.labels)
    emissions, transitions = pipe.predict([eg.predicted for eg in examples])
    n_tags = 4 * n_labels + 1 if model.get("tag_scheme") == "bioes" else 2 * n_labels + 1
    assert emissions.shape[2] == n_tags and transitions.shape == (n_tags + 2, n_tags + 2)
    assert (not numpy.asarray(transitions).any()) == (model.get("transitions") == "none")
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert predictions(loaded) == predictions(nlp)
    assert loaded.get_pipe("lcrf_ner").tag_scheme == model.get("tag_scheme", "iob")


def test_softmax_baseline_has_no_transition_parameters():
    _, pipe, _ = overfit({"model": {"transitions": "none"}}, n_iter=1)
    module = torch_module(pipe)
    assert isinstance(module.transitions, ZeroTransitions)
    assert not list(module.transitions.parameters())


@pytest.mark.parametrize(
    "model,expected",
    [({}, "penalised"), ({"transitions": "crf"}, "crf"), ({"transitions": "none"}, "none")],
)
def test_transitions_setting_reaches_the_head(model, expected):
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe("lcrf_ner", config={"model": model})
    assert pipe.model.get_ref("head").attrs["transitions"] == expected


@pytest.mark.parametrize(
    "model,match",
    [({"transitions": "softmax"}, "E122"), ({"tag_scheme": "biluo"}, "E121")],
)
def test_bad_model_settings_raise(model, match):
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=match):
        nlp.add_pipe("lcrf_ner", config={"model": model})


@pytest.mark.parametrize("entity_fix", ["paper", "lenient", "none"])
def test_entity_fix_options_train_and_count_repairs(entity_fix):
    nlp, pipe, examples = overfit({"entity_fix": entity_fix, "model": {"transitions": "none"}}, n_iter=3)
    list(nlp.pipe([text for text, _ in TRAIN_DATA]))
    assert pipe.entity_fix_counts.sequences == 2


def one_step(head_lr_scale):
    """Parameters before and after one update, keyed by (owner, name)."""
    fix_random_seed(0)
    nlp = spacy.blank("de")
    pipe = nlp.add_pipe("lcrf_ner", config={"head_lr_scale": head_lr_scale})
    examples = make_examples(nlp)
    nlp.initialize(lambda: examples)
    module = torch_module(pipe)
    tok2vec = pipe.model.get_ref("tok2vec")

    def snapshot():
        head = {("head", n): p.detach().numpy().copy() for n, p in module.named_parameters() if p.requires_grad}
        body = {("tok2vec", i, n): numpy.array(node.get_param(n)) for i, node in enumerate(tok2vec.walk())
                for n in node.param_names if node.has_param(n)}
        return {**head, **body}

    before = snapshot()
    nlp.update(examples, sgd=Adam(0.001), drop=0.0)
    after = snapshot()
    return {key: after[key] - before[key] for key in before}


def test_head_lr_scale_reaches_the_head_parameters_only():
    plain, scaled = one_step(1.0), one_step(20.0)
    head_keys = [key for key in plain if key[0] == "head"]
    body_keys = [key for key in plain if key[0] == "tok2vec"]
    assert {key[1] for key in head_keys} >= {"emissions.weight", "transitions.weight", "transitions.w_factor"}
    for key in head_keys:
        moved = numpy.abs(plain[key]) > 1e-7
        assert moved.any(), key
        # Adam's first step is lr * m / (sqrt(v) + eps): proportional to the rate.
        numpy.testing.assert_allclose(scaled[key][moved], 20.0 * plain[key][moved], rtol=1e-2)
    assert body_keys
    for key in body_keys:
        numpy.testing.assert_allclose(scaled[key], plain[key], rtol=1e-5, atol=1e-8)


def test_penalties_follow_the_tag_scheme():
    from spacy_globalner.decoding.lcrf_ner.bioes import bioes_forbidden
    from spacy_globalner.decoding.lcrf_ner.iob import iob_forbidden

    for scheme, forbidden in (("iob", iob_forbidden), ("bioes", bioes_forbidden)):
        _, pipe, _ = overfit({"model": {"tag_scheme": scheme}}, n_iter=1)
        module = torch_module(pipe)
        expected = forbidden(len(pipe.labels)).astype("float32")
        numpy.testing.assert_array_equal(module.transitions.forbidden.numpy(), expected)
