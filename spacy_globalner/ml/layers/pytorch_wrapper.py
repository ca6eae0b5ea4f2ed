"""A PyTorchWrapper whose gradient scaler unscales each backward pass once.

Thinc's PyTorchShim scales the output gradients by the grad scaler's factor,
runs backward, then un-scales every parameter's `.grad`, the sum of all
backward passes since the last optimizer step. Where a layer backpropagates
more than once per step (the CRENER head runs its windows in chunks; spaCy
calls `update` `accumulate_gradient` times per step), the gradients of all but
the last pass are divided by the scale again: 2**16 on CUDA. The shim below
sets the accumulated gradients aside for the duration of each backward pass,
so the scaler only ever sees, and unscales, that pass's own gradients.

`mixed_precision = true` needs CUDA: torch autocasts on CUDA only and Thinc's
grad scaler refuses CPU tensors, at the first update, with an error that
names neither the setting nor the fix. The shim raises E231 instead on its
first forward pass when the module is not on a CUDA device, which for a new
head is its initialization on a sample of the training data (every head
materialises its lazy layers there). A pipeline trained with mixed precision
on a GPU and loaded on a CPU still runs: loading turns mixed precision off
where there is no CUDA device, as autocast there changes nothing.

This module is the package's one reader of Thinc's private attributes
(THINC_INTERNALS): the shim's module, mixed-precision flag and grad scaler,
and a layer's list of sublayers, which a head fills once its torch module is
built. tests/ml/layers/test_thinc_internals.py fails, naming them, when a
Thinc release renames one.

The shim also reads the optimizer's parameter averages in `use_params`, which
spaCy enters to evaluate and save with `use_averages = true`. Thinc's
PyTorchShim looks them up under string keys, while its `finish_update` stores
them under (shim id, parameter name), so it never finds them and the torch
layers are evaluated and saved with their live weights.
"""
import contextlib
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from thinc.api import ArgsKwargs, Model, PyTorchGradScaler, PyTorchShim, torch2xp, xp2torch
from thinc.layers.pytorchwrapper import forward as pytorch_forward
from thinc.types import Floats2d

from ...errors import Errors

# The private attributes of Thinc's classes that this module reads or sets.
THINC_INTERNALS: Dict[str, Tuple[str, ...]] = {
    "PyTorchShim": ("_model", "_mixed_precision", "_grad_scaler"),
    "Model": ("_layers",),
}


class AccumulatingPyTorchShim(PyTorchShim):
    """PyTorchShim that unscales the gradients of each backward pass once, so
    any number of passes may accumulate before `finish_update`, and that
    refuses mixed precision off CUDA with a catalogue error."""

    def predict(self, inputs):
        self._check_mixed_precision()
        return super().predict(inputs)

    def begin_update(self, inputs):
        self._check_mixed_precision()
        output, backprop_scaled = super().begin_update(inputs)

        def backprop(grads):
            params = [param for param in self._model.parameters() if param.grad is not None]
            held = [param.grad for param in params]
            for param in params:
                param.grad = None
            try:
                d_inputs = backprop_scaled(grads)
            finally:
                for param, grad in zip(params, held):
                    if param.grad is None:
                        param.grad = grad
                    else:
                        param.grad.add_(grad)
            return d_inputs

        return output, backprop

    def from_bytes(self, bytes_data):
        super().from_bytes(bytes_data)
        if self._mixed_precision and self.device.type != "cuda":
            # Trained with mixed precision on a GPU, loaded on a CPU: run in fp32.
            self._mixed_precision = False
            self._grad_scaler = PyTorchGradScaler(enabled=False)
        return self

    def _check_mixed_precision(self) -> None:
        if self._mixed_precision and self.device.type != "cuda":
            raise ValueError(Errors.E231.format(module=type(self._model).__name__, device=self.device))

    @property
    def module(self) -> torch.nn.Module:
        """The wrapped torch module."""
        return self._model

    @property
    def grad_scaler(self) -> PyTorchGradScaler:
        """The grad scaler of mixed precision (disabled without it)."""
        return self._grad_scaler

    @grad_scaler.setter
    def grad_scaler(self, scaler: PyTorchGradScaler) -> None:
        self._grad_scaler = scaler

    @contextlib.contextmanager
    def use_params(self, params):
        """Hold the averages `params` keeps of this shim's parameters, under the
        keys `finish_update` gives them, in the module for the block."""
        named = dict(self._model.named_parameters())
        averages = {
            key[1]: value
            for key, value in params.items()
            if isinstance(key, tuple) and key[0] == self.id and key[1] in named
        }
        live = {name: named[name].detach().clone() for name in averages}
        with torch.no_grad():
            for name, value in averages.items():
                named[name].copy_(xp2torch(value, device=self.device))
        try:
            yield
        finally:
            with torch.no_grad():
                for name, value in live.items():
                    named[name].copy_(value)


def pytorch_wrapper(
    module: Any, *, convert_inputs: Callable, convert_outputs: Callable, mixed_precision: bool = False
) -> Model:
    """Wrap a torch module as Thinc's PyTorchWrapper_v2 does, with a shim whose
    grad scaler is correct when gradients accumulate over several backward passes.

    module (torch.nn.Module): The module to wrap.
    convert_inputs (Callable): Thinc inputs -> (ArgsKwargs, backprop).
    convert_outputs (Callable): (inputs, torch outputs) -> (Thinc outputs, backprop).
    mixed_precision (bool): Run the module under CUDA autocast, with a grad scaler.
    RETURNS (Model): The wrapped module; it saves and loads as PyTorchWrapper_v2 does.
    """
    return Model(
        "pytorch",
        pytorch_forward,
        attrs={"convert_inputs": convert_inputs, "convert_outputs": convert_outputs},
        shims=[AccumulatingPyTorchShim(module, mixed_precision=mixed_precision)],
        dims={"nI": None, "nO": None},
    )


def add_wrapped_module(model: Model, module: Any, *, convert_inputs: Callable, convert_outputs: Callable) -> None:
    """Give a head layer its one sublayer: `module` wrapped by `pytorch_wrapper`,
    in mixed precision where the head's "mixed_precision" attr says so.

    model (Model): The head layer, with a "mixed_precision" attr.
    module (torch.nn.Module): The head's torch module.
    convert_inputs, convert_outputs (Callable): As for `pytorch_wrapper`.
    """
    model._layers.append(
        pytorch_wrapper(
            module,
            convert_inputs=convert_inputs,
            convert_outputs=convert_outputs,
            mixed_precision=model.attrs["mixed_precision"],
        )
    )


def wrapped_module(model: Model) -> torch.nn.Module:
    """The torch module that a `pytorch_wrapper` layer runs.

    model (Model): A layer made by `pytorch_wrapper` (or Thinc's PyTorchWrapper).
    RETURNS (torch.nn.Module): Its module, the one its weights load into.
    """
    return shim_module(model.shims[0])


def shim_module(shim: Any) -> Optional[torch.nn.Module]:
    """The torch module behind any Thinc PyTorchShim (ours, Thinc's own, or a
    subclass such as spacy-transformers'), or None for another shim."""
    module = getattr(shim, "_model", None)
    return module if isinstance(module, torch.nn.Module) else None


def missing_thinc_internals() -> List[str]:
    """The THINC_INTERNALS that this Thinc release lacks ("Class.attribute"),
    found on a wrapped module and a layer."""
    layer = pytorch_wrapper(torch.nn.Linear(1, 1), convert_inputs=None, convert_outputs=None)
    found = {"PyTorchShim": layer.shims[0], "Model": layer}
    return [
        f"{owner}.{name}"
        for owner, names in THINC_INTERNALS.items()
        for name in names
        if not hasattr(found[owner], name)
    ]


def convert_tensor_outputs(model: Model, inputs_outputs: Tuple[Any, Any], is_train: bool) -> Tuple[Any, Callable]:
    """Thinc's default output conversion for a module that returns a tensor or a
    tuple of tensors, with the output gradients handed to backward in fp32: the
    shim's grad scaler scales them first, then backward casts them to the
    outputs' dtype (half under autocast).

    inputs_outputs (Tuple[Any, Any]): The Thinc inputs and the torch outputs.
    RETURNS (Tuple[Any, Callable]): The outputs as arrays, and the conversion of
        their gradients to torch's backward arguments.
    """
    _, outputs = inputs_outputs
    is_tuple = isinstance(outputs, tuple)
    tensors = list(outputs) if is_tuple else [outputs]

    def backprop(d_outputs: Any) -> ArgsKwargs:
        grads = [xp2torch(d_output).float() for d_output in (d_outputs if is_tuple else [d_outputs])]
        # An output that needs no gradient (the softmax baseline's constant
        # transitions) is left out of backward.
        pairs = [(tensor, grad) for tensor, grad in zip(tensors, grads) if tensor.requires_grad]
        return ArgsKwargs(args=([t for t, _ in pairs],), kwargs={"grad_tensors": [g for _, g in pairs]})

    converted = [torch2xp(tensor) for tensor in tensors]
    return (tuple(converted) if is_tuple else converted[0]), backprop


def convert_padded_inputs(model: Model, X: List[Floats2d], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """Pad a batch of token vectors into one (n_docs, max_length, width) tensor,
    the input of the heads whose module takes padded vectors alone.

    X (List[Floats2d]): The token vectors of each doc.
    RETURNS (Tuple[ArgsKwargs, Callable]): The module's arguments, and the
        conversion of the input gradient back to one array per doc.
    """
    ops = model.ops
    lengths = [len(x) for x in X]
    padded = xp2torch(ops.pad(X), requires_grad=is_train)

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        return ops.unpad(torch2xp(d_args.args[0]), lengths)

    return ArgsKwargs(args=(padded,), kwargs={}), backprop


def init_padded_head(model: Model, X: Optional[List[Floats2d]], make_module: Callable[[], Any]) -> Model:
    """The `init` of a head layer that wraps one torch module over padded token
    vectors: build the module once (its nO must be set by then), and with a
    sample, set nI and run it once to materialise its lazy layers.

    model (Model): The head layer, with a "mixed_precision" attr.
    X (Optional[List[Floats2d]]): Sample token vectors.
    make_module (Callable[[], torch.nn.Module]): Builds the torch module.
    RETURNS (Model): `model`.
    """
    if not model.layers:
        add_wrapped_module(
            model, make_module(), convert_inputs=convert_padded_inputs, convert_outputs=convert_tensor_outputs
        )
    if X is not None and sum(len(x) for x in X):
        model.set_dim("nI", X[0].shape[1], force=True)
        model.layers[0].predict(X)  # materialise the lazy projection
    return model
