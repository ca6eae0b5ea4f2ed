"""A BiLSTM context encoder for spaCy's Tok2Vec whose output for a doc does not
depend on the other docs of its batch.

spaCy's `spacy.TorchBiLSTMEncoder.v1` runs torch's LSTM over the padded batch,
so the backward direction of a short doc starts from padding. This encoder
takes the same settings and runs each direction so that no doc reads padding
(ml/torch/bilstm.py).
"""
from typing import Callable, List, Tuple

import torch
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, noop, torch2xp, with_padded, xp2torch
from thinc.types import Floats2d, Padded

from ...errors import Errors
from ...validation import check_dropout, check_int
from ..layers.pytorch_wrapper import pytorch_wrapper
from ..torch.bilstm import BiLSTM

ARCHITECTURE = "spacy-globalner.BiLSTMEncoder.v1"


@registry.architectures(ARCHITECTURE)
def build_bilstm_encoder(width: int, depth: int, dropout: float) -> Model[List[Floats2d], List[Floats2d]]:
    """Encode context with bidirectional LSTM layers, each doc on its own tokens:
    a doc's vectors are the same whatever else is in its batch. A drop-in for
    `spacy.TorchBiLSTMEncoder.v1` (same settings, same width in and out).

    width (int): The input and output width (even: each direction has width / 2).
    depth (int): The number of recurrent layers; 0 passes the vectors through.
    dropout (float): Dropout on the outputs of each LSTM layer but the last.
    RETURNS (Model[List[Floats2d], List[Floats2d]]): The encoder.
    """
    check_int(depth, "depth", ARCHITECTURE, least=0)
    check_dropout(dropout, ARCHITECTURE)
    if depth == 0:
        return noop()
    check_int(width, "width", ARCHITECTURE, error=Errors.E600)
    if width % 2:
        raise ValueError(Errors.E600.format(value=width))
    lstm = pytorch_wrapper(
        BiLSTM(width, depth, dropout),
        convert_inputs=_convert_inputs,
        convert_outputs=_convert_outputs,
    )
    lstm.set_dim("nI", width)
    lstm.set_dim("nO", width)
    return with_padded(lstm)


def _convert_inputs(model: Model, Xp: Padded, is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    lengths = torch.as_tensor(model.ops.to_numpy(Xp.lengths), dtype=torch.int64)

    def backprop(d_inputs: ArgsKwargs) -> Padded:
        return Padded(torch2xp(d_inputs.args[0]), Xp.size_at_t, Xp.lengths, Xp.indices)

    inputs = xp2torch(Xp.data, requires_grad=is_train, device=model.shims[0].device)
    return ArgsKwargs(args=(inputs, lengths), kwargs={}), backprop


def _convert_outputs(model: Model, inputs_outputs: Tuple[Padded, torch.Tensor], is_train: bool):
    Xp, Y = inputs_outputs

    def backprop(dYp: Padded) -> ArgsKwargs:
        return ArgsKwargs(args=(Y,), kwargs={"grad_tensors": xp2torch(dYp.data, device=Y.device)})

    return Padded(torch2xp(Y), Xp.size_at_t, Xp.lengths, Xp.indices), backprop
