"""crener's `threshold` is a probability, the score a span must reach, as
every head's is: a number outside [0, 1] is refused, and `spacy
find-threshold` scans its whole range."""
import warnings

import numpy
import pytest
import spacy
from spacy.cli.find_threshold import find_threshold
from spacy.tokens import DocBin

from tests.helpers.trained_pipelines import GENIA_DEV, genia_docs, trained_dir


def test_a_config_with_a_logit_is_refused_when_the_component_is_created():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"\[E050\] threshold of 'crener' .* got 1.5.*1.5 is 0.8176"):
        nlp.add_pipe("crener", config={"threshold": 1.5})


@pytest.mark.slow
def test_find_threshold_scans_the_whole_range_of_scores(tmp_path):
    """0 keeps every cell, 1 none: the sweep covers every score a span can
    have. This young
    model scores its spans low: its best threshold lies below 0.5."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev = genia_docs(spacy.blank("en"), limit=40, path=GENIA_DEV)
    DocBin(docs=dev).to_disk(tmp_path / "dev.spacy")
    best, best_f, table = find_threshold(str(trained_dir("crener")), tmp_path / "dev.spacy", "crener",
                                         "threshold", "spans_sc_f", n_trials=11, silent=True)
    assert sorted(table) == pytest.approx(list(numpy.linspace(0, 1, 11)))
    assert best_f == max(table.values()) == table[best] > 0.0
    assert table[1.0] == 0.0 and table[0.0] < 0.05 < best_f
    assert 0.0 < best < 0.5, table
