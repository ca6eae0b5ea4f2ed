"""spacy-globalner.BiLSTMEncoder.v1: spaCy's BiLSTM encoder, with each
doc's output and gradient independent of the rest of its batch."""
import numpy
import pytest
from spacy.util import registry
from thinc.api import fix_random_seed

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.models.bilstm_encoder import ARCHITECTURE, build_bilstm_encoder

LENGTHS = (7, 1, 30, 0, 3, 12)


def batch(width=8):
    rng = numpy.random.default_rng(0)
    return [rng.normal(size=(n, width)).astype("float32") for n in LENGTHS]


def torch_lstm(model):
    return [wrapped_module(node) for node in model.walk() if node.shims][0]


def test_registered_under_its_name():
    registry.ensure_populated()
    assert registry.architectures.get(ARCHITECTURE) is build_bilstm_encoder


def test_same_as_spacys_encoder_on_one_doc():
    """A drop-in: with the same weights, one doc alone gets spaCy's vectors."""
    registry.ensure_populated()
    fix_random_seed(0)
    X = batch()
    spacys = registry.architectures.get("spacy.TorchBiLSTMEncoder.v1")(width=8, depth=2, dropout=0.0)
    ours = build_bilstm_encoder(width=8, depth=2, dropout=0.0)
    spacys.initialize(X=X[:2])
    ours.initialize(X=X[:2])
    torch_lstm(ours).lstm.load_state_dict(torch_lstm(spacys).state_dict())
    for x in X:
        if len(x):
            numpy.testing.assert_allclose(ours.predict([x])[0], spacys.predict([x])[0], atol=1e-6)


def test_output_and_gradient_do_not_depend_on_the_batch():
    fix_random_seed(0)
    X = batch()
    model = build_bilstm_encoder(width=8, depth=2, dropout=0.0)
    model.initialize(X=X[:2])
    Y, backprop = model.begin_update(X)
    dX = backprop([numpy.ones_like(y) for y in Y])
    for x, y, dx in zip(X, Y, dX):
        assert y.shape == x.shape and dx.shape == x.shape
        y_alone, backprop_alone = model.begin_update([x])
        dx_alone = backprop_alone([numpy.ones_like(y_alone[0])])[0]
        numpy.testing.assert_allclose(y_alone[0], y, atol=1e-6)
        numpy.testing.assert_allclose(dx_alone, dx, atol=1e-6)


def test_empty_batch_and_empty_docs():
    model = build_bilstm_encoder(width=8, depth=1, dropout=0.0)
    model.initialize(X=batch()[:2])
    assert model.predict([]) == []
    empty = numpy.zeros((0, 8), dtype="float32")
    assert [y.shape for y in model.predict([empty, empty])] == [(0, 8), (0, 8)]


def test_depth_zero_passes_vectors_through():
    X = batch()
    model = build_bilstm_encoder(width=8, depth=0, dropout=0.0)
    model.initialize(X=X)
    assert all((y == x).all() for x, y in zip(X, model.predict(X)))


@pytest.mark.parametrize("width", [7, 0, -2])
def test_width_must_be_positive_and_even(width):
    with pytest.raises(ValueError, match="E600"):
        build_bilstm_encoder(width=width, depth=1, dropout=0.0)
