"""The crener pipe with the CRENER paper's model switched on: every option
of the architecture at its paper setting overfits two sentences, and the
saved pipeline loads back with its settings from the config."""
import spacy

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from tests.helpers.crener import SMALL_MODEL, TRAIN_DATA, example_of, spans_of, train

PAPER_MODEL = {
    **SMALL_MODEL,
    "transformer_depth": 1,
    "attention_embedding_width": 4,
    "parallel_dilations": True,
    "cln_bias_from": "object",
    "enhancement": "paper",
    "enhancement_rounds": 2,
    "predictor_input": "grid+tags",
}


def test_paper_model_overfits_two_sentences(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={"model": PAPER_MODEL})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    train(nlp, examples, n_updates=60)
    for (_, spans), example in zip(TRAIN_DATA, examples):
        assert spans_of(nlp(example.predicted.copy())) == sorted(spans)
    scorer = wrapped_module(nlp.get_pipe("crener").model.get_ref("head").layers[0])
    assert scorer.settings.enhancement == "paper" and scorer.transformer is not None
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert loaded.config["components"]["crener"]["model"]["enhancement"] == "paper"
    for example in examples:
        assert spans_of(loaded(example.predicted.copy())) == spans_of(nlp(example.predicted.copy()))


NEW_SETTINGS = (
    "transformer_depth",
    "attention_embedding_width",
    "parallel_dilations",
    "cln_bias_from",
    "enhancement",
    "predictor_input",
)


def test_pipeline_saved_before_the_new_settings_loads(tmp_path):
    """A config without the paper's settings loads, fills them with v1's
    defaults and predicts what the saved model did."""
    from thinc.api import Config

    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={"model": SMALL_MODEL})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    train(nlp, examples, n_updates=5)
    nlp.to_disk(tmp_path)
    config = Config().from_disk(tmp_path / "config.cfg", interpolate=False)
    for name in NEW_SETTINGS:
        del config["components"]["crener"]["model"][name]
    config.to_disk(tmp_path / "config.cfg")
    loaded = spacy.load(tmp_path)
    model_config = loaded.config["components"]["crener"]["model"]
    assert model_config["enhancement"] == "pooled" and model_config["transformer_depth"] == 0
    doc = examples[0].predicted.copy()
    grids, _ = nlp.get_pipe("crener").predict([doc])
    loaded_grids, _ = loaded.get_pipe("crener").predict([doc])
    assert (grids[0] == loaded_grids[0]).all()
