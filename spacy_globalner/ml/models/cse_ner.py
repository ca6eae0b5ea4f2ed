"""The registered CSENER architecture and its Thinc layer: tok2vec -> dropout
-> per token a start logit, an end logit and class logits over the labels
plus "other" (CSE tagging, Zöllner et al., 2021).
"""
from typing import Callable, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d, Floats3d

from ...validation import check_dropout
from ..layers.pytorch_wrapper import init_padded_head
from ..torch.cse_ner.scorer import CSENERScorer
from . import head_over_tok2vec

InT = List[Floats2d]
OutT = Floats3d
ARCHITECTURE = "spacy-globalner.CSENER.v1"


@registry.architectures(ARCHITECTURE)
def build_cse_ner(
    tok2vec: Model[List[Doc], List[Floats2d]], dropout: float = 0.1, mixed_precision: bool = False
) -> Model[List[Doc], OutT]:
    """Build the CSE tagging head of Zöllner et al. (2021) over any tok2vec.

    tok2vec, dropout: As for spacy-globalner.GlobalPointer.v1.
    mixed_precision (bool): Run the head under torch autocast on GPU (the loss
        is computed in float32 regardless).
    RETURNS (Model[List[Doc], Floats3d]): Logits (n_docs, max_length,
        2 + n_labels + 1), zero-padded: start, end, then the classes with
        "other" last.
    """
    check_dropout(dropout, ARCHITECTURE)
    head = cse_ner_head(mixed_precision=mixed_precision)
    return head_over_tok2vec(tok2vec, dropout, head)


def cse_ner_head(*, mixed_precision: bool = False) -> Model[InT, OutT]:
    """Score start, end and class of every token. nO is the number of entity
    labels; the torch module is built by `init` once nO is set.

    mixed_precision (bool): Run the head under torch autocast on GPU.
    RETURNS (Model[List[Floats2d], Floats3d]): Padded logits.
    """
    return Model(
        "cse_ner_head",
        forward,
        init=init,
        dims={"nI": None, "nO": None},
        attrs={"mixed_precision": mixed_precision},
    )


def init(model: Model[InT, OutT], X: Optional[InT] = None, Y=None) -> Model[InT, OutT]:
    return init_padded_head(model, X, lambda: CSENERScorer(model.get_dim("nO")))


def forward(model: Model[InT, OutT], X: InT, is_train: bool) -> Tuple[OutT, Callable]:
    if not X:
        return model.ops.alloc3f(0, 0, 2 + model.get_dim("nO") + 1), lambda d_scores: []
    return model.layers[0](X, is_train)

