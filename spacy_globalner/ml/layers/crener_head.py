"""The CRENER grid head as a Thinc layer: token vectors + windows -> one tag grid per window."""
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
import torch
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d, Ints2d

from ..torch.crener.scorer import CRENERScorer
from .pytorch_wrapper import pytorch_wrapper

InT = Tuple[List[Floats2d], Ints2d]
OutT = List[Floats3d]

# Window plan columns (see decoding.grid_windows).
_DOC, _START, _END = 0, 1, 2


def crener_head(
    *,
    token_width: int = 128,
    context_depth: int = 1,
    grid_width: int = 64,
    distance_width: int = 16,
    region_width: int = 16,
    conv_width: int = 48,
    dilations: Sequence[int] = (1, 2, 3),
    enhancement_rounds: int = 1,
    attention_heads: int = 4,
    biaffine_width: int = 64,
    predictor_width: int = 64,
    learned_threshold: bool = True,
    dropout: float = 0.1,
    max_batch_cells: int = 2**18,
    mixed_precision: bool = False,
) -> Model[InT, OutT]:
    """Score every tag of every token pair inside each window.

    Input: the token vectors of each doc and the window plan (one row per
    window: doc, start, end, ...). Output: one (length, length, 1 + nO) logit
    grid per window, channel 0 the threshold class; its backprop takes the
    gradients of those grids.

    Windows are sorted by length and run in chunks of at most `max_batch_cells`
    grid cells, each padded to its own longest window and holding only windows
    that fill at least half of it, so that one long window neither pads a
    batch of short ones nor holds the whole batch's grids in memory at
    prediction time.

    The torch module is built by `init` once nO (the number of tags) is set;
    its input projection infers its width from the first batch or from the
    weights being loaded.
    """
    return Model(
        "crener_head",
        forward,
        init=init,
        dims={"nI": None, "nO": None},
        attrs={
            "scorer_options": {
                "token_width": token_width,
                "context_depth": context_depth,
                "grid_width": grid_width,
                "distance_width": distance_width,
                "region_width": region_width,
                "conv_width": conv_width,
                "dilations": tuple(dilations),
                "enhancement_rounds": enhancement_rounds,
                "attention_heads": attention_heads,
                "biaffine_width": biaffine_width,
                "predictor_width": predictor_width,
                "learned_threshold": learned_threshold,
            },
            "dropout_rate": dropout,
            "max_batch_cells": max_batch_cells,
            "mixed_precision": mixed_precision,
        },
    )


def init(model: Model[InT, OutT], X: Optional[InT] = None, Y=None) -> Model[InT, OutT]:
    if not model.layers:
        scorer = CRENERScorer(
            model.get_dim("nO"), dropout=model.attrs["dropout_rate"], **model.attrs["scorer_options"]
        )
        model._layers.append(
            pytorch_wrapper(
                scorer,
                convert_inputs=_padded_inputs,
                convert_outputs=_window_grids,
                mixed_precision=model.attrs["mixed_precision"],
            )
        )
    if X is not None:
        vectors, windows = X
        if len(windows):
            model.set_dim("nI", vectors[0].shape[1], force=True)
            # Materialise the lazy input projection on the shortest window.
            shortest = int(numpy.argmin(windows[:, _END] - windows[:, _START]))
            model.layers[0].predict(_window_vectors(vectors, windows[shortest : shortest + 1]))
    return model


def forward(model: Model[InT, OutT], X: InT, is_train: bool) -> Tuple[OutT, Callable]:
    vectors, windows = X
    wrapper = model.layers[0]
    wrapper.shims[0]._model.set_dropout_rate(model.attrs["dropout_rate"])
    grids: List[Optional[Floats3d]] = [None] * len(windows)
    callbacks = []
    for chunk in _chunks(windows, model.attrs["max_batch_cells"]):
        chunk_grids, backprop_chunk = wrapper(_window_vectors(vectors, windows[chunk]), is_train)
        for index, grid in zip(chunk.tolist(), chunk_grids):
            grids[index] = grid
        callbacks.append((chunk, backprop_chunk))

    def backprop(d_grids: OutT) -> List[Floats2d]:
        d_vectors = [model.ops.alloc2f(*x.shape) for x in vectors]
        for chunk, backprop_chunk in callbacks:
            d_windows = backprop_chunk([d_grids[index] for index in chunk.tolist()])
            # Overlapping windows add up their gradients on shared tokens.
            for (doc, start, end), d_window in zip(windows[chunk, :_END + 1].tolist(), d_windows):
                d_vectors[doc][start:end] += d_window
        return d_vectors

    return grids, backprop


def _chunks(windows: Ints2d, max_cells: int) -> List[numpy.ndarray]:
    """Window indices, longest first, in chunks whose padded grids fit
    max_cells and where no window fills less than half of its padded grid
    (a window larger than max_cells runs alone)."""
    lengths = numpy.asarray(windows[:, _END] - windows[:, _START])
    order = numpy.argsort(-lengths, kind="stable")
    cells = (lengths[order].astype("int64") ** 2).tolist()
    chunks = []
    lo = 0
    for hi in range(1, len(cells) + 1):
        # Sorted longest first, so the chunk's first window sets its padding.
        if hi == len(cells) or (hi - lo + 1) * cells[lo] > max_cells or 2 * cells[hi] < cells[lo]:
            chunks.append(order[lo:hi])
            lo = hi
    return chunks


def _window_vectors(vectors: List[Floats2d], windows: Ints2d) -> List[Floats2d]:
    return [vectors[doc][start:end] for doc, start, end in windows[:, : _END + 1].tolist()]


def _padded_inputs(model: Model, X: List[Floats2d], is_train: bool):
    lengths = [len(x) for x in X]
    padded = model.ops.pad(X)
    padded_torch = xp2torch(padded, requires_grad=is_train)
    args = ArgsKwargs(args=(padded_torch, torch.as_tensor(lengths, dtype=torch.int64)), kwargs={})

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        d_padded = torch2xp(d_args.args[0])
        return [d_padded[i, :length] for i, length in enumerate(lengths)]

    return args, backprop


def _window_grids(model: Model, inputs_outputs, is_train: bool):
    X, scores = inputs_outputs
    lengths = [len(x) for x in X]
    xp = model.ops.xp
    padded = torch2xp(scores)
    # Copies, so that the padded chunk can be freed once its windows are out.
    grids = [xp.ascontiguousarray(padded[i, :n, :n]) for i, n in enumerate(lengths)]

    def backprop(d_grids: List[Floats3d]) -> ArgsKwargs:
        d_padded = model.ops.alloc(padded.shape, dtype="float32")
        for i, (n, d_grid) in enumerate(zip(lengths, d_grids)):
            d_padded[i, :n, :n] = d_grid
        # fp32 until the shim's grad scaler has scaled it; backward then
        # casts it to the scores' dtype (half under autocast).
        d_torch = xp2torch(d_padded)
        return ArgsKwargs(args=(scores,), kwargs={"grad_tensors": [d_torch]})

    return grids, backprop
