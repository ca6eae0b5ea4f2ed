"""Each head learns through a TransformerListener over a tiny BERT built in
the test (the heads and how each is built in tests/helpers/components.py).
tests/shipping/test_debug_configs.py validates every config."""

import pytest
import spacy
from thinc.api import fix_random_seed

from tests.helpers.components import FACTORIES, HEADS
from tests.helpers.transformer import train_through_transformer

# The updates through the transformer, and what the head must then reach on
# its two training sentences: how many of their gold spans doc.spans["sc"]
# holds (nested heads: 7 and 9 gold spans, nested and same-span ones
# included), or doc.ents F (flat heads).
UPDATES = {"global_pointer": 60, "crener": 40, "lcrf_ner": 40, "cse_ner": 40}
MIN_GOLD_FOUND = {"global_pointer": 5, "crener": 7}
MIN_ENTS_F = {"lcrf_ner": 0.5, "cse_ner": 0.5}


def _spans(doc):
    return [(span.start, span.end, span.label_) for span in doc.spans["sc"]]


def _ents(doc):
    return [(ent.start, ent.end, ent.label_) for ent in doc.ents]


@pytest.mark.parametrize("factory", FACTORIES)
def test_head_learns_through_a_transformer_listener(factory, tiny_bert_path, tmp_path):
    pytest.importorskip("spacy_transformers")
    fix_random_seed(0)
    nlp, examples = HEADS[factory].transformer_pipeline(tiny_bert_path)
    first, last = train_through_transformer(nlp, examples, factory, UPDATES[factory])
    assert last < first / 5
    texts = [text for text, _ in HEADS[factory].train_data]
    docs = list(nlp.pipe(texts))
    if factory in MIN_GOLD_FOUND:
        found = sum(len(set(_spans(doc)) & set(gold)) for doc, (_, gold) in zip(docs, HEADS[factory].train_data))
        assert found >= MIN_GOLD_FOUND[factory]
    else:
        assert nlp.evaluate(examples)["ents_f"] >= MIN_ENTS_F[factory]
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    again = list(loaded.pipe(texts))
    assert [_spans(doc) for doc in again] == [_spans(doc) for doc in docs]
    assert [_ents(doc) for doc in again] == [_ents(doc) for doc in docs]
