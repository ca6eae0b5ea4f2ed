"""The LCRFNER architecture (tok2vec -> dropout -> linear emissions over the
tags and a linear-chain CRF's transition matrix) and its head layer (token
vectors -> padded emission scores, plus the transition matrix).
"""
from typing import Callable, List, Optional, Tuple

import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d, Floats3d

from ...decoding.lcrf_ner.schemes import check_tag_scheme, forbidden_transitions
from ...decoding.lcrf_ner.schemes import n_tags as scheme_tags
from ...errors import Errors
from ...validation import check_dropout
from ..layers.pytorch_wrapper import init_padded_head
from ..torch.lcrf_ner.scorer import LCRFNERScorer
from . import head_over_tok2vec

InT = List[Floats2d]
OutT = Tuple[Floats3d, Floats2d]
ARCHITECTURE = "spacy-globalner.LCRFNER.v1"


@registry.architectures(ARCHITECTURE)
def build_lcrf_ner(
    tok2vec: Model[List[Doc], List[Floats2d]],
    dropout: float = 0.1,
    mixed_precision: bool = False,
    transitions: str = "penalised",
    tag_scheme: str = "iob",
) -> Model[List[Doc], OutT]:
    """Build the flat-NER CRF head of Zöllner et al. (2021) over any tok2vec.

    tok2vec, dropout: As for spacy-globalner.GlobalPointer.v1.
    mixed_precision (bool): Run the head under torch autocast on GPU (the CRF
        loss is computed in float32 regardless).
    transitions (str): "penalised": a CRF whose forbidden
        transitions carry learned penalties (the paper's LCRF_NER); "crf": a
        plain CRF (the ablation); "none": no transitions, the softmax baseline
        (the transition matrix is all zero, so the loss is the tokens'
        softmax cross-entropy and decoding is argmax, then Entity-Fix).
    tag_scheme (str): "iob" or "bioes" (BILUO): the tags the head emits and
        whose forbidden transitions it penalises.
    RETURNS (Model[List[Doc], Tuple[Floats3d, Floats2d]]): Emissions (n_docs,
        max_length, n_tags), padded, and transitions [from, to] over the tags,
        START and END.
    """
    check_dropout(dropout, ARCHITECTURE)
    head = lcrf_ner_head(
        transitions=transitions,
        tag_scheme=check_tag_scheme(tag_scheme),
        mixed_precision=mixed_precision,
    )
    return head_over_tok2vec(tok2vec, dropout, head)


# The head's Thinc layer --------------------------------------------------

TRANSITIONS = ("none", "crf", "penalised")


def lcrf_ner_head(
    *,
    transitions: str = "penalised",
    tag_scheme: str = "iob",
    mixed_precision: bool = False,
) -> Model[InT, OutT]:
    """Score the tags of every token, and the transitions between them.

    nO is the number of entity labels; the tags are laid out as in
    decoding/lcrf_ner/iob.py or bioes.py (O last, then START and END in the
    transitions).
    The torch module is built by `init` once nO is set; its emission
    projection infers its input width from the first batch or from the
    weights being loaded.

    transitions (str): "penalised", "crf" or "none" (see
        spacy-globalner.LCRFNER.v1).
    tag_scheme (str): "iob" or "bioes".
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
        attrs={
            "transitions": check_transitions(transitions),
            "tag_scheme": tag_scheme,
            "mixed_precision": mixed_precision,
        },
    )


def check_transitions(transitions: str) -> str:
    """The `transitions` setting, or E122 when it is none of TRANSITIONS."""
    if transitions not in TRANSITIONS:
        raise ValueError(Errors.E122.format(options=TRANSITIONS, value=transitions))
    return transitions


def init(model: Model[InT, OutT], X: Optional[InT] = None, Y=None) -> Model[InT, OutT]:
    def make_scorer() -> LCRFNERScorer:
        forbidden = forbidden_transitions(model.attrs["tag_scheme"], model.get_dim("nO"))
        return LCRFNERScorer(torch.as_tensor(forbidden), transitions=model.attrs["transitions"])

    return init_padded_head(model, X, make_scorer)


def forward(model: Model[InT, OutT], X: InT, is_train: bool) -> Tuple[OutT, Callable]:
    if not X:
        n_tags = scheme_tags(model.attrs["tag_scheme"], model.get_dim("nO"))
        empty = (model.ops.alloc3f(0, 0, n_tags), model.ops.alloc2f(n_tags + 2, n_tags + 2))
        return empty, lambda d_scores: []
    return model.layers[0](X, is_train)

