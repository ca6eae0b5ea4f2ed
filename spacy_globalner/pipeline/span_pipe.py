"""What every spacy-globalner component shares: labels, gold spans, span output,
scoring and the two-phase restore of a lazily built torch head.

A subclass provides the model-specific parts:

- `_configure_model()`: copy settings from self.cfg into model attrs (widths,
  window sizes), and `_n_head_outputs()` if the head's nO is not len(labels);
  the base's `_init_model_shape()` then sizes the head and builds its torch
  module, so that weights can be loaded into it;
- `_decode(docs, scores) -> List[SpanArrays]`: pure decoding of model output;
- `get_loss(examples, scores)` and, where it needs more, `initialize`.

The architecture must `set_ref("head", ...)` on the Thinc node that owns the
torch module; the node has no layers until the module is built.
"""
from itertools import islice
import math
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple
import warnings

import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc, Span
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer, set_dropout_rate

from ..decoding import SpanArrays
from ..errors import Errors, Warnings
from .ents_filters import EntsFilter
from .gold import aligned_gold_spans
from .span_output import write_spans

N_INIT_EXAMPLES = 10
# With at least this many gold spans, losing most of them to misalignment means
# the tokenizer does not match the corpus: an error, not a warning.
MIN_SPANS_FOR_MISMATCH = 10


class GoldSummary:
    """What a pass over the training data found: labels, widest span, misses."""

    def __init__(self) -> None:
        self.labels: set = set()
        self.widths: List[int] = []
        self.missed: List[Span] = []

    def add(self, aligned: Sequence[Span], missed: Sequence[Span]) -> None:
        self.labels.update(span.label_ for span in aligned)
        self.labels.update(span.label_ for span in missed)
        self.widths.extend(len(span) for span in aligned)
        self.missed.extend(missed)


class SpanPipe(TrainablePipe):
    """Base class of the span-predicting components (not registered itself)."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str,
        *,
        spans_key: str,
        set_ents: bool,
        ents_filter: EntsFilter,
        scorer: Optional[Callable],
        **cfg: Any,
    ) -> None:
        if not callable(ents_filter):
            raise ValueError(Errors.E008.format(value=ents_filter))
        if "head_lr_scale" in cfg:
            _check_lr_scale(cfg["head_lr_scale"], name)
        self.vocab = vocab
        self.model = model
        self.name = name
        self.ents_filter = ents_filter
        self.scorer = scorer
        # Gold spans that update() could not align: initialize() reports those of
        # the training corpus (W002); resumed training reports its own (W004).
        self.n_unaligned_gold = 0
        self._unaligned_reported = False
        self.cfg: Dict[str, Any] = {
            "labels": [],
            "spans_key": spans_key,
            "set_ents": set_ents,
            **cfg,
        }

    # Labels ---------------------------------------------------------------

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    @property
    def key(self) -> str:
        return self.cfg["spans_key"]

    @property
    def is_initialized(self) -> bool:
        return bool(self.model.get_ref("head").layers)

    def add_label(self, label: str) -> int:
        if not isinstance(label, str) or not label:
            raise ValueError(Errors.E005.format(label=label))
        if label in self.labels:
            return 0
        if self.is_initialized:
            raise ValueError(
                Errors.E004.format(label=label, name=self.name, labels=list(self.labels))
            )
        self.cfg["labels"] = list(self.labels) + [label]
        self.vocab.strings.add(label)
        return 1

    def _require_labels(self) -> None:
        if not self.labels:
            raise ValueError(Errors.E001.format(name=self.name, key=self.key))

    def _require_initialized(self) -> None:
        if not self.is_initialized:
            raise ValueError(Errors.E002.format(name=self.name))

    # Gold -----------------------------------------------------------------

    def _gold_spans(self, example: Example) -> List[Span]:
        """Aligned gold spans of one example; unknown labels raise E003."""
        aligned, missed = aligned_gold_spans(example, self.key)
        if missed:
            self.n_unaligned_gold += len(missed)
            if not self._unaligned_reported:
                self._unaligned_reported = True
                warnings.warn(
                    Warnings.W004.format(count=len(missed), name=self.name, example=missed[0].text)
                )
        labels = set(self.labels)
        for span in aligned:
            if span.label_ not in labels:
                raise ValueError(
                    Errors.E003.format(label=span.label_, name=self.name, labels=list(self.labels))
                )
        return aligned

    def _summarise_gold(self, get_examples: Callable[[], Iterable[Example]]) -> GoldSummary:
        summary = GoldSummary()
        self._unaligned_reported = True  # reported here for the whole corpus
        for example in get_examples():
            summary.add(*aligned_gold_spans(example, self.key))
        total = len(summary.widths) + len(summary.missed)
        if total >= MIN_SPANS_FOR_MISMATCH and len(summary.missed) > total / 2:
            raise ValueError(
                Errors.E011.format(
                    count=len(summary.missed), total=total, name=self.name,
                    example=summary.missed[0].text,
                )
            )
        if summary.missed:
            warnings.warn(
                Warnings.W002.format(
                    count=len(summary.missed), name=self.name, example=summary.missed[0].text
                )
            )
        if not summary.widths and not summary.missed:
            warnings.warn(Warnings.W003.format(name=self.name, key=self.key))
        return summary

    def _initialize_labels(self, summary: GoldSummary, labels: Optional[Iterable[str]]) -> None:
        if labels is not None:
            for label in labels:
                self.add_label(label)
            unknown = sorted(summary.labels - set(self.labels))
            if unknown:
                raise ValueError(
                    Errors.E003.format(label=unknown[0], name=self.name, labels=list(self.labels))
                )
        else:
            for label in sorted(summary.labels):
                self.add_label(label)
        self._require_labels()

    def _initialize_model(self, get_examples: Callable[[], Iterable[Example]]) -> None:
        self._init_model_shape()
        docs = [example.x for example in islice(get_examples(), N_INIT_EXAMPLES)]
        self.model.initialize(X=docs)

    # Prediction -----------------------------------------------------------

    def predict(self, docs: Iterable[Doc]):
        """Run the model over a batch of docs; never touches the docs.

        RETURNS: The model's scores for the batch (see the architecture).
        """
        self._require_initialized()
        self._configure_model()  # pick up edits to self.cfg made after loading
        return self.model.predict(list(docs))

    def set_annotations(self, docs: Iterable[Doc], scores) -> None:
        """Decode the scores and write spans to doc.spans[spans_key] (and doc.ents)."""
        docs = list(docs)
        ents_filter = self.ents_filter if self.cfg["set_ents"] else None
        for doc, found in zip(docs, self._decode(docs, scores)):
            write_spans(doc, found, self.labels, self.key, ents_filter)

    def _decode(self, docs: List[Doc], scores) -> List[SpanArrays]:
        raise NotImplementedError

    def _init_model_shape(self) -> None:
        """Copy cfg settings to the model, then size the head from the labels and
        build its torch module, so that weights can be loaded into it.
        """
        self._configure_model()
        head = self.model.get_ref("head")
        if self.labels and not head.layers:
            head.set_dim("nO", self._n_head_outputs(), force=True)
            head.initialize()

    def _configure_model(self) -> None:
        """Copy the settings the model reads from self.cfg into its attrs."""

    def _n_head_outputs(self) -> int:
        return len(self.labels)

    # Training -------------------------------------------------------------

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Learn from a batch of examples; adds the loss to losses[self.name]."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        self._require_initialized()
        self._configure_model()
        if not any(len(example.predicted) for example in examples):
            return losses
        set_dropout_rate(self.model, drop)
        scores, backprop = self.model.begin_update([example.predicted for example in examples])
        loss, d_scores = self.get_loss(examples, scores)
        backprop(d_scores)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def finish_update(self, sgd: Optimizer) -> None:
        """Update the model's parameters with their gradients; those of the head
        (the "head" ref: the torch module and its Thinc node) with the
        optimizer's learning rate times cfg["head_lr_scale"], so that a head
        can learn at 1e-3 over a transformer trained at 5e-5.
        """
        scale = float(self.cfg.get("head_lr_scale", 1.0))
        if scale == 1.0:
            self.model.finish_update(sgd)
            return
        self.model.finish_update(HeadScaledOptimizer(sgd, self.model.get_ref("head"), scale))

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
    ) -> None:
        """Collect labels from the data (unless given), size and initialize the model."""
        validate_get_examples(get_examples, f"{type(self).__name__}.initialize")
        summary = self._summarise_gold(get_examples)
        self._initialize_labels(summary, labels)
        self._initialize_model(get_examples)

    # Scoring --------------------------------------------------------------

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        validate_examples(examples, f"{type(self).__name__}.score")
        return self.scorer(examples, spans_key=self.key, set_ents=self.cfg["set_ents"], **kwargs)

    # Serialization: cfg first, then the head's shape, then the weights ------

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "SpanPipe":
        self._validate_serialization_attrs()

        def load_model(data: bytes) -> None:
            self._init_model_shape()
            self.model.from_bytes(data)

        deserialize = {
            "cfg": lambda data: self.cfg.update(srsly.json_loads(data)),
            "vocab": lambda data: self.vocab.from_bytes(data, exclude=exclude),
            "model": load_model,
        }
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def from_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> "SpanPipe":
        self._validate_serialization_attrs()

        def load_model(model_path: Path) -> None:
            self._init_model_shape()
            with open(model_path, "rb") as file_:
                self.model.from_bytes(file_.read())

        deserialize = {
            "cfg": lambda cfg_path: self.cfg.update(srsly.read_json(cfg_path)),
            "vocab": lambda vocab_path: self.vocab.from_disk(vocab_path, exclude=exclude),
            "model": load_model,
        }
        util.from_disk(path, deserialize, exclude)
        return self


class HeadScaledOptimizer:
    """A thin proxy of a Thinc optimizer that scales the learning rate of the
    parameters of one subtree (the head): Thinc's optimizers take `lr_scale`
    per call, and keys are (node or shim id, name), so the head's keys are
    known from its nodes and their shims. Everything else is the optimizer's.

    optimizer (Optimizer): The optimizer of the training loop.
    head (Model): The subtree whose parameters get the scale.
    lr_scale (float): Factor on the learning rate of those parameters.
    """

    def __init__(self, optimizer: Optimizer, head: Model, lr_scale: float) -> None:
        self.optimizer = optimizer
        self.lr_scale = lr_scale
        self.head_ids = set()
        for node in head.walk():
            self.head_ids.add(node.id)
            self.head_ids.update(shim.id for shim in node.shims)

    def __call__(self, key, weights, gradient, *, lr_scale: float = 1.0):
        if key[0] in self.head_ids:
            lr_scale = lr_scale * self.lr_scale
        return self.optimizer(key, weights, gradient, lr_scale=lr_scale)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.optimizer, name)


def _check_lr_scale(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(Errors.E040.format(option="head_lr_scale", name=name, value=value))
