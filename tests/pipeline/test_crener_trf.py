"""CRENER over a spacy-transformers encoder (a tiny BERT built in the test)."""
import pytest
import spacy
from thinc.api import fix_random_seed

from tests.helpers.crener import SMALL_MODEL, TRAIN_DATA, example_of, spans_of

pytest.importorskip("spacy_transformers")


def test_crener_learns_through_a_transformer_listener(tiny_bert_path, tmp_path):
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config={
        "model": {
            "@architectures": "spacy-transformers.TransformerModel.v3",
            "name": str(tiny_bert_path),
            "tokenizer_config": {"use_fast": True},
            "get_spans": {"@span_getters": "spacy-transformers.doc_spans.v1"},
        }
    })
    listener = {
        "@architectures": "spacy-transformers.TransformerListener.v1",
        "grad_factor": 1.0,
        "pooling": {"@layers": "reduce_mean.v1"},
    }
    nlp.add_pipe("crener", config={"model": {**SMALL_MODEL, "tok2vec": listener}})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.005
    first = last = None
    for _ in range(40):
        losses = {}
        # As `spacy train` does: update without sgd, then finish each pipe's
        # update, so the transformer's gradient is applied in the same step.
        nlp.update(examples, sgd=False, losses=losses, drop=0.0)
        for _, pipe in nlp.pipeline:
            pipe.finish_update(optimizer)
        first = losses["crener"] if first is None else first
        last = losses["crener"]
    assert last < first / 5
    texts = [text for text, _ in TRAIN_DATA]
    docs = list(nlp.pipe(texts))
    found = sum(len(set(spans_of(doc)) & set(gold)) for doc, (_, gold) in zip(docs, TRAIN_DATA))
    assert found >= 7  # of 9 gold spans, nested and same-span ones included (9 here)
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    assert [spans_of(doc) for doc in loaded.pipe(texts)] == [spans_of(doc) for doc in docs]
