"""The registered LCRFNER architecture (alias LinearCRF.v1): tok2vec -> dropout -> linear emissions
over the IOB tags and a linear-chain CRF's transition matrix.
"""
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Dropout, Model, chain
from thinc.types import Floats2d

from ...validation import check_dropout
from ..layers.lcrf_ner_head import OutT, lcrf_ner_head

ARCHITECTURE = "spacy-globalner.LCRFNER.v1"


@registry.architectures(ARCHITECTURE)
@registry.architectures("spacy-globalner.LinearCRF.v1")  # the name of the first release
def build_lcrf_ner(
    tok2vec: Model[List[Doc], List[Floats2d]],
    learn_penalties: bool = True,
    dropout: float = 0.1,
    mixed_precision: bool = False,
) -> Model[List[Doc], OutT]:
    """Build the flat-NER CRF head of Zöllner et al. (2021) over any tok2vec.

    tok2vec (Model[List[Doc], List[Floats2d]]): Token vectors: an inline
        HashEmbedCNN, a spacy.Tok2VecListener.v1 or a spacy-transformers
        TransformerListener.
    learn_penalties (bool): Learn the scale and offset of the scores of
        forbidden IOB transitions; False keeps a plain CRF (for the ablation).
    dropout (float): Dropout on the token vectors; spaCy's training dropout
        overrides it during `nlp.update`.
    mixed_precision (bool): Run the head under torch autocast on GPU (the CRF
        loss is computed in float32 regardless).
    RETURNS (Model[List[Doc], Tuple[Floats3d, Floats2d]]): Emissions (n_docs,
        max_length, n_tags), padded, and transitions [from, to] over the tags,
        START and END.
    """
    check_dropout(dropout, ARCHITECTURE)
    head = lcrf_ner_head(learn_penalties=learn_penalties, mixed_precision=mixed_precision)
    model = chain(tok2vec, Dropout(dropout), head)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("head", head)
    return model
