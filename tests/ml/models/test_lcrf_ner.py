"""The Thinc layers of lcrf_ner: the CRF head and the LCRFNER architecture."""
import numpy
import pytest

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.models.lcrf_ner import build_lcrf_ner, lcrf_ner_head
from tests.helpers.padded_heads import make_padded_head, token_vectors

N_LABELS = 3
N_TAGS = 2 * N_LABELS + 1


def make_head(**kwargs):
    return make_padded_head(lcrf_ner_head, N_LABELS, **kwargs)


def test_head_forward_shapes_and_dtypes():
    head = make_head()
    X = token_vectors([3, 0, 5])
    head.initialize(X=X)
    emissions, transitions = head.predict(X)
    assert emissions.shape == (3, 5, N_TAGS) and emissions.dtype == numpy.float32
    assert transitions.shape == (N_TAGS + 2, N_TAGS + 2) and transitions.dtype == numpy.float32


def test_head_backward_gives_dX_of_X_shape():
    head = make_head()
    X = token_vectors([4, 1, 0, 2])
    head.initialize(X=X)
    (emissions, transitions), backprop = head.begin_update(X)
    dX = backprop((head.ops.alloc3f(*emissions.shape) + 1, head.ops.alloc2f(*transitions.shape) + 1))
    assert [dx.shape for dx in dX] == [x.shape for x in X]
    assert all(dx.dtype == numpy.float32 for dx in dX)
    assert float(numpy.abs(head.ops.to_numpy(dX[0])).sum()) > 0


def test_head_batched_equals_unbatched():
    head = make_head()
    X = token_vectors([4, 1, 6])
    head.initialize(X=X)
    batched, transitions = head.predict(X)
    for row, x in enumerate(X):
        alone, alone_transitions = head.predict([x])
        numpy.testing.assert_allclose(alone[0], batched[row, : len(x)], rtol=1e-5, atol=1e-6)
        numpy.testing.assert_array_equal(alone_transitions, transitions)


def test_head_handles_no_docs_and_empty_docs():
    head = make_head()
    head.initialize(X=token_vectors([2]))
    emissions, transitions = head.predict([])
    assert emissions.shape == (0, 0, N_TAGS) and transitions.shape == (N_TAGS + 2, N_TAGS + 2)
    emissions, _ = head.predict(token_vectors([0, 0]))
    assert emissions.shape == (2, 0, N_TAGS)


@pytest.mark.parametrize("transitions,learned", [("penalised", True), ("crf", False)])
def test_penalty_parameters_train_only_when_asked(transitions, learned):
    head = make_head(transitions=transitions)
    head.initialize(X=token_vectors([2]))
    module = wrapped_module(head.layers[0])
    assert module.transitions.w_factor.requires_grad == learned
    assert module.transitions.w_absolute.requires_grad == learned


def test_architecture_is_registered_under_the_head_name():
    from spacy.util import registry

    assert registry.architectures.get("spacy-globalner.LCRFNER.v1") is build_lcrf_ner
