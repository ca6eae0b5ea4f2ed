"""The registered LCRFNER architecture (alias LinearCRF.v1): tok2vec -> dropout -> linear emissions
over the IOB tags and a linear-chain CRF's transition matrix.
"""
from typing import List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Dropout, Model, chain
from thinc.types import Floats2d

from ...decoding.lcrf_ner.schemes import check_tag_scheme
from ..layers.lcrf_ner_head import OutT, lcrf_ner_head, resolve_transitions


@registry.architectures("spacy-globalner.LCRFNER.v1")
@registry.architectures("spacy-globalner.LinearCRF.v1")  # the name of the first release
def build_lcrf_ner(
    tok2vec: Model[List[Doc], List[Floats2d]],
    learn_penalties: Optional[bool] = None,
    dropout: float = 0.1,
    mixed_precision: bool = False,
    transitions: Optional[str] = None,
    tag_scheme: str = "iob",
) -> Model[List[Doc], OutT]:
    """Build the flat-NER CRF head of Zöllner et al. (2021) over any tok2vec.

    tok2vec (Model[List[Doc], List[Floats2d]]): Token vectors: an inline
        HashEmbedCNN, a spacy.Tok2VecListener.v1 or a spacy-transformers
        TransformerListener.
    learn_penalties (Optional[bool]): The setting of the first release, read
        when `transitions` is not given: True (the default) means
        "penalised", False "crf".
    dropout (float): Dropout on the token vectors; spaCy's training dropout
        overrides it during `nlp.update`.
    mixed_precision (bool): Run the head under torch autocast on GPU (the CRF
        loss is computed in float32 regardless).
    transitions (Optional[str]): "penalised": a CRF whose forbidden
        transitions carry learned penalties (the paper's LCRF_NER); "crf": a
        plain CRF (the ablation); "none": no transitions, the softmax baseline
        (the transition matrix is all zero, so the loss is the tokens'
        softmax cross-entropy and decoding is argmax, then Entity-Fix).
        Default: from `learn_penalties`.
    tag_scheme (str): "iob" or "bioes" (BILUO): the tags the head emits and
        whose forbidden transitions it penalises.
    RETURNS (Model[List[Doc], Tuple[Floats3d, Floats2d]]): Emissions (n_docs,
        max_length, n_tags), padded, and transitions [from, to] over the tags,
        START and END.
    """
    head = lcrf_ner_head(
        transitions=resolve_transitions(transitions, learn_penalties),
        tag_scheme=check_tag_scheme(tag_scheme),
        mixed_precision=mixed_precision,
    )
    model = chain(tok2vec, Dropout(dropout), head)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("head", head)
    return model

