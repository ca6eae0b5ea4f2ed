"""The `crener` component: nested and flat NER as relations on a token-pair grid."""
import warnings
from typing import Any, Callable, Iterable, List, Optional, Tuple

import numpy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model, torch2xp, xp2torch
from thinc.types import Floats3d, Ints2d

from ..decoding import SpanArrays
from ..decoding.crener.decode import decode_windows
from ..decoding.crener.tags import encode_grid_entities, n_grid_tags
from ..decoding.crener.windows import DOC, END, START
from ..errors import Errors, Warnings
from ..ml.models.crener import build_crener  # noqa: F401 (registers the architecture)
from ..ml.torch.crener.loss import threshold_multilabel_loss
from ..validation import check_int, check_number
from .ents_filters import EntsFilter
from .gold import GoldSummary
from .scoring import NESTED_NER_SCORE_WEIGHTS, score_spans_and_ents
from .span_pipe import (
    DEFAULT_MAX_CANDIDATES,
    DEFAULT_TOK2VEC_MODEL,
    SpanPipe,
    check_spans_key_free,
)

DEFAULT_CRENER_MODEL = """
[model]
@architectures = "spacy-globalner.CRENER.v1"
# The architecture's settings take their defaults from its signature
# (spacy_globalner.ml.models.crener.build_crener), except one: the
# co-predictor's MLP reads the grid and the tag-aware features
# (docs/crener.md). The signature keeps "grid", so that a config which leaves
# predictor_input out builds the same model in every release of CRENER.v1.
predictor_input = "grid+tags"
""" + DEFAULT_TOK2VEC_MODEL
DEFAULT_CRENER_MODEL_CONFIG = Config().from_str(DEFAULT_CRENER_MODEL)["model"]

GridScores = Tuple[List[Floats3d], Ints2d]
# The shortest window whose context (max_grid_length // 8 tokens each side) is
# not empty: shorter windows would not overlap (decoding.crener.windows).
MIN_GRID_LENGTH = 8
# The score a span must reach: sigmoid(0), where the closing vote and the
# learned threshold class are level.
DEFAULT_THRESHOLD = 0.5
DEFAULT_MAX_GRID_LENGTH = 256
DEFAULT_POSITIVE_WEIGHT = 5.0
# The windows over long text without sentence boundaries: a token of such text
# pays for about 4/3 of a window's length in grid cells; 96 still finds every
# entity of up to 24 tokens (docs/crener.md, "unsegmented_window").
DEFAULT_UNSEGMENTED_WINDOW = 96


@Language.factory(
    "crener",
    assigns=["doc.spans", "doc.ents"],
    default_config={
        "model": DEFAULT_CRENER_MODEL_CONFIG,
        "spans_key": "sc",
        "threshold": DEFAULT_THRESHOLD,
        "positive_weight": DEFAULT_POSITIVE_WEIGHT,
        "max_grid_length": DEFAULT_MAX_GRID_LENGTH,
        "unsegmented_window": DEFAULT_UNSEGMENTED_WINDOW,
        "max_candidates": DEFAULT_MAX_CANDIDATES,
        "set_ents": True,
        "ents_filter": {"@misc": "spacy-globalner.longest_first_filter.v1"},
        "scorer": {"@scorers": "spacy-globalner.span_scorer.v1"},
        "head_lr_scale": 1.0,
    },
    default_score_weights=dict(NESTED_NER_SCORE_WEIGHTS),
)
def make_crener(
    nlp: Language,
    name: str,
    model: Model[List[Doc], GridScores],
    spans_key: str,
    threshold: float,
    positive_weight: float,
    max_grid_length: int,
    unsegmented_window: Optional[int],
    max_candidates: Optional[int],
    set_ents: bool,
    ents_filter: EntsFilter,
    scorer: Optional[Callable],
    head_lr_scale: float,
) -> "CRENER":
    """Create a CRENER recogniser: entities are paths of neighbour links on a
    token-pair grid, closed by a typed head-tail relation; docs longer than
    `max_grid_length` tokens are tagged in windows (of `unsegmented_window`
    tokens where they have no sentence boundaries); at most `max_candidates`
    spans per doc.

    nlp (Language): The pipeline the component is added to.
    name (str): The component instance name, used to add entries to the
        losses during training.
    model (Model[List[Doc], GridScores]): A model instance that is given a
        list of documents and returns a token-pair tag grid per window and the
        window plan.
    spans_key (str): Key of doc.spans to write the spans under; training
        reads the gold spans from it (from doc.ents, for a doc without the key).
    threshold (float): The score (a probability, sigmoid of the closing
        vote) a span must reach; a neighbour link's vote must reach it too.
        Labels calibrated by `spacy globalner calibrate` use their own.
    positive_weight (float): The weight in the loss of a cell carrying a
        gold tag, relative to an empty cell.
    max_grid_length (int): The most tokens in one grid window; longer
        docs are tagged in overlapping windows.
    unsegmented_window (Optional[int]): The tokens in each window over
        text longer than max_grid_length without a sentence boundary, at most
        max_grid_length (None: max_grid_length).
    max_candidates (Optional[int]): The most spans one doc may yield, the
        highest-scoring kept, a bound on the memory of a long doc (0 or None:
        no bound).
    set_ents (bool): Whether to also write the spans that ents_filter
        chooses to doc.ents.
    ents_filter (EntsFilter): Chooses the non-overlapping spans for
        doc.ents from the spans and their scores (e.g.
        spacy-globalner.longest_first_filter.v1).
    scorer (Optional[Callable]): The scoring method. Defaults to
        Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
        doc.ents.
    head_lr_scale (float): The factor on the optimizer's learning rate
        for the head's parameters (the "head" ref), e.g. 20 to train the head
        at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
    RETURNS (CRENER): The component.
    """
    check_spans_key_free(nlp, name, spans_key, "crener")
    return CRENER(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        threshold=threshold,
        positive_weight=positive_weight,
        max_grid_length=max_grid_length,
        unsegmented_window=unsegmented_window,
        max_candidates=max_candidates,
        set_ents=set_ents,
        ents_filter=ents_filter,
        scorer=scorer,
        head_lr_scale=head_lr_scale,
    )


class CRENER(SpanPipe):
    """Tag every token pair with NNC/PNC links and typed HTC/THC closures,
    and decode the entities from the cells that reach the threshold.

    self.cfg holds the settings of __init__ and what initialize and
    calibration learn: labels, max_span_width (the longest gold span) and
    thresholds (label -> probability, from `spacy globalner calibrate`;
    `threshold` is the fallback).
    """

    capped_warning = Warnings.W230
    span_thresholds = True
    # The longest gold span at initialize: prediction scores the band of the
    # grid where spans that long lie (ml.models.crener.crener_head).
    learned_cfg_keys = SpanPipe.learned_cfg_keys + ("max_span_width",)

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], GridScores],
        name: str = "crener",
        *,
        spans_key: str = "sc",
        threshold: float = DEFAULT_THRESHOLD,
        positive_weight: float = DEFAULT_POSITIVE_WEIGHT,
        max_grid_length: int = DEFAULT_MAX_GRID_LENGTH,
        unsegmented_window: Optional[int] = DEFAULT_UNSEGMENTED_WINDOW,
        max_candidates: Optional[int] = DEFAULT_MAX_CANDIDATES,
        set_ents: bool = True,
        ents_filter: EntsFilter,
        scorer: Optional[Callable] = score_spans_and_ents,
        head_lr_scale: float = 1.0,
    ) -> None:
        """Initialize the component; the settings go to self.cfg.

        vocab (Vocab): The shared vocabulary.
        model (Model[List[Doc], GridScores]): A model instance that is given a
            list of documents and returns a token-pair tag grid per window and the
            window plan.
        name (str): The component instance name, used to add entries to the
            losses during training.
        spans_key (str): Key of doc.spans to write the spans under; training
            reads the gold spans from it (from doc.ents, for a doc without the key).
        threshold (float): The score (a probability, sigmoid of the closing
            vote) a span must reach; a neighbour link's vote must reach it too.
            Labels calibrated by `spacy globalner calibrate` use their own.
        positive_weight (float): The weight in the loss of a cell carrying a
            gold tag, relative to an empty cell.
        max_grid_length (int): The most tokens in one grid window; longer
            docs are tagged in overlapping windows.
        unsegmented_window (Optional[int]): The tokens in each window over
            text longer than max_grid_length without a sentence boundary, at most
            max_grid_length (None: max_grid_length).
        max_candidates (Optional[int]): The most spans one doc may yield, the
            highest-scoring kept, a bound on the memory of a long doc (0 or None:
            no bound).
        set_ents (bool): Whether to also write the spans that ents_filter
            chooses to doc.ents.
        ents_filter (EntsFilter): Chooses the non-overlapping spans for
            doc.ents from the spans and their scores (e.g.
            spacy-globalner.longest_first_filter.v1).
        scorer (Optional[Callable]): The scoring method. Defaults to
            Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
            doc.ents.
        head_lr_scale (float): The factor on the optimizer's learning rate
            for the head's parameters (the "head" ref), e.g. 20 to train the head
            at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
        """
        check_number(threshold, "threshold", name, least=0.0, most=1.0, error=Errors.E050, key=spans_key)
        check_number(positive_weight, "positive_weight", name, above=0.0, error=Errors.E206)
        _check_grid_length(max_grid_length, name)
        _check_unsegmented_window(unsegmented_window, name)
        check_int(max_candidates, "max_candidates", name, least=0, allow_none=True, error=Errors.E052)
        super().__init__(
            vocab,
            model,
            name,
            spans_key=spans_key,
            set_ents=set_ents,
            ents_filter=ents_filter,
            scorer=scorer,
            threshold=float(threshold),
            positive_weight=float(positive_weight),
            max_grid_length=max_grid_length,
            unsegmented_window=unsegmented_window,
            max_candidates=max_candidates,
            head_lr_scale=head_lr_scale,
        )

    # The model's forward plans the windows and scores the band, so it holds
    # these three settings too: after creation they are set here (an edit of
    # cfg does not reach the model).

    @property
    def max_grid_length(self) -> int:
        """The most tokens in one grid window."""
        return self.cfg["max_grid_length"]

    @max_grid_length.setter
    def max_grid_length(self, value: int) -> None:
        _check_grid_length(value, self.name)
        self.cfg["max_grid_length"] = value
        self._configure_model()

    @property
    def unsegmented_window(self) -> Optional[int]:
        """The tokens in each window over long text without sentence boundaries."""
        return self.cfg["unsegmented_window"]

    @unsegmented_window.setter
    def unsegmented_window(self, value: Optional[int]) -> None:
        _check_unsegmented_window(value, self.name)
        self.cfg["unsegmented_window"] = value
        self._configure_model()

    @property
    def max_span_width(self) -> Optional[int]:
        """The longest gold span at initialize (None: no bound): prediction
        scores and decodes the band of the grid where spans that long lie."""
        return self.cfg.get("max_span_width")

    @max_span_width.setter
    def max_span_width(self, value: Optional[int]) -> None:
        check_int(value, "max_span_width", self.name, allow_none=True, error=Errors.E006)
        self.cfg["max_span_width"] = value
        self._configure_model()

    def _configure_model(self) -> None:
        self.model.attrs["max_grid_length"] = self.max_grid_length
        self.model.attrs["unsegmented_window"] = self.unsegmented_window
        width = self.max_span_width
        # Cells either side of the diagonal where spans of up to width tokens lie.
        self.model.get_ref("head").attrs["band"] = None if width is None else max(int(width) - 1, 0)

    def _n_head_outputs(self) -> int:
        return n_grid_tags(len(self.labels))

    def _initialize_settings(
        self, summary: GoldSummary, get_examples: Callable[[], Iterable[Example]]
    ) -> None:
        """Learn the longest gold span; warn about gold spans longer than a
        grid window."""
        self.cfg["max_span_width"] = max(summary.widths, default=None)
        too_long = [width for width in summary.widths if width > self.max_grid_length]
        if too_long:
            warnings.warn(
                Warnings.W200.format(
                    count=len(too_long),
                    total=len(summary.widths),
                    name=self.name,
                    length=self.max_grid_length,
                    longest=max(too_long),
                )
            )

    def _decode_at(
        self, docs: List[Doc], scores: GridScores, thresholds: Optional[numpy.ndarray]
    ) -> List[SpanArrays]:
        # Per-label thresholds apply to the labelled closing votes; the
        # unlabelled neighbour links keep `threshold`.
        grids, windows = scores
        to_numpy = self.model.ops.to_numpy
        found, counts = decode_windows(
            [to_numpy(grid) for grid in grids],
            windows,
            len(docs),
            len(self.labels),
            float(self.cfg["threshold"]),
            label_thresholds=thresholds,
            max_candidates=self.cfg.get("max_candidates"),
            band=self.model.get_ref("head").attrs["band"],
        )
        self._warn_capped(docs, counts)
        return found

    def get_loss(self, examples: Iterable[Example], scores: GridScores) -> Tuple[float, List[Floats3d]]:
        """The thresholded multi-label cross-entropy over all cells of all
        windows, in fp32; cells carrying a gold tag weigh positive_weight.

        RETURNS (Tuple[float, List[Floats3d]]): The loss and its gradient
            w.r.t. each window's grid.
        """
        examples = list(examples)
        grids, windows = scores
        if len(grids) != len(windows):
            raise ValueError(Errors.E205.format(name=self.name, got=len(grids), expected=len(windows)))
        if not grids:
            return 0.0, []
        gold, counted = self._gold_grids(examples, windows)
        xp = self.model.ops.xp
        n_channels = grids[0].shape[-1]
        flat = xp.concatenate([grid.reshape(-1, n_channels) for grid in grids]).astype("float32", copy=False)
        # The gradient stays fp32 (a leaf in fp32) until the head's grad scaler scales it.
        logits = xp2torch(flat, requires_grad=True)
        loss = threshold_multilabel_loss(
            logits,
            torch.as_tensor(gold, device=logits.device),
            self.cfg["positive_weight"],
            torch.as_tensor(counted, device=logits.device),
        )
        loss.backward()
        d_flat = torch2xp(logits.grad)
        bounds = numpy.cumsum([0] + [grid.shape[0] * grid.shape[1] for grid in grids])
        d_grids = [
            d_flat[lo:hi].reshape(grid.shape) for lo, hi, grid in zip(bounds[:-1], bounds[1:], grids)
        ]
        return float(loss.item()), d_grids

    def _gold_grids(self, examples: List[Example], windows: Ints2d) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """The gold tags of the cells of all windows, window by window, and
        which cells count in the loss.

        A window learns the gold spans that lie wholly inside it. A gold span
        that crosses a window's edge has neighbour links inside the window
        but its closing cell outside: those link cells are neither positive
        (the window cannot close the entity) nor negative, and are left out.

        RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): Bool (cells, n_tags)
            gold tags and bool (cells,) counted.
        """
        label_index = {label: i for i, label in enumerate(self.labels)}
        spans = []
        for example in examples:
            gold = self._gold_spans(example)
            spans.append(
                numpy.asarray(
                    [(span.start, span.end, label_index[span.label_]) for span in gold], dtype="int64"
                ).reshape(-1, 3)
            )
        grids, counted = [], []
        for doc_id, start, end in windows[:, [DOC, START, END]].tolist():
            doc_spans = spans[doc_id]
            inside = (doc_spans[:, 0] >= start) & (doc_spans[:, 1] <= end)
            inside_spans = doc_spans[inside]
            grid = encode_grid_entities(
                end - start,
                inside_spans[:, 0] - start,
                inside_spans[:, 1] - start,
                inside_spans[:, 2],
                len(self.labels),
            )
            grids.append(grid.reshape(-1, grid.shape[-1]))
            crossing = doc_spans[~inside & (doc_spans[:, 0] < end) & (doc_spans[:, 1] > start)]
            counted.append(_uncut_cells(end - start, crossing[:, 0] - start, crossing[:, 1] - start))
        return numpy.concatenate(grids), numpy.concatenate(counted)


def _uncut_cells(length: int, starts: numpy.ndarray, ends: numpy.ndarray) -> numpy.ndarray:
    """Bool (length * length,): False at the neighbour-link cells, both
    directions, of the parts inside [0, length) of spans cut by its edges."""
    counted = numpy.ones((length, length), dtype=bool)
    starts = numpy.maximum(starts, 0)
    tails = numpy.minimum(ends, length) - 1
    n_links = numpy.maximum(tails - starts, 0)
    offsets = numpy.arange(int(n_links.sum())) - numpy.repeat(numpy.cumsum(n_links) - n_links, n_links)
    links = numpy.repeat(starts, n_links) + offsets
    counted[links, links + 1] = False
    counted[links + 1, links] = False
    return counted.reshape(-1)


def _check_grid_length(value: Any, name: str) -> None:
    check_int(value, "max_grid_length", name, error=Errors.E200)
    # Overlapping windows share max_grid_length // 8 tokens of context.
    check_int(value, "max_grid_length", name, least=MIN_GRID_LENGTH, error=Errors.E230)


def _check_unsegmented_window(value: Any, name: str) -> None:
    check_int(value, "unsegmented_window", name, least=MIN_GRID_LENGTH, allow_none=True, error=Errors.E233)
