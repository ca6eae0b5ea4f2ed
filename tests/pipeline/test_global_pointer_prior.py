"""prior_offset: global_pointer starts training from scores at the data's
log-odds of a span, and keeps that offset through saving and loading."""
import warnings

import numpy
import pytest
import spacy
from spacy.training import Example

from tests.helpers.trained_pipelines import genia_docs, small_config


def initialized(prior_offset: bool):
    nlp = spacy.blank("en")
    config = small_config("global_pointer")
    config["prior_offset"] = prior_offset
    nlp.add_pipe("global_pointer", config=config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp)]
    nlp.initialize(lambda: examples)
    return nlp, examples


def test_offset_is_half_the_log_odds_of_a_gold_cell():
    nlp, examples = initialized(True)
    pipe = nlp.get_pipe("global_pointer")
    width = pipe.cfg["max_span_width"]
    n_cells = sum(min(width, len(eg.predicted) - i) for eg in examples for i in range(len(eg.predicted)))
    n_cells *= len(pipe.labels)
    n_gold = sum(len(eg.reference.spans["sc"]) for eg in examples)
    assert pipe.cfg["score_offset"] == pytest.approx(0.5 * numpy.log(n_gold / (n_cells - n_gold)))
    assert pipe.cfg["score_offset"] < -1.0


def test_offset_shifts_the_initial_scores_and_survives_loading(tmp_path):
    numpy.random.seed(0)
    plain, examples = initialized(False)
    shifted, _ = initialized(True)
    assert "score_offset" not in plain.get_pipe("global_pointer").cfg
    docs = [plain.make_doc(eg.reference.text) for eg in examples[:5]]
    offset = shifted.get_pipe("global_pointer").cfg["score_offset"]
    # Untrained scores scatter around 0; with the offset, around the offset.
    scores_plain = plain.get_pipe("global_pointer").predict([plain.make_doc(d.text) for d in docs])
    scores_shifted = shifted.get_pipe("global_pointer").predict([shifted.make_doc(d.text) for d in docs])
    valid = scores_plain > -1e30
    mean_gap = float((scores_shifted[valid] - scores_plain[valid]).mean())
    assert mean_gap == pytest.approx(offset, abs=0.5)
    shifted.to_disk(tmp_path / "gp")
    loaded = spacy.load(tmp_path / "gp")
    assert loaded.get_pipe("global_pointer").cfg["score_offset"] == pytest.approx(offset)
    again = loaded.get_pipe("global_pointer").predict([loaded.make_doc(d.text) for d in docs])
    assert numpy.allclose(again[valid], scores_shifted[valid], atol=1e-4)
