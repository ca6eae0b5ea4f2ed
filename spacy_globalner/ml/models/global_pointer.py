"""The GlobalPointer architecture (tok2vec -> dropout -> band span scorer) and
its head layer (packed token vectors -> band span logits).
"""
from typing import Callable, List, Optional, Tuple

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d

from ...errors import Errors
from ...validation import check_dropout, check_int
from ..layers.pytorch_wrapper import add_wrapped_module, convert_tensor_outputs
from ..torch.global_pointer.scorer import GlobalPointerScorer
from . import head_over_tok2vec

ARCHITECTURE = "spacy-globalner.GlobalPointer.v1"


@registry.architectures(ARCHITECTURE)
def build_global_pointer(
    tok2vec: Model[List[Doc], List[Floats2d]],
    head_width: int = 64,
    rope: bool = True,
    efficient: bool = False,
    dropout: float = 0.1,
    mixed_precision: bool = False,
) -> Model[List[Doc], Floats3d]:
    """Build a GlobalPointer span scorer over any tok2vec.

    tok2vec (Model[List[Doc], List[Floats2d]]): Token vectors: an inline
        HashEmbedCNN, a spacy.Tok2VecListener.v1 or a spacy-transformers
        TransformerListener.
    head_width (int): Width of each label's query and key vectors (even).
    rope (bool): Use rotary position embedding; switch off only for ablations.
    efficient (bool): Efficient GlobalPointer (shared q/k plus per-label
        start/end biases): far fewer head parameters when there are many labels.
    dropout (float): Dropout on the token vectors; spaCy's training dropout
        overrides it during `nlp.update`.
    mixed_precision (bool): Run the head under torch autocast on GPU.
    RETURNS (Model[List[Doc], Floats3d]): Logits (n_tokens, width, n_labels)
        for the docs packed one after another; the cells of spans that would
        cross a doc's end are no scores (`band_cell_coordinates` marks them).
    """
    check_int(head_width, "head_width", ARCHITECTURE, error=Errors.E010)
    if head_width % 2:
        raise ValueError(Errors.E010.format(value=head_width))
    check_dropout(dropout, ARCHITECTURE)
    head = global_pointer_head(
        head_width=head_width, rope=rope, efficient=efficient, mixed_precision=mixed_precision
    )
    return head_over_tok2vec(tok2vec, dropout, head)


# The head's Thinc layer --------------------------------------------------


InT = List[Floats2d]
OutT = Floats3d


def global_pointer_head(
    *, head_width: int = 64, rope: bool = True, efficient: bool = False, mixed_precision: bool = False
) -> Model[InT, OutT]:
    """Score every span up to `max_span_width` tokens for every label.

    The batch is packed into one sequence (RoPE positions restart at each doc), so
    no padding is scored. Output row r holds the spans starting at packed token r;
    column w the span ending w tokens later, a cell that is no span when that
    end lies past the doc's (the decoder and the loss leave those out).

    The torch module is built by `init` once nO (the number of labels) is set;
    its input projection infers its width from the first batch or from the
    weights being loaded. The pipe sets attrs["max_span_width"] and
    attrs["score_offset"] (a constant added to every score, see the pipe)
    when it is created, sized or loaded.
    """
    return Model(
        "global_pointer_head",
        forward,
        init=init,
        dims={"nI": None, "nO": None},
        attrs={
            "head_width": head_width,
            "rope": rope,
            "efficient": efficient,
            "mixed_precision": mixed_precision,
            "max_span_width": None,
            "score_offset": 0.0,
        },
    )


def init(model: Model[InT, OutT], X: Optional[InT] = None, Y=None) -> Model[InT, OutT]:
    if not model.layers:
        scorer = GlobalPointerScorer(
            model.get_dim("nO"),
            model.attrs["head_width"],
            rope=model.attrs["rope"],
            efficient=model.attrs["efficient"],
        )
        add_wrapped_module(model, scorer, convert_inputs=_packed_inputs, convert_outputs=convert_tensor_outputs)
    if X is not None and sum(len(x) for x in X):
        model.set_dim("nI", X[0].shape[1], force=True)
        model.layers[0].predict(_with_width(model, X))  # materialise the lazy projection
    return model


def forward(model: Model[InT, OutT], X: InT, is_train: bool) -> Tuple[OutT, Callable]:
    lengths = [len(x) for x in X]
    n_tokens = sum(lengths)
    if n_tokens == 0:
        scores = model.ops.alloc3f(0, 0, model.get_dim("nO"))
        return scores, lambda d_scores: [model.ops.alloc2f(*x.shape) for x in X]
    scores, backprop_scores = model.layers[0](_with_width(model, X), is_train)

    def backprop(d_scores: OutT) -> InT:
        d_packed = backprop_scores(d_scores)
        return model.ops.unflatten(d_packed, model.ops.asarray1i(lengths))

    return scores, backprop


def _band_width(model: Model, lengths: List[int]) -> int:
    max_width = model.attrs["max_span_width"]
    longest = max(lengths)
    return longest if max_width is None else min(max_width, longest)


def _with_width(model: Model, X: InT):
    return X, _band_width(model, [len(x) for x in X]), model.attrs["score_offset"]


def _packed_inputs(model: Model, X_width, is_train: bool):
    X, width, offset = X_width
    ops = model.ops
    lengths = numpy.asarray([len(x) for x in X], dtype="int64")
    packed = ops.flatten(X)
    doc_starts = numpy.repeat(numpy.cumsum(lengths) - lengths, lengths)
    positions = numpy.arange(int(lengths.sum())) - doc_starts
    packed_torch = xp2torch(packed, requires_grad=is_train)
    device = packed_torch.device
    args = ArgsKwargs(
        args=(
            packed_torch,
            torch.as_tensor(positions, device=device),
            width,
            offset,
        ),
        kwargs={},
    )

    def backprop(d_args: ArgsKwargs) -> Floats2d:
        return torch2xp(d_args.args[0])

    return args, backprop
