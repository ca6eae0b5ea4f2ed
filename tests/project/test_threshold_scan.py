"""compare.py's threshold scan returns what `spacy find-threshold` returns:
the same thresholds, the same score at each, the same winner, from one
prediction of dev instead of one per threshold."""
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
    trained_dir,
    write_genia_dev,
)

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

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


@pytest.mark.parametrize("name,scores_key", [("global_pointer", "spans_sc_f"), ("global_pointer", "ents_f"),
                                             ("cse_ner", "ents_f"), ("spancat", "spans_sc_f")])
def test_the_scan_returns_what_find_threshold_returns(name, scores_key, dev_path, spancat_behind_a_tok2vec):
    from spacy.cli.find_threshold import find_threshold

    model = spancat_behind_a_tok2vec if name == "spancat" else trained_dir(name)
    expected = find_threshold(str(model), dev_path, name, "threshold", scores_key, n_trials=TRIALS, silent=True)
    nlp = spacy.load(model)
    kept = nlp.get_pipe(name).cfg["threshold"]
    best, best_score, scores = scan_threshold(nlp, dev_path, name, scores_key, TRIALS)
    assert len(set(expected[2].values())) > 1, "every threshold scored alike: the comparison shows nothing"
    assert scores == expected[2]
    assert (best, best_score) == expected[:2]
    # the pipeline keeps its threshold; the caller sets the chosen one
    assert nlp.get_pipe(name).cfg["threshold"] == kept
