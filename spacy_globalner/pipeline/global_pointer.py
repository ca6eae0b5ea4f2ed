"""The `global_pointer` component: nested and flat NER by scoring every span."""
import warnings
from typing import Any, Callable, Iterable, List, Optional, Tuple

import numpy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model, torch2xp, xp2torch
from thinc.types import Floats3d

from ..decoding import SpanArrays
from ..decoding.global_pointer import band_cell_coordinates, decode_band
from ..errors import Errors, Warnings
from ..ml.models import global_pointer as _registers_architecture  # noqa: F401
from ..ml.torch.global_pointer.loss import global_pointer_loss
from ..validation import check_bool, check_int, check_number
from .ents_filters import EntsFilter
from .gold import GoldSummary
from .scoring import NESTED_NER_SCORE_WEIGHTS, score_spans_and_ents
from .span_pipe import (
    DEFAULT_MAX_CANDIDATES,
    DEFAULT_TOK2VEC_MODEL,
    SpanPipe,
    check_spans_key_free,
)

DEFAULT_GLOBAL_POINTER_MODEL = """
[model]
@architectures = "spacy-globalner.GlobalPointer.v1"
head_width = 64
rope = true
efficient = false
dropout = 0.1
""" + DEFAULT_TOK2VEC_MODEL
DEFAULT_GLOBAL_POINTER_MODEL_CONFIG = Config().from_str(DEFAULT_GLOBAL_POINTER_MODEL)["model"]
# The score (a probability, as spancat's) a span must reach: 0.3775, the
# logit -0.5, not 0.5, because the head under-calls (docs/global_pointer.md).
# docs/thresholds.md: how to tune it.
DEFAULT_THRESHOLD = 0.3775


@Language.factory(
    "global_pointer",
    assigns=["doc.spans", "doc.ents"],
    default_config={
        "model": DEFAULT_GLOBAL_POINTER_MODEL_CONFIG,
        "spans_key": "sc",
        "threshold": DEFAULT_THRESHOLD,
        "max_candidates": DEFAULT_MAX_CANDIDATES,
        "max_span_width": None,
        "prior_offset": True,
        "set_ents": True,
        "ents_filter": {"@misc": "spacy-globalner.longest_first_filter.v1"},
        "scorer": {"@scorers": "spacy-globalner.span_scorer.v1"},
        "head_lr_scale": 1.0,
    },
    default_score_weights=dict(NESTED_NER_SCORE_WEIGHTS),
)
def make_global_pointer(
    nlp: Language,
    name: str,
    model: Model[List[Doc], Floats3d],
    spans_key: str,
    threshold: float,
    max_candidates: Optional[int],
    max_span_width: Optional[int],
    prior_offset: bool,
    set_ents: bool,
    ents_filter: EntsFilter,
    scorer: Optional[Callable],
    head_lr_scale: float,
) -> "GlobalPointer":
    """Create a GlobalPointer recogniser: every span up to `max_span_width` tokens
    whose score (a probability) for a label is at least `threshold` is an
    entity of that label, at most `max_candidates` per doc.

    nlp (Language): The pipeline the component is added to.
    name (str): The component instance name, used to add entries to the
        losses during training.
    model (Model[List[Doc], Floats3d]): A model instance that is given a
        list of documents and returns the logit of every (start, width, label)
        cell of the band, (n_tokens, width, n_labels), width at most max_span_width.
    spans_key (str): Key of doc.spans to write the spans under; training
        reads the gold spans from it (from doc.ents, for a doc without the key).
    threshold (float): The score (a probability, as spancat's) a span
        must reach; labels calibrated by `spacy globalner calibrate` use their own.
    max_candidates (Optional[int]): The most spans one doc may yield, the
        highest-scoring kept, a bound on the memory of a long doc (0 or None:
        no bound).
    max_span_width (Optional[int]): The widest span scored, in tokens;
        None sets it from the widest gold span at initialize.
    prior_offset (bool): Whether initialize starts every score at half the
        log-odds of a cell being a gold span in the training data, rather than
        at 0.
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
    RETURNS (GlobalPointer): The component.
    """
    check_spans_key_free(nlp, name, spans_key, "global_pointer")
    return GlobalPointer(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        threshold=threshold,
        max_candidates=max_candidates,
        max_span_width=max_span_width,
        prior_offset=prior_offset,
        set_ents=set_ents,
        ents_filter=ents_filter,
        scorer=scorer,
        head_lr_scale=head_lr_scale,
    )


class GlobalPointer(SpanPipe):
    """Score s(i, j, label) for every span and keep the cells whose score,
    sigmoid(s), reaches the threshold.

    self.cfg holds the settings of __init__ and what initialize and
    calibration learn: labels, max_span_width where the config leaves it
    None, score_offset (with prior_offset) and thresholds (label ->
    probability, from `spacy globalner calibrate`; `threshold` is the
    fallback for labels without one).
    """

    inferred_cfg_keys = ("max_span_width",)
    capped_warning = Warnings.W050
    span_thresholds = True
    # score_offset: set by initialize() when prior_offset is on (see _prior_offset).
    learned_cfg_keys = SpanPipe.learned_cfg_keys + ("score_offset",)

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], Floats3d],
        name: str = "global_pointer",
        *,
        spans_key: str = "sc",
        threshold: float = DEFAULT_THRESHOLD,
        max_candidates: Optional[int] = DEFAULT_MAX_CANDIDATES,
        max_span_width: Optional[int] = None,
        prior_offset: bool = True,
        set_ents: bool = True,
        ents_filter: EntsFilter,
        scorer: Optional[Callable] = score_spans_and_ents,
        head_lr_scale: float = 1.0,
    ) -> None:
        """Initialize the component; the settings go to self.cfg.

        vocab (Vocab): The shared vocabulary.
        model (Model[List[Doc], Floats3d]): A model instance that is given a
            list of documents and returns the logit of every (start, width, label)
            cell of the band, (n_tokens, width, n_labels), width at most max_span_width.
        name (str): The component instance name, used to add entries to the
            losses during training.
        spans_key (str): Key of doc.spans to write the spans under; training
            reads the gold spans from it (from doc.ents, for a doc without the key).
        threshold (float): The score (a probability, as spancat's) a span
            must reach; labels calibrated by `spacy globalner calibrate` use their own.
        max_candidates (Optional[int]): The most spans one doc may yield, the
            highest-scoring kept, a bound on the memory of a long doc (0 or None:
            no bound).
        max_span_width (Optional[int]): The widest span scored, in tokens;
            None sets it from the widest gold span at initialize.
        prior_offset (bool): Whether initialize starts every score at half the
            log-odds of a cell being a gold span in the training data, rather than
            at 0.
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
        check_int(max_candidates, "max_candidates", name, least=0, allow_none=True, error=Errors.E052)
        _check_width(max_span_width, name)
        check_bool(prior_offset, "prior_offset", name)
        super().__init__(
            vocab,
            model,
            name,
            spans_key=spans_key,
            set_ents=set_ents,
            ents_filter=ents_filter,
            scorer=scorer,
            threshold=float(threshold),
            max_candidates=max_candidates,
            max_span_width=max_span_width,
            head_lr_scale=head_lr_scale,
            prior_offset=prior_offset,
        )

    @property
    def max_span_width(self) -> Optional[int]:
        """The widest span scored, in tokens. Setting it also sets the band
        the head scores; an edit of cfg["max_span_width"] only narrows the
        spans decoded from the band the head was given.
        """
        return self.cfg["max_span_width"]

    @max_span_width.setter
    def max_span_width(self, value: Optional[int]) -> None:
        _check_width(value, self.name)
        self.cfg["max_span_width"] = value
        self._configure_model()

    def _configure_model(self) -> None:
        # The head's forward needs both: the band's width shapes its output,
        # and the learned offset is added to every score.
        head = self.model.get_ref("head")
        head.attrs["max_span_width"] = self.max_span_width
        head.attrs["score_offset"] = float(self.cfg.get("score_offset", 0.0))

    def _initialize_settings(
        self, summary: GoldSummary, get_examples: Callable[[], Iterable[Example]]
    ) -> None:
        """Set max_span_width from the longest gold span unless configured; warn
        about gold spans wider than a configured max_span_width.
        """
        widest = max(summary.widths, default=1)
        if self.max_span_width is None:
            self.cfg["max_span_width"] = widest
        else:
            too_wide = [width for width in summary.widths if width > self.max_span_width]
            if too_wide:
                warnings.warn(
                    Warnings.W001.format(
                        count=len(too_wide),
                        total=len(summary.widths),
                        name=self.name,
                        width=self.max_span_width,
                        widest=widest,
                    )
                )
        if self.cfg["prior_offset"]:
            self.cfg["score_offset"] = self._prior_offset(get_examples, summary.widths)

    def _prior_offset(self, get_examples: Callable[[], Iterable[Example]], widths: List[int]) -> float:
        """Half the log-odds of a cell being a gold span in the training data.

        The loss of a (doc, label) group is log(1 + sum over negatives of e^s)
        + log(1 + sum over positives of e^-s): with all scores at a common s,
        its gradient on s vanishes where e^(2s) = positives / negatives. Adding
        that s to every score makes training start there, instead of at 0,
        where hundreds of negatives per group outweigh the few positives.

        RETURNS (float): The offset (0.0 without gold spans).
        """
        width = self.max_span_width
        lengths = numpy.asarray([len(example.predicted) for example in get_examples()], dtype="float64")
        # cells of a doc of n tokens: sum over starts of min(width, n - start)
        wide = numpy.minimum(lengths, width)
        n_cells = float((wide * lengths - wide * (wide - 1) / 2).sum()) * len(self.labels)
        n_gold = sum(1 for span_width in widths if span_width <= width)
        if n_gold == 0 or n_cells <= n_gold:
            return 0.0
        # Rounded: the cfg is saved as JSON, which keeps about 10 significant digits.
        return round(0.5 * float(numpy.log(n_gold / (n_cells - n_gold))), 6)

    def _decode_at(self, docs: List[Doc], scores: Floats3d, thresholds: numpy.ndarray) -> List[SpanArrays]:
        lengths = [len(doc) for doc in docs]
        cap = self.cfg.get("max_candidates") or None
        scores = self.model.ops.to_numpy(scores)
        if self.max_span_width is not None:
            # Column w holds the spans of w + 1 tokens.
            scores = scores[:, : self.max_span_width]
        found, counts = decode_band(scores, lengths, thresholds, cap)
        self._warn_capped(docs, counts)
        return found

    def get_loss(self, examples: Iterable[Example], scores: Floats3d) -> Tuple[float, Floats3d]:
        """The multi-label cross-entropy over each (doc, label), in fp32.

        RETURNS (Tuple[float, Floats3d]): The loss and its gradient w.r.t. scores.
        """
        examples = list(examples)
        lengths = [len(example.predicted) for example in examples]
        n_tokens, width, n_labels = scores.shape
        if n_tokens != sum(lengths):
            raise ValueError(
                Errors.E007.format(
                    name=self.name, expected=sum(lengths), n_docs=len(examples),
                    n_tokens=sum(lengths), got=n_tokens,
                )
            )
        doc_of_row, _, valid = band_cell_coordinates(lengths, width)
        gold = self._gold_cells(examples, lengths, width)
        group = doc_of_row[:, None, None] * n_labels + numpy.arange(n_labels)[None, None, :]
        # The gradient stays fp32 (a leaf in fp32) until the head's grad scaler scales it.
        logits = xp2torch(self.model.ops.xp.asarray(scores, dtype="float32"), requires_grad=True)
        device = logits.device
        loss = global_pointer_loss(
            logits,
            torch.as_tensor(gold, device=device),
            torch.as_tensor(numpy.broadcast_to(valid[:, :, None], gold.shape).copy(), device=device),
            torch.as_tensor(numpy.broadcast_to(group, gold.shape).copy(), device=device),
            len(examples) * n_labels,
        )
        loss.backward()
        d_scores = torch2xp(logits.grad)
        return float(loss.item()), d_scores

    def _gold_cells(self, examples: List[Example], lengths: List[int], width: int) -> numpy.ndarray:
        """Bool (n_tokens, width, n_labels): True at each gold span's cell."""
        label_index = {label: i for i, label in enumerate(self.labels)}
        gold = numpy.zeros((sum(lengths), width, len(self.labels)), dtype=bool)
        offset = 0
        rows, widths, label_ids = [], [], []
        for example, length in zip(examples, lengths):
            for span in self._gold_spans(example):
                if len(span) <= width:
                    rows.append(offset + span.start)
                    widths.append(len(span) - 1)
                    label_ids.append(label_index[span.label_])
            offset += length
        gold[rows, widths, label_ids] = True
        return gold


def _check_width(value: Any, name: str = "global_pointer") -> None:
    check_int(value, "max_span_width", name, allow_none=True, error=Errors.E006)

