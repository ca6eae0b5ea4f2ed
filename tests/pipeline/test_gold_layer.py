"""A component whose doc.spans key holds no gold falls back to doc.ents: said
once at initialize (W008), and refused (E025) where neither holds gold, so a
second head on a key of its own does not train on the flat layer unnoticed."""
import re
import subprocess
import sys

import pytest
import spacy
from spacy import util
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_globalner.corpora import convert
from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, REPO_ROOT, genia_docs, small_config

# A budget of a few updates; the warm-up and schedule end inside it.
SHORT_RUN = ["--training.max_steps", "4", "--training.optimizer.learn_rate.total_steps", "4",
             "--training.optimizer.learn_rate.warmup_steps", "1", "--training.eval_frequency", "2"]



@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """GENIA as `spacy globalner convert` writes it: every entity under
    doc.spans["sc"], the outer layer in doc.ents."""
    path = tmp_path_factory.mktemp("gold-layer")
    convert(GENIA_TRAIN, path / "train.spacy", format="genia", limit=20)
    convert(GENIA_DEV, path / "dev.spacy", format="genia", limit=8)
    return path


def two_head_config(path):
    """configs/global_pointer.cfg with crener beside it on the key "cr",
    listening to the same tok2vec, as a user adds a second head."""
    config = util.load_config(REPO_ROOT / "configs" / "global_pointer.cfg", interpolate=False)
    crener = util.load_config(REPO_ROOT / "configs" / "crener.cfg", interpolate=False)["components"]["crener"]
    crener.update(spans_key="cr", set_ents=False)
    config["components"]["crener"] = crener
    config["nlp"]["pipeline"] = ["tok2vec", "global_pointer", "crener"]
    config["training"]["score_weights"].update(spans_cr_f=0.0, spans_cr_p=0.0, spans_cr_r=0.0)
    config.to_disk(path)
    return path


def spacy_train(config, train, dev, output):
    args = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(output),
            "--paths.train", str(train), "--paths.dev", str(dev), *SHORT_RUN]
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=user_env(), cwd=output.parent)


@pytest.mark.slow
def test_spacy_train_says_when_a_head_on_its_own_key_falls_back_to_doc_ents(corpora, tmp_path):
    config = two_head_config(tmp_path / "config.cfg")
    result = spacy_train(config, corpora / "train.spacy", corpora / "dev.spacy", tmp_path / "out")
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert output.count("[W008]") == 1, output[-3000:]
    assert re.search(r"'crener' learns from doc.ents in \d+ of the 20 training examples", output), output[-3000:]
    assert "no doc.spans['cr']" in output and "doc.spans keys with gold in the data: 'sc'" in output
    assert "'global_pointer' learns" not in output


def test_spacy_train_stops_where_neither_the_key_nor_doc_ents_holds_gold(corpora, tmp_path):
    """Gold only under another key (and no doc.ents): nothing to learn."""
    nlp = spacy.blank("en")
    moved = DocBin(store_user_data=True)
    for doc in DocBin().from_disk(corpora / "train.spacy").get_docs(nlp.vocab):
        doc.spans["other"] = list(doc.spans["sc"])
        del doc.spans["sc"]
        doc.ents = []
        moved.add(doc)
    moved.to_disk(tmp_path / "train.spacy")
    (tmp_path / "out").mkdir()
    result = spacy_train(REPO_ROOT / "configs" / "global_pointer.cfg", tmp_path / "train.spacy",
                         corpora / "dev.spacy", tmp_path / "out")
    assert result.returncode != 0
    assert "[E025] The training data for 'global_pointer' holds no gold spans in doc.spans['sc']" in result.stderr
    assert "doc.spans keys with gold in the data: 'other'" in result.stderr


def test_no_gold_and_no_labels_is_one_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    examples = [Example.from_dict(nlp.make_doc("no entities here"), {})]
    with pytest.raises(ValueError, match=r"\[E025\].*in any of its 1 examples"):
        nlp.initialize(lambda: examples)


def test_labels_given_without_gold_build_an_untrained_pipe():
    """As spaCy's components allow: labels, no data (nlp.initialize() alone)."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    pipe.add_label("protein")
    with pytest.warns(UserWarning, match=r"\[W003\]"):
        nlp.initialize()
    assert pipe.is_initialized


def test_gold_on_the_key_gives_no_warning(recwarn):
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    nlp.initialize(lambda: examples)
    assert not [w for w in recwarn if "W008" in str(w.message)]


def test_a_flat_corpus_means_the_fallback(recwarn):
    """doc.ents alone, no doc.spans: nothing else the gold could be."""
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    examples = []
    for doc in genia_docs(nlp, limit=4):
        del doc.spans["sc"]
        examples.append(Example(nlp.make_doc(doc.text), doc))
    nlp.initialize(lambda: examples)
    assert not [w for w in recwarn if "W008" in str(w.message)]
