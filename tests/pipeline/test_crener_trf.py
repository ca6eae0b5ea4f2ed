"""CRENER over a spacy-transformers encoder (a tiny BERT built in the test)."""
import pytest
import spacy
from thinc.api import fix_random_seed

from tests.helpers.crener import SMALL_MODEL, TRAIN_DATA, example_of, spans_of
from tests.helpers.transformer import TRANSFORMER_LISTENER, add_transformer, train_through_transformer

pytest.importorskip("spacy_transformers")


def test_crener_learns_through_a_transformer_listener(tiny_bert_path, tmp_path):
    fix_random_seed(0)
    nlp = spacy.blank("en")
    add_transformer(nlp, tiny_bert_path)
    nlp.add_pipe("crener", config={"model": {**SMALL_MODEL, "tok2vec": TRANSFORMER_LISTENER}})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    first, last = train_through_transformer(nlp, examples, "crener", 40)
    assert last < first / 5
    texts = [text for text, _ in TRAIN_DATA]
    docs = list(nlp.pipe(texts))
    found = sum(len(set(spans_of(doc)) & set(gold)) for doc, (_, gold) in zip(docs, TRAIN_DATA))
    assert found >= 7  # of 9 gold spans, nested and same-span ones included (9 here)
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    assert [spans_of(doc) for doc in loaded.pipe(texts)] == [spans_of(doc) for doc in docs]
