"""The registered GlobalPointer architecture: tok2vec -> dropout -> band span scorer."""
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Dropout, Model, chain
from thinc.types import Floats2d, Floats3d

from ...errors import Errors
from ...validation import check_dropout, check_int
from ..layers.global_pointer_head import global_pointer_head

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
        for the docs packed one after another.
    """
    check_int(head_width, "head_width", ARCHITECTURE, error=Errors.E010)
    if head_width % 2:
        raise ValueError(Errors.E010.format(value=head_width))
    check_dropout(dropout, ARCHITECTURE)
    head = global_pointer_head(
        head_width=head_width, rope=rope, efficient=efficient, mixed_precision=mixed_precision
    )
    model = chain(tok2vec, Dropout(dropout), head)
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("head", head)
    return model
