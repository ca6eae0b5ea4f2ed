"""The CRENER architecture (tok2vec -> windows -> grid tag scorer) and its head
layer (token vectors + windows -> one tag grid per window).
"""
from dataclasses import fields, replace
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d, Ints2d

from ...decoding.crener.windows import DOC, END, START, plan_windows
from ...errors import Errors
from ...validation import check_bool, check_dropout, check_int
from ..layers.pytorch_wrapper import add_wrapped_module, wrapped_module
from ..torch.crener.scorer import CLN_BIASES, ENHANCEMENTS, PREDICTOR_INPUTS, CRENERScorer, is_banded
from ..torch.crener.settings import PAPER_SETTINGS, PAPER_SWITCHES, CRENERSettings

ARCHITECTURE = "spacy-globalner.CRENER.v1"
PAPER_ARCHITECTURE = "spacy-globalner.CRENERPaper.v1"
OutT = Tuple[List[Floats3d], Ints2d]
# The scorer's settings of CRENER.v1; both architectures' signatures read
# their defaults from CRENERSettings (PAPER_SETTINGS for CRENERPaper.v1).
DEFAULTS = CRENERSettings()
# One 256-token window's grid.
DEFAULT_MAX_BATCH_CELLS = 256 * 256


@registry.architectures(ARCHITECTURE)
def build_crener(
    tok2vec: Model[List[Doc], List[Floats2d]],
    token_width: int = DEFAULTS.token_width,
    context_depth: int = DEFAULTS.context_depth,
    grid_width: int = DEFAULTS.grid_width,
    distance_width: int = DEFAULTS.distance_width,
    region_width: int = DEFAULTS.region_width,
    conv_width: int = DEFAULTS.conv_width,
    dilations: Sequence[int] = DEFAULTS.dilations,
    enhancement_rounds: int = DEFAULTS.enhancement_rounds,
    attention_heads: int = DEFAULTS.attention_heads,
    biaffine_width: int = DEFAULTS.biaffine_width,
    predictor_width: int = DEFAULTS.predictor_width,
    learned_threshold: bool = DEFAULTS.learned_threshold,
    dropout: Optional[float] = DEFAULTS.dropout,
    max_batch_cells: int = DEFAULT_MAX_BATCH_CELLS,
    mixed_precision: bool = False,
    transformer_depth: int = DEFAULTS.transformer_depth,
    attention_embedding_width: int = DEFAULTS.attention_embedding_width,
    parallel_dilations: bool = DEFAULTS.parallel_dilations,
    cln_bias_from: str = DEFAULTS.cln_bias_from,
    enhancement: str = DEFAULTS.enhancement,
    predictor_input: str = DEFAULTS.predictor_input,
) -> Model[List[Doc], OutT]:
    """Build a CRENER grid tagger over any tok2vec.

    The defaults are CRENERSettings' (ml/torch/crener/settings.py); the head
    layer and the torch scorer take a CRENERSettings built from these
    arguments. With the defaults the model is a reduced W2NER; the CRENER
    paper's pieces are switched on one by one with the last six settings, or
    all at once by spacy-globalner.CRENERPaper.v1.

    tok2vec (Model[List[Doc], List[Floats2d]]): Token vectors: an inline
        HashEmbedCNN, a spacy.Tok2VecListener.v1 or a spacy-transformers
        TransformerListener.
    token_width (int): Width of the token representations (even when
        context_depth > 0; divisible by attention_heads when enhancement_rounds > 0
        or transformer_depth > 0).
    context_depth (int): BiLSTM layers over the token vectors; 0 switches the
        BiLSTM off.
    grid_width (int): Width of the subject/object projections and of the
        conditional layer norm grid (divisible by attention_heads with
        enhancement = "paper").
    distance_width (int): Width of the log-bucketed relative distance embedding.
    region_width (int): Width of the upper/lower/diagonal region embedding.
    conv_width (int): Channels of each dilated convolution.
    dilations (Sequence[int]): One depthwise 3 x 3 convolution per dilation.
    enhancement_rounds (int): Relation enhancement rounds; 0 disables them.
    attention_heads (int): Attention heads in the relation enhancement and
        the adapted Transformer.
    biaffine_width (int): Width of the co-predictor's biaffine projections.
    predictor_width (int): Hidden width of the co-predictor's grid MLP.
    learned_threshold (bool): Learn the threshold class per cell; else it is 0.
    dropout (Optional[float]): Dropout rate of every dropout layer inside
        the head (after its input projection, after the grid's MLP, in the
        co-predictor, the adapted Transformer and the attention) while
        training; None follows the rate spaCy trains with ([training]
        dropout, or `drop` of `nlp.update`), which the tok2vec gets in both
        cases.
    max_batch_cells (int): Most grid cells run through the scorer at once;
        bounds the memory of long docs and large batches. It changes no
        output. The default holds one 256-token window.
    mixed_precision (bool): Run the head under torch autocast on GPU.
    transformer_depth (int): Layers of the paper's adapted Transformer
        (un-scaled relative self-attention) after the BiLSTM, or in its place
        with context_depth = 0; 0 for none.
    attention_embedding_width (int): Channels of the paper's attention
        embedding E^a joining the grid (one per attention head); 0 for none.
    parallel_dilations (bool): Every dilated convolution reads the grid
        itself (the paper) instead of the previous one's output (W2NER).
    cln_bias_from (str): Where the conditional layer norm's bias comes from:
        "subject" (the row token, W2NER) or "object" (the column token h_j^o,
        the paper).
    enhancement (str): "pooled" (one pooled stream added as row/column
        biases) or "paper" (per-rate tag projections, subject and object
        streams, fed back through the CLN and the convolutions each round).
    predictor_input (str): What the co-predictor's MLP reads: "grid" (the
        convolved grid), "tags" (the tag-aware features, the paper's eq. 17)
        or "grid+tags" (both, concatenated).
    RETURNS (Model[List[Doc], Tuple[List[Floats3d], Ints2d]]): One
        (length, length, 1 + n_tags) logit grid per window, and the window
        plan. The pipe sets attrs["max_grid_length"], the longest window,
        and attrs["unsegmented_window"], the window over long text without
        sentence boundaries, when it is created, sized or loaded.
    """
    settings = _settings_of(locals())
    return _build_crener(tok2vec, settings, max_batch_cells, mixed_precision, ARCHITECTURE)


@registry.architectures(PAPER_ARCHITECTURE)
def build_crener_paper(
    tok2vec: Model[List[Doc], List[Floats2d]],
    token_width: int = PAPER_SETTINGS.token_width,
    context_depth: int = PAPER_SETTINGS.context_depth,
    transformer_depth: int = PAPER_SETTINGS.transformer_depth,
    grid_width: int = PAPER_SETTINGS.grid_width,
    distance_width: int = PAPER_SETTINGS.distance_width,
    region_width: int = PAPER_SETTINGS.region_width,
    attention_embedding_width: int = PAPER_SETTINGS.attention_embedding_width,
    conv_width: int = PAPER_SETTINGS.conv_width,
    dilations: Sequence[int] = PAPER_SETTINGS.dilations,
    enhancement_rounds: int = PAPER_SETTINGS.enhancement_rounds,
    attention_heads: int = PAPER_SETTINGS.attention_heads,
    biaffine_width: int = PAPER_SETTINGS.biaffine_width,
    predictor_width: int = PAPER_SETTINGS.predictor_width,
    learned_threshold: bool = PAPER_SETTINGS.learned_threshold,
    dropout: Optional[float] = PAPER_SETTINGS.dropout,
    max_batch_cells: int = DEFAULT_MAX_BATCH_CELLS,
    mixed_precision: bool = False,
    predictor_input: str = PAPER_SETTINGS.predictor_input,
) -> Model[List[Doc], OutT]:
    """Build the CRENER paper's model: spacy-globalner.CRENER.v1 with every
    piece of the paper on, so that a config reaches it by its @architectures
    line alone. What CRENER.v1 switches, this one fixes at the paper's value:
    the dilated convolutions read the grid in parallel (eq. 8), the
    conditional layer norm takes its bias from the object token (eq. 5),
    and relation enhancement runs in full (eq. 9-15: per-rate tag
    projections, subject and object streams fed back through the grid). The
    paper's adapted Transformer and attention embedding are on at their
    sizes here (transformer_depth, after the BiLSTM; attention_embedding_width),
    and the co-predictor's MLP reads the grid and the tag-aware features
    (predictor_input, as the factory's model; "tags" is eq. 17 alone). Every
    other setting, and its default, is CRENER.v1's (see build_crener), so a
    [components.crener.model] block that leaves CRENER.v1's five switches
    out (the factory's does) becomes the paper's model by its @architectures
    line. docs/crener.md lists where even this model departs from the paper.

    RETURNS (Model[List[Doc], Tuple[List[Floats3d], Ints2d]]): As CRENER.v1's.
    """
    settings = _settings_of(locals(), **PAPER_SWITCHES)
    return _build_crener(tok2vec, settings, max_batch_cells, mixed_precision, PAPER_ARCHITECTURE)


def _settings_of(arguments: Dict[str, Any], **fixed: Any) -> CRENERSettings:
    """The CRENERSettings among an architecture's arguments (its locals(),
    read before it defines any name of its own), with `fixed` on top."""
    names = [field.name for field in fields(CRENERSettings) if field.name not in fixed]
    return CRENERSettings(**{name: arguments[name] for name in names}, **fixed)


def _build_crener(
    tok2vec: Model[List[Doc], List[Floats2d]],
    settings: CRENERSettings,
    max_batch_cells: int,
    mixed_precision: bool,
    owner: str,
) -> Model[List[Doc], OutT]:
    """Check the settings (errors name `owner`, the architecture) and build
    the model: tok2vec, then the head over the windows."""
    s = settings
    for name, value in (
        ("token_width", s.token_width),
        ("grid_width", s.grid_width),
        ("distance_width", s.distance_width),
        ("region_width", s.region_width),
        ("conv_width", s.conv_width),
        ("attention_heads", s.attention_heads),
        ("biaffine_width", s.biaffine_width),
        ("predictor_width", s.predictor_width),
        ("max_batch_cells", max_batch_cells),
    ):
        check_int(value, name, owner, least=1, error=Errors.E201)
    for name, value in (
        ("context_depth", s.context_depth),
        ("enhancement_rounds", s.enhancement_rounds),
        ("transformer_depth", s.transformer_depth),
        ("attention_embedding_width", s.attention_embedding_width),
    ):
        check_int(value, name, owner, least=0, error=Errors.E201)
    if s.dropout is not None:
        check_dropout(s.dropout, owner)
    check_bool(s.parallel_dilations, "parallel_dilations", owner)
    for name, value, choices in (
        ("cln_bias_from", s.cln_bias_from, CLN_BIASES),
        ("enhancement", s.enhancement, ENHANCEMENTS),
        ("predictor_input", s.predictor_input, PREDICTOR_INPUTS),
    ):
        if value not in choices:
            raise ValueError(Errors.E220.format(name=name, value=value, choices=", ".join(map(repr, choices))))
    if s.context_depth > 0 and s.token_width % 2:
        raise ValueError(Errors.E202.format(value=s.token_width))
    if (s.enhancement_rounds > 0 or s.transformer_depth > 0) and s.token_width % s.attention_heads:
        raise ValueError(Errors.E203.format(width=s.token_width, heads=s.attention_heads))
    if s.enhancement == "paper" and s.enhancement_rounds > 0 and s.grid_width % s.attention_heads:
        raise ValueError(Errors.E221.format(width=s.grid_width, heads=s.attention_heads))
    dilations = list(s.dilations)
    # E204 shows the whole list, whichever of its entries (or its length) fails
    for value in [len(dilations), *dilations]:
        check_int(value, "dilations", owner, error=Errors.E204.replace("{value!r}", repr(dilations)))
    settings = replace(settings, dilations=tuple(dilations))
    head = crener_head(settings, max_batch_cells=max_batch_cells, mixed_precision=mixed_precision)
    return Model(
        "crener",
        forward,
        init=init,
        layers=[tok2vec, head],
        refs={"tok2vec": tok2vec, "head": head},
        attrs={"max_grid_length": None, "unsegmented_window": None},
    )


def forward(model: Model[List[Doc], OutT], docs: List[Doc], is_train: bool) -> Tuple[OutT, Callable]:
    tok2vec, head = model.layers
    vectors, backprop_tok2vec = tok2vec(docs, is_train)
    windows = plan_doc_windows(docs, model.attrs["max_grid_length"], model.attrs["unsegmented_window"])
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
    windows = plan_doc_windows(X, model.attrs["max_grid_length"], model.attrs["unsegmented_window"])
    head.initialize(X=(vectors, windows))
    return model


def plan_doc_windows(
    docs: List[Doc], max_grid_length: Optional[int], unsegmented_window: Optional[int] = None
) -> Ints2d:
    """The windows of a batch (see decoding.crener.windows): whole docs up to
    max_grid_length tokens, longer ones cut at sentence boundaries where set,
    and text longer than max_grid_length without a sentence boundary into
    overlapping windows of unsegmented_window tokens (None: max_grid_length).
    """
    lengths = [len(doc) for doc in docs]
    if max_grid_length is None:
        max_grid_length = max(lengths, default=1) or 1
    sentence_starts = [
        _sentence_starts(doc) if len(doc) > max_grid_length else None for doc in docs
    ]
    return plan_windows(lengths, sentence_starts, max_grid_length, unsegmented_window)


def _sentence_starts(doc: Doc) -> Optional[numpy.ndarray]:
    if not doc.has_annotation("SENT_START"):
        return None
    return numpy.asarray([sent.start for sent in doc.sents], dtype="int64")


# The head's Thinc layer --------------------------------------------------


HeadInT = Tuple[List[Floats2d], Ints2d]
HeadOutT = List[Floats3d]


def crener_head(
    settings: CRENERSettings, *, max_batch_cells: int, mixed_precision: bool
) -> Model[HeadInT, HeadOutT]:
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

    Dropout: settings.dropout where set, else attrs["dropout_rate"], which
    spaCy's `set_dropout_rate` sets to the pipe's rate on every update.

    attrs["band"] (set by the pipe from the longest gold span it was
    initialised on, max_span_width - 1; None: no bound): at prediction a chunk
    of windows is scored only within band cells of the diagonal, where every
    span of up to band + 1 tokens lies, if the band is at most half the width
    of the chunk's padded grid (scorer.is_banded). Each
    window of at least 2 * band + 1 tokens gets its band, (length, 2 * band
    + 1, 1 + nO) (see ml/torch/crener/band.py; cut from the whole grid in a
    chunk scored whole), a shorter one its whole grid, (length, length, 1 +
    nO); so a grid with 2 * band + 1 columns is a band. Band cells hold the
    scores the whole grid gives them. Training scores the whole grid.

    The torch module is built by `init` once nO (the number of tags) is set;
    its input projection infers its width from the first batch or from the
    weights being loaded. The settings travel in the init's closure, not in
    attrs: they come from the config, never from saved weights.
    """
    return Model(
        "crener_head",
        head_forward,
        init=partial(head_init, settings=settings),
        dims={"nI": None, "nO": None},
        attrs={
            "dropout_rate": 0.0,
            "max_batch_cells": max_batch_cells,
            "mixed_precision": mixed_precision,
            "band": None,
        },
    )


def head_init(
    model: Model[HeadInT, HeadOutT], X: Optional[HeadInT] = None, Y=None, *, settings: CRENERSettings
) -> Model[HeadInT, HeadOutT]:
    if not model.layers:
        scorer = CRENERScorer(model.get_dim("nO"), settings)
        add_wrapped_module(model, scorer, convert_inputs=_padded_inputs, convert_outputs=_window_grids)
    if X is not None:
        vectors, windows = X
        if len(windows):
            model.set_dim("nI", vectors[0].shape[1], force=True)
            # Materialise the lazy input projection on the shortest window.
            shortest = int(numpy.argmin(windows[:, END] - windows[:, START]))
            model.layers[0].predict((_window_vectors(vectors, windows[shortest : shortest + 1]), None))
    return model


def head_forward(model: Model[HeadInT, HeadOutT], X: HeadInT, is_train: bool) -> Tuple[HeadOutT, Callable]:
    vectors, windows = X
    wrapper = model.layers[0]
    scorer = wrapped_module(wrapper)
    rate = scorer.settings.dropout
    scorer.set_dropout_rate(model.attrs["dropout_rate"] if rate is None else rate)
    grids: List[Optional[Floats3d]] = [None] * len(windows)
    callbacks = []
    band = None if is_train else model.attrs["band"]
    for chunk in _chunks(windows, model.attrs["max_batch_cells"]):
        chunk_grids, backprop_chunk = wrapper((_window_vectors(vectors, windows[chunk]), band), is_train)
        for index, grid in zip(chunk.tolist(), chunk_grids):
            grids[index] = grid
        if is_train:
            # A chunk's backprop holds its padded scores; kept only for
            # training, so prediction holds one copy of each grid, not two.
            callbacks.append((chunk, backprop_chunk))

    def backprop(d_grids: HeadOutT) -> List[Floats2d]:
        d_vectors = [model.ops.alloc2f(*x.shape) for x in vectors]
        for chunk, backprop_chunk in callbacks:
            d_windows = backprop_chunk([d_grids[index] for index in chunk.tolist()])
            # Overlapping windows add up their gradients on shared tokens.
            for (doc, start, end), d_window in zip(windows[chunk][:, [DOC, START, END]].tolist(), d_windows):
                d_vectors[doc][start:end] += d_window
        return d_vectors

    return grids, backprop


def _chunks(windows: Ints2d, max_cells: int) -> List[numpy.ndarray]:
    """Window indices, longest first, in chunks whose padded grids fit
    max_cells and where no window fills less than half of its padded grid
    (a window larger than max_cells runs alone)."""
    lengths = numpy.asarray(windows[:, END] - windows[:, START])
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
    return [vectors[doc][start:end] for doc, start, end in windows[:, [DOC, START, END]].tolist()]


def _padded_inputs(model: Model, X: Tuple[List[Floats2d], Optional[int]], is_train: bool):
    X, band = X
    lengths = [len(x) for x in X]
    padded = model.ops.pad(X)
    padded_torch = xp2torch(padded, requires_grad=is_train)
    kwargs = {} if band is None else {"band": band}
    args = ArgsKwargs(args=(padded_torch, torch.as_tensor(lengths, dtype=torch.int64)), kwargs=kwargs)

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        d_padded = torch2xp(d_args.args[0])
        return [d_padded[i, :length] for i, length in enumerate(lengths)]

    return args, backprop


def _window_grids(model: Model, inputs_outputs, is_train: bool):
    (X, band), scores = inputs_outputs
    lengths = [len(x) for x in X]
    xp = model.ops.xp
    padded = torch2xp(scores)
    # Copies, so that the padded chunk can be freed once its windows are out.
    # A band's columns are offsets from the diagonal, kept whole.
    banded = is_banded(padded.shape[1], band)
    grids = []
    for i, n in enumerate(lengths):
        if banded:
            grids.append(xp.ascontiguousarray(padded[i, :n]))
        elif band is not None and n >= 2 * band + 1:
            columns = xp.clip(xp.arange(n)[:, None] + xp.arange(-band, band + 1)[None, :], 0, n - 1)
            grids.append(padded[i, xp.arange(n)[:, None], columns])
        else:
            grids.append(xp.ascontiguousarray(padded[i, :n, :n]))

    def backprop(d_grids: List[Floats3d]) -> ArgsKwargs:
        d_padded = model.ops.alloc(padded.shape, dtype="float32")
        for i, (n, d_grid) in enumerate(zip(lengths, d_grids)):
            # Training scores whole grids (no band): each gradient is one.
            d_padded[i, :n, : d_grid.shape[1]] = d_grid
        # fp32 until the shim's grad scaler has scaled it; backward then
        # casts it to the scores' dtype (half under autocast).
        d_torch = xp2torch(d_padded)
        return ArgsKwargs(args=(scores,), kwargs={"grad_tensors": [d_torch]})

    return grids, backprop
