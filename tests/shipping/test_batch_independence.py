"""A doc gets the same vectors, spans, labels and scores whatever else is in its
batch: alone, or among 64 docs of very different lengths.

spaCy's `spacy.TorchBiLSTMEncoder.v1` fails this (the backward direction of a
short doc starts from the padding of the longest): the encoder block of every
shipped config is checked here, and each head on top of a batch-independent
encoder. `n_process=2` is checked in test_multiprocess.py.
"""
import warnings
from typing import List

import numpy
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Config, fix_random_seed

from tests.helpers import REPO_ROOT
from tests.helpers.components import FACTORIES
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, genia_docs, trained_dir

CONFIGS = sorted((REPO_ROOT / "configs").glob("*.cfg"))
# Scores of the same doc alone and in a batch differ by float rounding only.
ATOL = 1e-5


def mixed_batch(nlp: Language) -> List[Doc]:
    """64 docs from 0 to ~500 tokens: dev sentences, single words, an empty doc,
    and long docs of many sentences run together."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sentences = [doc.text for doc in genia_docs(spacy.blank("en"), limit=120, path=GENIA_DEV)]
    texts = sentences[:56] + ["", "IL-2", "T cells ."]
    texts += [" ".join(sentences[i : i + n]) for i, n in ((0, 20), (20, 8), (30, 3), (40, 12), (60, 40))]
    assert len(texts) == 64
    return [nlp.make_doc(text) for text in texts]


@pytest.mark.parametrize("path", CONFIGS, ids=[path.stem for path in CONFIGS])
def test_encoder_block_of_shipped_config(path, request):
    """The shared encoder of each shipped config, untrained but initialised on
    GENIA docs: spaCy's tok2vec in prediction and in training (dropout off),
    a transformer (a tiny random BERT) in prediction."""
    config = Config().from_disk(path)
    if "transformer" in config["components"]:
        pytest.importorskip("spacy_transformers")
        transformer = config["components"]["transformer"]["model"]
        transformer["name"] = str(request.getfixturevalue("tiny_bert_path"))
        # The tiny BERT's vocabulary splits words into letters and it has 128
        # positions: windows of 12 tokens fit where the shipped 128 would not.
        transformer["get_spans"].update(window=12, stride=8)
    fix_random_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
        nlp.initialize(lambda: [Example(nlp.make_doc(d.text), d) for d in genia_docs(nlp, limit=10, path=GENIA_TRAIN)])
    docs = mixed_batch(nlp)
    if "transformer" in nlp.pipe_names:
        pairs = transformer_vectors(nlp, docs)
    else:
        pairs = tok2vec_vectors(nlp.get_pipe("tok2vec").model, docs)
    for i, (doc, (mode, alone, together)) in enumerate(zip(docs * 2, pairs)):
        gap = float(numpy.abs(alone - together).max()) if len(alone) else 0.0
        assert gap < ATOL, f"{path.name}, doc {i % 64} ({len(doc)} tokens, {mode}): vectors move by {gap:.2e}"


def tok2vec_vectors(model, docs: List[Doc]):
    """(mode, vectors alone, vectors in the batch) per doc, predicting and training."""
    to_numpy = model.ops.to_numpy
    together = model.predict(docs)
    yield from (("predict", to_numpy(model.predict([doc])[0]), to_numpy(y)) for doc, y in zip(docs, together))
    together, _ = model.begin_update(docs)
    yield from (("train", to_numpy(model.begin_update([doc])[0][0]), to_numpy(y)) for doc, y in zip(docs, together))


def transformer_vectors(nlp: Language, docs: List[Doc]):
    """(mode, hidden states alone, in the batch) of each doc's own wordpieces."""

    def rows(doc):
        data = doc._.trf_data
        if not data.tensors:  # an empty doc
            return numpy.zeros((0,), dtype="float32")
        hidden = numpy.asarray(data.tensors[0])  # the last hidden layer
        mask = numpy.asarray(data.wordpieces.attention_mask).astype(bool)
        return hidden[mask]

    transformer = nlp.get_pipe("transformer")
    together = list(transformer.pipe([nlp.make_doc(doc.text) for doc in docs], batch_size=64))
    for doc, batched in zip(docs, together):
        yield "predict", rows(transformer(nlp.make_doc(doc.text))), rows(batched)


def span_records(doc: Doc, key: str):
    group = doc.spans.get(key, [])
    scores = group.attrs.get("scores") if group else None
    scores = list(scores) if scores is not None else [None] * len(group)
    spans = [(span.start, span.end, span.label_, score) for span, score in zip(group, scores)]
    return spans, [(ent.start, ent.end, ent.label_) for ent in doc.ents]


@pytest.mark.parametrize("name", FACTORIES)
def test_head_predicts_each_doc_as_alone(name):
    """Each trained head, over an encoder that is itself batch-independent:
    spans, labels and scores of every doc, alone and in a batch of 64."""
    nlp = spacy.load(trained_dir(name))
    key = nlp.get_pipe(name).cfg.get("spans_key", "sc")
    docs = mixed_batch(nlp)
    together = list(nlp.pipe([doc.text for doc in docs], batch_size=64))
    alone = [nlp(doc.text) for doc in docs]
    assert sum(len(doc.spans.get(key, [])) for doc in together) >= 10, "too few spans to compare"
    for doc_alone, doc_together in zip(alone, together):
        spans_alone, ents_alone = span_records(doc_alone, key)
        spans_together, ents_together = span_records(doc_together, key)
        assert ents_alone == ents_together
        assert [s[:3] for s in spans_alone] == [s[:3] for s in spans_together], doc_alone.text[:80]
        for (*_, a), (*_, b) in zip(spans_alone, spans_together):
            assert (a is None) == (b is None)
            if a is not None:
                assert abs(a - b) < ATOL
