"""`spacy find-threshold` tunes global_pointer's threshold as it tunes spancat's:
the threshold is a probability, the score users read in attrs["scores"], so
the sweep over 0..1 finds a best value strictly inside it."""
import random
import re
import subprocess
import sys
import warnings

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Corpus, Example
from thinc.api import Adam, fix_random_seed

from tests.helpers.trained_pipelines import GENIA_DEV, SMALL_TOK2VEC, genia_docs, one_torch_thread

N_TRAIN_DOCS = 500
N_DEV_DOCS = 100
N_EPOCHS = 2  # 32 updates: a young model, which under-calls at the default threshold


def train_young_global_pointer(path):
    """global_pointer (factory defaults, a small tok2vec) after 32 updates on
    500 GENIA train sentences, saved to `path`."""
    fix_random_seed(0)
    nlp = spacy.blank("en")
    tok2vec = dict(SMALL_TOK2VEC, width=64, depth=2, embed_size=2000)
    nlp.add_pipe("global_pointer", config={"model": {"head_width": 32, "tok2vec": tok2vec}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=N_TRAIN_DOCS)]
    with one_torch_thread():  # building the fixture; the command below runs as a user runs it
        optimizer = nlp.initialize(lambda: train, sgd=Adam(0.005))
        rng = random.Random(0)
        for _ in range(N_EPOCHS):
            rng.shuffle(train)
            for start in range(0, len(train), 32):
                nlp.update(train[start : start + 32], sgd=optimizer, drop=0.1)
    nlp.to_disk(path)


@pytest.mark.slow
def test_find_threshold_finds_a_best_probability_inside_0_1(tmp_path):
    train_young_global_pointer(tmp_path / "model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev_docs = genia_docs(spacy.blank("en"), limit=N_DEV_DOCS, path=GENIA_DEV)
    DocBin(docs=dev_docs).to_disk(tmp_path / "dev.spacy")
    done = subprocess.run(
        [sys.executable, "-m", "spacy", "find-threshold", str(tmp_path / "model"), str(tmp_path / "dev.spacy"),
         "global_pointer", "threshold", "spans_sc_f"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    table = {float(t): float(f) for t, f in re.findall(r"^\s*([01]\.\d+)\s+([01]\.\d+)\s*$", done.stdout, re.M)}
    assert sorted(table) == pytest.approx([i / 10 for i in range(11)]), done.stdout
    best = re.search(r"Best threshold: (\d+(?:\.\d+)?) with spans_sc_f value of (\d+\.\d+)", done.stdout)
    assert best, done.stdout
    threshold, f = float(best.group(1)), float(best.group(2))
    # 0 keeps every cell (precision near 0), 1 keeps none: the best lies between
    assert 0.0 < threshold < 1.0 and table[0.0] < 0.05 and table[1.0] == 0.0
    nlp = spacy.load(tmp_path / "model")
    assert nlp.get_pipe("global_pointer").cfg["threshold"] == 0.3775  # the default
    default_f = nlp.evaluate(list(Corpus(tmp_path / "dev.spacy")(nlp)))["spans_sc_f"]
    assert f >= default_f > 0.0, (f, default_f)
