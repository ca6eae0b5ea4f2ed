"""lcrf_ner and cse_ner from their configs: all validate, and the transformer
ones learn through a TransformerListener over a tiny BERT built in the test.
"""

import pytest
import spacy
from spacy.cli.debug_config import debug_config
from spacy.tokens import DocBin
from thinc.api import fix_random_seed

from tests.helpers import REPO_ROOT
from tests.helpers.lcrf_ner import TRAIN_DATA, make_examples
from tests.helpers.transformer import train_through_transformer

CONFIGS = REPO_ROOT / "configs"


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory):
    nlp = spacy.blank("de")
    path = tmp_path_factory.mktemp("corpus") / "tiny.spacy"
    DocBin(docs=[example.reference for example in make_examples(nlp)]).to_disk(path)
    return path


@pytest.mark.parametrize("name", ["lcrf_ner.cfg", "lcrf_ner_trf.cfg", "cse_ner_trf.cfg"])
def test_config_passes_debug_config(name, corpus_path):
    pytest.importorskip("spacy_transformers")
    overrides = {"paths.train": str(corpus_path), "paths.dev": str(corpus_path)}
    debug_config(CONFIGS / name, overrides=overrides)  # exits with an error where invalid


@pytest.mark.parametrize("name,head", [("lcrf_ner_trf.cfg", "lcrf_ner"), ("cse_ner_trf.cfg", "cse_ner")])
def test_head_learns_through_a_transformer_listener(name, head, tiny_bert_path, tmp_path):
    pytest.importorskip("spacy_transformers")
    fix_random_seed(0)
    config = spacy.util.load_config(CONFIGS / name, overrides={"paths.transformer": str(tiny_bert_path)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    examples = make_examples(nlp)
    first, last = train_through_transformer(nlp, examples, head, 40)
    assert last < first / 5
    assert nlp.evaluate(examples)["ents_f"] >= 0.5
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    for text, _ in TRAIN_DATA:
        assert [(e.start, e.end, e.label_) for e in loaded(text).ents] == [
            (e.start, e.end, e.label_) for e in nlp(text).ents
        ]
