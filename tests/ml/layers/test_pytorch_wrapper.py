"""The shared output converter: a tensor or a tuple of tensors to arrays, and
their gradients back to torch in fp32, through the wrapper the heads use."""
import numpy
import pytest
import torch
from thinc.api import ArgsKwargs

from spacy_globalner.ml.layers.pytorch_wrapper import convert_tensor_outputs, pytorch_wrapper


class Pair(torch.nn.Module):
    """x -> (x * w, sum of x * w per row): a tuple of outputs, as the CRF head returns."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.arange(1.0, width + 1.0))

    def forward(self, x):
        scaled = x * self.weight
        return scaled, scaled.sum(dim=1)


class Single(Pair):
    def forward(self, x):
        return x * self.weight


def _inputs(model, X, is_train):
    x = torch.as_tensor(X, dtype=torch.float32).requires_grad_(is_train)

    def backprop(d_args: ArgsKwargs):
        return d_args.args[0].detach().numpy()

    return ArgsKwargs(args=(x,), kwargs={}), backprop


X = numpy.arange(6, dtype="float32").reshape(2, 3)


def test_tuple_outputs_and_their_gradients():
    model = pytorch_wrapper(Pair(3), convert_inputs=_inputs, convert_outputs=convert_tensor_outputs)
    (scaled, sums), backprop = model(X, is_train=True)
    assert isinstance(scaled, numpy.ndarray) and isinstance(sums, numpy.ndarray)
    numpy.testing.assert_allclose(scaled, X * [1.0, 2.0, 3.0])
    numpy.testing.assert_allclose(sums, (X * [1.0, 2.0, 3.0]).sum(axis=1))
    d_scaled = numpy.ones_like(scaled)
    d_sums = numpy.asarray([1.0, 2.0], dtype="float32")
    dX = backprop((d_scaled, d_sums))
    # d/dx (x * w) = w for both outputs; the row sum's gradient is weighted per row.
    numpy.testing.assert_allclose(dX, [[1.0, 2.0, 3.0]] * 2 + numpy.asarray([[1.0], [2.0]]) * [1.0, 2.0, 3.0])
    weight_grad = model.shims[0]._model.weight.grad.numpy()
    numpy.testing.assert_allclose(weight_grad, X.sum(axis=0) + (X * [[1.0], [2.0]]).sum(axis=0))


def test_single_output_and_its_gradient():
    model = pytorch_wrapper(Single(3), convert_inputs=_inputs, convert_outputs=convert_tensor_outputs)
    scaled, backprop = model(X, is_train=True)
    numpy.testing.assert_allclose(scaled, X * [1.0, 2.0, 3.0])
    numpy.testing.assert_allclose(backprop(numpy.full_like(scaled, 2.0)), [[2.0, 4.0, 6.0]] * 2)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_gradients_go_back_in_fp32(dtype):
    """The grad scaler scales fp32 gradients; backward casts them to the outputs' dtype."""
    outputs = (torch.zeros(2, 3, requires_grad=True), torch.zeros(2, requires_grad=True))
    _, backprop = convert_tensor_outputs(None, (X, outputs), True)
    args = backprop((numpy.ones((2, 3), dtype=dtype), numpy.ones(2, dtype=dtype)))
    assert [a is b for a, b in zip(args.args[0], outputs)] == [True, True]
    assert [grad.dtype for grad in args.kwargs["grad_tensors"]] == [torch.float32, torch.float32]
    _, backprop = convert_tensor_outputs(None, (X, outputs[0]), True)
    args = backprop(numpy.ones((2, 3), dtype=dtype))
    assert args.args[0][0] is outputs[0]
    assert args.kwargs["grad_tensors"][0].dtype == torch.float32


def test_outputs_without_gradient_are_left_out_of_backward():
    """The softmax baseline's transitions are a constant: backward gets only the emissions."""
    emissions, constant = torch.zeros(2, 3, requires_grad=True), torch.zeros(2)
    _, backprop = convert_tensor_outputs(None, (X, (emissions, constant)), True)
    args = backprop((numpy.ones((2, 3), dtype="float32"), numpy.ones(2, dtype="float32")))
    assert len(args.args[0]) == 1 and args.args[0][0] is emissions
    assert len(args.kwargs["grad_tensors"]) == 1
