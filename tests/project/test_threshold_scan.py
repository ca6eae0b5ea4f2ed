"""compare.py's threshold scan returns what `spacy find-threshold` returns:
the same thresholds, the same score at each, the same winner, from one
prediction of dev instead of one per threshold; for a component before the
head too (span_finder before spancat)."""
import sys
import warnings

import pytest
import spacy
from spacy.training import Example
from spacy.util import fix_random_seed

from tests.helpers import REPO_ROOT
from tests.helpers.trained_pipelines import (
    SMALL_TOK2VEC,
    genia_docs,
    one_torch_thread,
    train_config,
    trained_dir,
    write_genia_dev,
)

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

import compare  # noqa: E402
from threshold_scan import scan_threshold  # noqa: E402

TRIALS = 11


@pytest.fixture(scope="module")
def dev_path(tmp_path_factory):
    return write_genia_dev(tmp_path_factory.mktemp("scan") / "dev.spacy", limit=40)


@pytest.fixture(scope="module")
def spancat_behind_a_tok2vec(tmp_path_factory):
    """spaCy's spancat listening to a tok2vec component before it, as a
    transformer pipeline's head listens to its transformer."""
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": dict(SMALL_TOK2VEC)})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": SMALL_TOK2VEC["width"]}
    nlp.add_pipe("spancat", config={"spans_key": "sc", "model": {"tok2vec": listener}})
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp)]
    with warnings.catch_warnings(), one_torch_thread():
        warnings.simplefilter("ignore")
        optimizer = nlp.initialize(lambda: examples)
        for _ in range(8):
            nlp.update(examples, sgd=optimizer)
    path = tmp_path_factory.mktemp("spancat") / "pipeline"
    nlp.to_disk(path)
    return path


@pytest.fixture(scope="module")
def span_finder_before_spancat(tmp_path_factory):
    """spaCy's span_finder and spancat as compare.py composes them on
    global_pointer.cfg's encoder (narrowed to keep the test quick)."""
    stats = {"lang": "en", "train": {"max_length": 6}}
    folder = tmp_path_factory.mktemp("span_finder")
    config = compare.compose(REPO_ROOT / "configs" / "global_pointer.cfg", "span_finder", stats,
                             folder / "train_stats.json")
    config["components"]["tok2vec"]["model"]["encode"]["width"] = 32
    return train_config(config, folder / "pipeline")


@pytest.mark.parametrize("name,scores_key", [("global_pointer", "spans_sc_f"), ("global_pointer", "ents_f"),
                                             ("cse_ner", "ents_f"), ("spancat", "spans_sc_f"),
                                             ("span_finder", "spans_sc_f")])
def test_the_scan_returns_what_find_threshold_returns(name, scores_key, dev_path, request):
    from spacy.cli.find_threshold import find_threshold

    fixtures = {"spancat": "spancat_behind_a_tok2vec", "span_finder": "span_finder_before_spancat"}
    model = request.getfixturevalue(fixtures[name]) if name in fixtures else trained_dir(name)
    expected = find_threshold(str(model), dev_path, name, "threshold", scores_key, n_trials=TRIALS, silent=True)
    nlp = spacy.load(model)
    kept = nlp.get_pipe(name).cfg["threshold"]
    best, best_score, scores = scan_threshold(nlp, dev_path, name, scores_key, TRIALS)
    assert len(set(expected[2].values())) > 1, "every threshold scored alike: the comparison shows nothing"
    assert scores == expected[2]
    assert (best, best_score) == expected[:2]
    # the pipeline keeps its threshold; the caller sets the chosen one
    assert nlp.get_pipe(name).cfg["threshold"] == kept


def test_compare_chooses_span_finders_threshold_then_spancats(dev_path, span_finder_before_spancat):
    """The candidates first: span_finder's threshold by the scan of the whole
    pipeline's score, then spancat's with span_finder's chosen one set; both
    recorded and set on the pipeline that is scored."""
    nlp = spacy.load(span_finder_before_spancat)
    expected = scan_threshold(spacy.load(span_finder_before_spancat), dev_path, "span_finder", "spans_sc_f", 5)[0]
    tuning = compare.tune(nlp, dev_path, "spans_sc_f", trials=5)
    assert tuning["thresholds_before"] == {"span_finder": expected}
    assert nlp.get_pipe("span_finder").cfg["threshold"] == expected
    assert nlp.get_pipe("spancat").cfg["threshold"] == tuning["threshold"]
    assert tuning["threshold"] == scan_threshold(nlp, dev_path, "spancat", "spans_sc_f", 5)[0]
