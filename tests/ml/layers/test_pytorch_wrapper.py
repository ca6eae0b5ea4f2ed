"""The shared output converter: a tensor or a tuple of tensors to arrays, and
their gradients back to torch in fp32, through the wrapper the heads use."""
import numpy
import pytest
import torch
from thinc.api import Adam, ArgsKwargs, Model

from spacy_globalner.ml.layers.pytorch_wrapper import (
    convert_padded_inputs,
    convert_tensor_outputs,
    init_padded_head,
    pytorch_wrapper,
    wrapped_module,
)


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
    weight_grad = wrapped_module(model).weight.grad.numpy()
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


def test_padded_inputs_and_their_gradients_back_per_doc():
    """Docs of different lengths go to the module as one zero-padded tensor."""
    docs = [numpy.ones((3, 2), dtype="float32"), numpy.full((1, 2), 2.0, dtype="float32")]
    args, backprop = convert_padded_inputs(Model("head", lambda *a: None), docs, True)
    (padded,) = args.args
    assert padded.shape == (2, 3, 2) and padded.requires_grad
    numpy.testing.assert_allclose(padded[1].detach().numpy(), [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    d_padded = torch.arange(12.0).reshape(2, 3, 2)
    d_docs = backprop(ArgsKwargs(args=(d_padded,), kwargs={}))
    assert [d.shape for d in d_docs] == [(3, 2), (1, 2)]
    numpy.testing.assert_allclose(d_docs[1], [[6.0, 7.0]])


def test_init_padded_head_builds_the_module_once_and_sets_nI():
    built = []

    def make_module():
        built.append(1)
        return torch.nn.LazyLinear(4)

    head = Model(
        "head",
        lambda model, X, is_train: model.layers[0](X, is_train),
        dims={"nI": None},
        attrs={"mixed_precision": False},
    )
    docs = [numpy.ones((3, 5), dtype="float32"), numpy.ones((2, 5), dtype="float32")]
    init_padded_head(head, docs, make_module)
    init_padded_head(head, docs, make_module)
    assert len(built) == 1 and head.get_dim("nI") == 5
    assert head.predict(docs).shape == (2, 3, 4)
    # Without a sample (or with empty docs) nothing is run and nI stays unset.
    empty_head = Model("head", lambda *a: None, dims={"nI": None}, attrs={"mixed_precision": False})
    init_padded_head(empty_head, [numpy.zeros((0, 5), dtype="float32")], make_module)
    assert len(empty_head.layers) == 1 and not empty_head.has_dim("nI")


def test_use_params_holds_the_optimizers_averages_for_the_block():
    """spaCy evaluates and saves inside `use_params(optimizer.averages)` when
    `use_averages = true`; Thinc's own PyTorchShim never finds the averages."""
    model = pytorch_wrapper(Single(3), convert_inputs=_inputs, convert_outputs=convert_tensor_outputs)
    optimizer = Adam(0.1, use_averages=True)
    for _ in range(5):
        Y, backprop = model(X, is_train=True)
        backprop(numpy.ones_like(Y))
        model.finish_update(optimizer)
    shim = model.shims[0]
    live = shim.module.weight.detach().clone()
    average = optimizer.averages[(shim.id, "weight")]
    assert not numpy.allclose(average, live.numpy())
    with model.use_params(optimizer.averages):
        numpy.testing.assert_array_equal(shim.module.weight.detach().numpy(), average)
        numpy.testing.assert_allclose(model.predict(X), X * average)
    assert torch.equal(shim.module.weight.detach(), live)
    assert shim.module.weight.requires_grad


def test_use_params_without_averages_leaves_the_weights():
    model = pytorch_wrapper(Single(3), convert_inputs=_inputs, convert_outputs=convert_tensor_outputs)
    live = wrapped_module(model).weight.detach().clone()
    with model.use_params({(model.shims[0].id + 1, "weight"): numpy.zeros(3, dtype="float32")}):
        assert torch.equal(wrapped_module(model).weight.detach(), live)
