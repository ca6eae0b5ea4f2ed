"""The Thinc layer of cse_ner and the CSENER architecture."""
import numpy

from spacy_globalner.ml.models.cse_ner import cse_ner_head
from tests.helpers.padded_heads import make_padded_head, token_vectors

N_LABELS = 3
N_OUT = 2 + N_LABELS + 1


def make_head():
    return make_padded_head(cse_ner_head, N_LABELS)


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

