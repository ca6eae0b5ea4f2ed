"""GlobalPointer over a spacy-transformers encoder (a tiny BERT built in the test)."""
import pytest
import spacy
from thinc.api import fix_random_seed

from tests.helpers.global_pointer import TRAIN_DATA, make_examples, spans_of, transformer_nlp
from tests.helpers.transformer import train_through_transformer

pytest.importorskip("spacy_transformers")


def test_global_pointer_learns_through_a_transformer_listener(tiny_bert_path, tmp_path):
    fix_random_seed(0)
    nlp = transformer_nlp(tiny_bert_path)
    first, last = train_through_transformer(nlp, make_examples(nlp), "global_pointer", 60)
    assert last < first / 5
    docs = list(nlp.pipe([text for text, _ in TRAIN_DATA]))
    found = sum(len(set(spans_of(doc)) & set(gold)) for doc, (_, gold) in zip(docs, TRAIN_DATA))
    assert found >= 5  # of 7 gold spans, nested ones included
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    for doc, (text, _) in zip(docs, TRAIN_DATA):
        assert spans_of(loaded(text)) == spans_of(doc)
