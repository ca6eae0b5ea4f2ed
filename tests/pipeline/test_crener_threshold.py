"""crener's `threshold` is a probability, the score a span must reach, as
every head's is: `spacy find-threshold` scans its whole range, and a pipeline
whose config holds a margin of logits (the form it was saved in by releases
where the threshold was a margin) predicts the spans it did."""
import warnings

import numpy
import pytest
import spacy
import srsly
from spacy.cli.find_threshold import find_threshold
from spacy.tokens import DocBin
from thinc.api import Config

from spacy_globalner.decoding.crener.decode import decode_windows
from spacy_globalner.decoding.probabilities import sigmoid
from tests.helpers.trained_pipelines import GENIA_DEV, genia_docs, sample_texts, trained_dir

MARGIN = -0.5  # the small pipeline's threshold, 0.3775, as a margin


def save_the_margin_way(source, path):
    """The pipeline at `source` saved as a release with margins wrote it: the
    margin in config.cfg and crener/cfg, and no threshold_scale."""
    nlp = spacy.load(source)
    nlp.to_disk(path)
    config = Config().from_disk(path / "config.cfg", interpolate=False)
    config["components"]["crener"]["threshold"] = MARGIN
    config.to_disk(path / "config.cfg", interpolate=False)
    cfg = srsly.read_json(path / "crener" / "cfg")
    del cfg["threshold_scale"]
    cfg["threshold"] = MARGIN
    srsly.write_json(path / "crener" / "cfg", cfg)


def spans_of(docs):
    return [[(s.start, s.end, s.label_, round(float(score), 6)) for s, score in
             zip(doc.spans["sc"], doc.spans["sc"].attrs["scores"])] for doc in docs]


def test_a_pipeline_saved_with_a_margin_predicts_the_same_spans(tmp_path):
    save_the_margin_way(trained_dir("crener"), tmp_path / "old")
    old = spacy.load(tmp_path / "old")
    pipe = old.get_pipe("crener")
    assert pipe.cfg["threshold"] == pytest.approx(sigmoid(MARGIN))
    texts = sample_texts(20)
    docs = [old.make_doc(text) for text in texts]
    pipe.cfg["max_span_width"] = None  # whole grids, which decode_windows reads below
    grids, windows = pipe.predict(docs)
    # the decoding at the margin, as the component did where it was a margin
    at_margin, _ = decode_windows([pipe.model.ops.to_numpy(g) for g in grids], windows, len(docs),
                                  len(pipe.labels), MARGIN, max_candidates=pipe.cfg["max_candidates"])
    expected = [sorted((int(s), int(e), pipe.labels[i]) for s, e, i in zip(f.starts, f.ends, f.label_ids))
                for f in at_margin]
    predicted = spans_of(old.pipe(texts))
    got = [sorted((s, e, label) for s, e, label, _ in doc) for doc in predicted]
    assert got == expected and sum(map(len, got)) > 0
    # saved again, it loads again the same way: config.cfg still holds the margin
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no W005: nothing was edited
        old.to_disk(tmp_path / "again")
    again = spacy.load(tmp_path / "again")
    assert again.get_pipe("crener").cfg["threshold"] == pipe.cfg["threshold"]
    assert spans_of(again.pipe(texts)) == predicted


def test_a_new_config_with_a_margin_is_refused_before_training():
    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={"threshold": 1.5})
    docs = genia_docs(nlp, limit=2)
    examples = [spacy.training.Example(nlp.make_doc(doc.text), doc) for doc in docs]
    with pytest.raises(ValueError, match=r"\[E050\] threshold of 'crener' .* got 1.5.*1.5 is 0.8176"):
        nlp.initialize(lambda: examples)


@pytest.mark.slow
def test_find_threshold_scans_the_whole_range_of_scores(tmp_path):
    """0 keeps every cell, 1 none: the sweep covers every score a span can
    have, where margins of 0..1 covered the scores 0.5..0.73 only. This young
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
