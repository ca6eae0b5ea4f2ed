"""GlobalPointer over a spacy-transformers encoder (a tiny BERT built in the test)."""
import pytest
import spacy
from thinc.api import fix_random_seed

from tests.helpers.global_pointer import TRAIN_DATA, make_examples, spans_of, transformer_nlp

pytest.importorskip("spacy_transformers")


def test_global_pointer_learns_through_a_transformer_listener(tiny_bert_path, tmp_path):
    fix_random_seed(0)
    nlp = transformer_nlp(tiny_bert_path)
    examples = make_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.005
    first = last = None
    for _ in range(60):
        losses = {}
        # spaCy applies a transformer's gradient one batch late with sgd=optimizer;
        # update without it and finish each pipe's update here, as `spacy train` does.
        nlp.update(examples, sgd=False, losses=losses, drop=0.0)
        for _, pipe in nlp.pipeline:
            pipe.finish_update(optimizer)
        first = losses["global_pointer"] if first is None else first
        last = losses["global_pointer"]
    assert last < first / 5
    docs = list(nlp.pipe([text for text, _ in TRAIN_DATA]))
    found = sum(len(set(spans_of(doc)) & set(gold)) for doc, (_, gold) in zip(docs, TRAIN_DATA))
    assert found >= 5  # of 7 gold spans, nested ones included
    nlp.to_disk(tmp_path / "trf")
    loaded = spacy.load(tmp_path / "trf")
    for doc, (text, _) in zip(docs, TRAIN_DATA):
        assert spans_of(loaded(text)) == spans_of(doc)
