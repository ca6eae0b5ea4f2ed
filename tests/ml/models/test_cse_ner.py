"""The Thinc layer of cse_ner and the CSENER architecture."""
import numpy
import spacy
from thinc.api import fix_random_seed, get_current_ops

from spacy_globalner.ml.models.cse_ner import build_cse_ner, cse_ner_head

N_LABELS, N_IN = 3, 8
N_OUT = 2 + N_LABELS + 1


def make_head():
    fix_random_seed(0)
    head = cse_ner_head()
    head.set_dim("nO", N_LABELS)
    return head


def token_vectors(lengths, seed=0):
    rng = numpy.random.default_rng(seed)
    ops = get_current_ops()
    return [ops.asarray2f(rng.normal(size=(n, N_IN)).astype("float32")) for n in lengths]


def test_head_builds_its_module_in_init():
    head = make_head()
    assert not head.layers
    head.initialize(X=token_vectors([3, 2]))
    assert len(head.layers) == 1 and head.get_dim("nI") == N_IN


def test_head_forward_shapes_and_dtypes():
    head = make_head()
    X = token_vectors([3, 0, 5])
    head.initialize(X=X)
    scores = head.predict(X)
    assert scores.shape == (3, 5, N_OUT) and scores.dtype == numpy.float32


def test_head_backward_gives_dX_of_X_shape():
    head = make_head()
    X = token_vectors([4, 1, 0, 2])
    head.initialize(X=X)
    scores, backprop = head.begin_update(X)
    dX = backprop(head.ops.alloc3f(*scores.shape) + 1)
    assert [dx.shape for dx in dX] == [x.shape for x in X]
    assert float(numpy.abs(head.ops.to_numpy(dX[0])).sum()) > 0


def test_head_batched_equals_unbatched():
    head = make_head()
    X = token_vectors([4, 1, 6])
    head.initialize(X=X)
    batched = head.predict(X)
    for row, x in enumerate(X):
        numpy.testing.assert_allclose(head.predict([x])[0], batched[row, : len(x)], rtol=1e-5, atol=1e-6)


def test_head_handles_no_docs_and_empty_docs():
    head = make_head()
    head.initialize(X=token_vectors([2]))
    assert head.predict([]).shape == (0, 0, N_OUT)
    assert head.predict(token_vectors([0, 0])).shape == (2, 0, N_OUT)


def test_architecture_keeps_tok2vec_and_head_refs():
    nlp = spacy.blank("en")
    tok2vec = spacy.registry.resolve(
        {"t": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
               "depth": 1, "embed_size": 100, "window_size": 1, "maxout_pieces": 2,
               "subword_features": True}}
    )["t"]
    model = build_cse_ner(tok2vec)
    assert model.get_ref("tok2vec") is tok2vec
    model.get_ref("head").set_dim("nO", 2)
    docs = [nlp.make_doc("a b c"), nlp.make_doc("d")]
    model.initialize(X=docs)
    assert model.predict(docs).shape == (2, 3, 2 + 2 + 1)
