"""The registered CRENER architecture: tok2vec -> windows -> grid tag scorer."""
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d, Floats3d, Ints2d

from ...decoding.crener.windows import plan_windows
from ...errors import Errors
from ...validation import check_dropout, check_int
from ..layers.crener_head import crener_head

ARCHITECTURE = "spacy-globalner.CRENER.v1"
OutT = Tuple[List[Floats3d], Ints2d]


@registry.architectures(ARCHITECTURE)
def build_crener(
    tok2vec: Model[List[Doc], List[Floats2d]],
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
    max_batch_cells: int = 262144,
    mixed_precision: bool = False,
) -> Model[List[Doc], OutT]:
    """Build a CRENER grid tagger over any tok2vec.

    tok2vec (Model[List[Doc], List[Floats2d]]): Token vectors: an inline
        HashEmbedCNN, a spacy.Tok2VecListener.v1 or a spacy-transformers
        TransformerListener.
    token_width (int): Width of the token representations (even when
        context_depth > 0; divisible by attention_heads when enhancement_rounds > 0).
    context_depth (int): BiLSTM layers over the token vectors; 0 switches the
        context layer off.
    grid_width (int): Width of the subject/object projections and of the
        conditional layer norm grid.
    distance_width (int): Width of the log-bucketed relative distance embedding.
    region_width (int): Width of the upper/lower/diagonal region embedding.
    conv_width (int): Channels of each dilated convolution.
    dilations (Sequence[int]): One depthwise 3 x 3 convolution per dilation.
    enhancement_rounds (int): Relation enhancement rounds; 0 disables them.
    attention_heads (int): Attention heads in the relation enhancement.
    biaffine_width (int): Width of the co-predictor's biaffine projections.
    predictor_width (int): Hidden width of the co-predictor's grid MLP.
    learned_threshold (bool): Learn the threshold class per cell; else it is 0.
    dropout (float): Dropout inside the head; spaCy's training dropout
        overrides it during `nlp.update`.
    max_batch_cells (int): Most grid cells run through the scorer at once;
        bounds the memory of long docs and large batches.
    mixed_precision (bool): Run the head under torch autocast on GPU.
    RETURNS (Model[List[Doc], Tuple[List[Floats3d], Ints2d]]): One
        (length, length, 1 + n_tags) logit grid per window, and the window
        plan. The pipe sets attrs["max_grid_length"], the longest window.
    """
    for name, value in (
        ("token_width", token_width),
        ("grid_width", grid_width),
        ("distance_width", distance_width),
        ("region_width", region_width),
        ("conv_width", conv_width),
        ("attention_heads", attention_heads),
        ("biaffine_width", biaffine_width),
        ("predictor_width", predictor_width),
        ("max_batch_cells", max_batch_cells),
    ):
        check_int(value, name, ARCHITECTURE, least=1, error=Errors.E201)
    check_int(context_depth, "context_depth", ARCHITECTURE, least=0, error=Errors.E201)
    check_int(enhancement_rounds, "enhancement_rounds", ARCHITECTURE, least=0, error=Errors.E201)
    check_dropout(dropout, ARCHITECTURE)
    if context_depth > 0 and token_width % 2:
        raise ValueError(Errors.E202.format(value=token_width))
    if enhancement_rounds > 0 and token_width % attention_heads:
        raise ValueError(Errors.E203.format(width=token_width, heads=attention_heads))
    dilations = list(dilations)
    if not dilations or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dilations):
        raise ValueError(Errors.E204.format(value=dilations))
    head = crener_head(
        token_width=token_width,
        context_depth=context_depth,
        grid_width=grid_width,
        distance_width=distance_width,
        region_width=region_width,
        conv_width=conv_width,
        dilations=dilations,
        enhancement_rounds=enhancement_rounds,
        attention_heads=attention_heads,
        biaffine_width=biaffine_width,
        predictor_width=predictor_width,
        learned_threshold=learned_threshold,
        dropout=dropout,
        max_batch_cells=max_batch_cells,
        mixed_precision=mixed_precision,
    )
    model = Model(
        "crener",
        forward,
        init=init,
        layers=[tok2vec, head],
        refs={"tok2vec": tok2vec, "head": head},
        attrs={"max_grid_length": None},
    )
    return model


def forward(model: Model[List[Doc], OutT], docs: List[Doc], is_train: bool) -> Tuple[OutT, Callable]:
    tok2vec, head = model.layers
    vectors, backprop_tok2vec = tok2vec(docs, is_train)
    windows = plan_doc_windows(docs, model.attrs["max_grid_length"])
    grids, backprop_head = head((vectors, windows), is_train)

    def backprop(d_grids: List[Floats3d]) -> List[Doc]:
        return backprop_tok2vec(backprop_head(d_grids))

    return (grids, windows), backprop


def init(model: Model[List[Doc], OutT], X: Optional[List[Doc]] = None, Y=None) -> Model:
    tok2vec, head = model.layers
    if X is None:
        tok2vec.initialize()
        head.initialize()
        return model
    tok2vec.initialize(X=X)
    vectors = tok2vec.predict(X)
    head.initialize(X=(vectors, plan_doc_windows(X, model.attrs["max_grid_length"])))
    return model


def plan_doc_windows(docs: List[Doc], max_grid_length: Optional[int]) -> Ints2d:
    """The windows of a batch (see decoding.grid_windows): whole docs up to
    max_grid_length tokens, longer ones cut at sentence boundaries where set.
    """
    lengths = [len(doc) for doc in docs]
    if max_grid_length is None:
        max_grid_length = max(lengths, default=1) or 1
    sentence_starts = [
        _sentence_starts(doc) if len(doc) > max_grid_length else None for doc in docs
    ]
    return plan_windows(lengths, sentence_starts, max_grid_length)


def _sentence_starts(doc: Doc) -> Optional[numpy.ndarray]:
    if not doc.has_annotation("SENT_START"):
        return None
    return numpy.asarray([sent.start for sent in doc.sents], dtype="int64")
