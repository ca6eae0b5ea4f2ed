"""The linear-chain CRF head as a Thinc layer: token vectors -> padded
emission scores over the IOB tags, plus the transition matrix.
"""
from typing import Callable, List, Optional, Tuple

import torch
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d

from ...decoding.lcrf_ner.iob import iob_forbidden, n_iob_tags
from ..torch.lcrf_ner.scorer import LCRFNERScorer
from .pytorch_wrapper import pytorch_wrapper

InT = List[Floats2d]
OutT = Tuple[Floats3d, Floats2d]


def lcrf_ner_head(*, learn_penalties: bool = True, mixed_precision: bool = False) -> Model[InT, OutT]:
    """Score the IOB tags of every token, and the transitions between them.

    nO is the number of entity labels; the tags are laid out as in
    decoding/iob.py (B-*, I-*, O, then START and END in the transitions).
    The torch module is built by `init` once nO is set; its emission
    projection infers its input width from the first batch or from the
    weights being loaded.

    learn_penalties (bool): Learn how hard forbidden transitions are penalised
        (see PenalisedTransitions); False gives a plain CRF.
    mixed_precision (bool): Run the head under torch autocast on GPU.
    RETURNS (Model[List[Floats2d], Tuple[Floats3d, Floats2d]]): Emissions
        (n_docs, max_length, n_tags), zero-padded, and the transitions
        [from, to], (n_tags + 2, n_tags + 2).
    """
    return Model(
        "lcrf_ner_head",
        forward,
        init=init,
        dims={"nI": None, "nO": None},
        attrs={"learn_penalties": learn_penalties, "mixed_precision": mixed_precision},
    )


def init(model: Model[InT, OutT], X: Optional[InT] = None, Y=None) -> Model[InT, OutT]:
    if not model.layers:
        forbidden = torch.as_tensor(iob_forbidden(model.get_dim("nO")))
        head = LCRFNERScorer(forbidden, learn_penalties=model.attrs["learn_penalties"])
        model._layers.append(
            pytorch_wrapper(
                head,
                convert_inputs=_padded_inputs,
                convert_outputs=_crf_outputs,
                mixed_precision=model.attrs["mixed_precision"],
            )
        )
    if X is not None and sum(len(x) for x in X):
        model.set_dim("nI", X[0].shape[1], force=True)
        model.layers[0].predict(X)  # materialise the lazy projection
    return model


def forward(model: Model[InT, OutT], X: InT, is_train: bool) -> Tuple[OutT, Callable]:
    if not X:
        n_tags = n_iob_tags(model.get_dim("nO"))
        empty = (model.ops.alloc3f(0, 0, n_tags), model.ops.alloc2f(n_tags + 2, n_tags + 2))
        return empty, lambda d_scores: []
    return model.layers[0](X, is_train)


def _padded_inputs(model: Model, X: InT, is_train: bool):
    ops = model.ops
    lengths = [len(x) for x in X]
    padded = xp2torch(ops.pad(X), requires_grad=is_train)

    def backprop(d_args: ArgsKwargs) -> InT:
        return ops.unpad(torch2xp(d_args.args[0]), lengths)

    return ArgsKwargs(args=(padded,), kwargs={}), backprop


def _crf_outputs(model: Model, inputs_outputs, is_train: bool):
    _, (emissions, transitions) = inputs_outputs

    def backprop(d_scores: OutT) -> ArgsKwargs:
        d_emissions, d_transitions = d_scores
        # fp32 until the shim's grad scaler has scaled them; backward then
        # casts them to the outputs' dtype (half under autocast).
        grads = [xp2torch(d_emissions).float(), xp2torch(d_transitions).float()]
        return ArgsKwargs(args=((emissions, transitions),), kwargs={"grad_tensors": grads})

    return (torch2xp(emissions), torch2xp(transitions)), backprop
