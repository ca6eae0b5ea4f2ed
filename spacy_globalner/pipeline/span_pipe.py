"""The base of the span components, SpanPipe: labels and gold, the two
phases of training (initialize, update), decoding at thresholds, and saving
and loading a lazily built torch head (cfg first, then the head's shape, then
the weights, checked for shape and for NaN or inf).

A head subclasses SpanPipe and implements the hooks documented in the
class's "Hooks a head implements" section: `_decode_at` and `get_loss`
always; `_n_head_outputs`, `_initialize_settings` and `_configure_model`
where the default does not fit. The architecture must `set_ref("head", ...)`
on the Thinc node that owns the torch module; the node has no layers until
the module is built.

Decoding reads its settings (threshold, max_candidates, ...) from self.cfg
when it runs, so an edit of cfg takes effect at the next call. The few
settings the model's forward needs reach it in `_configure_model`, once:
when the pipe is created, sized (initialize) and restored (loading).

At load the component has just been created from the pipeline's config (with
the user's overrides): for a setting, that value is the one used. Only what
training learned comes from the saved cfg.
"""
import warnings
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy
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
from ..ml.layers.pytorch_wrapper import shim_module
from ..validation import check_bool, check_key, check_number
from .edges import filter_span_arrays
from .ents_filters import EntsFilter
from .gold import GoldSummary, aligned_gold_spans, check_gold_layer
from .head_lr import HeadScaledOptimizer
from .listeners import missing_upstream
from .span_output import write_spans
from .spans_keys import written_spans_key

# The encoder of every component's default model, appended to its [model]
# block: the CNN that spaCy's own components start from.
DEFAULT_TOK2VEC_MODEL = """
[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true
"""
N_INIT_EXAMPLES = 10
# The most spans one doc may yield (global_pointer, crener), the highest-scoring
# kept: a bound on the memory of a long doc, where an untrained or badly
# trained head would yield a span for most cells (docs/thresholds.md,
# "max_candidates").
DEFAULT_MAX_CANDIDATES = 20000
# With at least this many gold spans, losing most of them to misalignment means
# the tokenizer does not match the corpus: an error, not a warning.
MIN_SPANS_FOR_MISMATCH = 10


class SpanPipe(TrainablePipe):
    """Base class of the span-predicting components (not registered itself).

    self.cfg holds settings (from the config) and learned state. Class
    attributes a head sets:

    - span_thresholds: whether cfg["threshold"] (and the calibrated
      cfg["thresholds"]) is the score, a probability, that a span of a label
      must reach; set_annotations then passes `_decode_at` one per label;
    - capped_warning: the warning where max_candidates cut a doc's spans
      (formatted with name, kept, count, length and more);
    - learned_cfg_keys: cfg keys that are learned state, restored from the
      saved cfg at load;
    - inferred_cfg_keys: settings that initialize() infers from the data where
      the config leaves them None, restored from the saved cfg while the
      config still says None. Every other setting keeps the value the
      component was created with (the config's, with the user's overrides).
    """

    span_thresholds: bool = False
    capped_warning: str = ""
    learned_cfg_keys: Tuple[str, ...] = ("labels", "thresholds")
    inferred_cfg_keys: Tuple[str, ...] = ()

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
        check_key(spans_key, "spans_key", name)
        check_bool(set_ents, "set_ents", name)
        if "head_lr_scale" in cfg:
            check_number(cfg["head_lr_scale"], "head_lr_scale", name, above=0.0, error=Errors.E040)
        self.vocab = vocab
        self.model = model
        self.name = name
        self.ents_filter = ents_filter
        self.scorer = scorer
        # Gold spans that update() could not align: initialize() reports those of
        # the training corpus (W002); resumed training reports its own (W004).
        self.n_unaligned_gold = 0
        self._unaligned_reported = False
        # W006 (listener cut off from its encoder) is reported once per component.
        self._cut_off_reported = False
        self.cfg: Dict[str, Any] = {
            "labels": [],
            "spans_key": spans_key,
            "set_ents": set_ents,
            **cfg,
        }
        # What the config said: W005 at saving when an edit of cfg would be lost.
        self._configured_settings = {
            key: value for key, value in self.cfg.items() if key not in self.learned_cfg_keys
        }
        self._configure_model()

    @property
    def is_initialized(self) -> bool:
        return bool(self.model.get_ref("head").layers)

    def _require_initialized(self) -> None:
        if not self.is_initialized:
            raise ValueError(Errors.E002.format(name=self.name))

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
        docs = list(docs)
        if not self._cut_off_reported:
            upstream = missing_upstream(self.model, docs)
            if upstream is not None:
                self._cut_off_reported = True
                warnings.warn(Warnings.W006.format(name=self.name, upstream=upstream))
        return self.model.predict(docs)

    def _init_model_shape(self) -> None:
        """Give the model its settings from cfg, then size the head from the
        labels and build its torch module, so that weights can be loaded into it.
        """
        self._configure_model()
        head = self.model.get_ref("head")
        if self.labels and not head.layers:
            head.set_dim("nO", self._n_head_outputs(), force=True)
            head.initialize()

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
        """Collect labels from the data (unless given), infer the head's settings
        from the gold, size and initialize the model on a few examples.

        get_examples (Callable[[], Iterable[Example]]): The training data.
        nlp (Optional[Language]): The pipeline: no other component may write
            doc.spans[spans_key]. Its config is left as it is (the training
            budget is the callbacks' of pipeline/schedule_budget.py).
        labels (Optional[List[str]]): The labels, instead of those in the data.
        """
        validate_get_examples(get_examples, f"{type(self).__name__}.initialize")
        if nlp is not None and self.name in nlp.component_names:
            check_spans_key_free(nlp, self.name, self.key, nlp.get_pipe_meta(self.name).factory)
        check_gold_layer(get_examples(), self.key, self.name, labels_given=bool(labels or self.labels))
        summary = self._summarise_gold(get_examples)
        self._initialize_labels(summary, labels)
        if self.span_thresholds:
            self.label_thresholds()  # a threshold out of range fails before training
        self._initialize_settings(summary, get_examples)
        self._initialize_model(get_examples)

    # Scoring --------------------------------------------------------------

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        validate_examples(examples, f"{type(self).__name__}.score")
        return self.scorer(examples, spans_key=self.key, set_ents=self.cfg["set_ents"], **kwargs)

    # Hooks a head implements --------------------------------------------

    def _decode_at(self, docs: List[Doc], scores: Any, thresholds: Optional[numpy.ndarray]) -> List[SpanArrays]:
        """Required: the spans of each doc, label ids in the order of
        self.labels.

        docs (List[Doc]): The batch.
        scores: What the model returned for the batch.
        thresholds (Optional[numpy.ndarray]): Float (n_labels,): the score (a
            probability) each label's spans must reach, where span_thresholds;
            else None.
        RETURNS (List[SpanArrays]): One per doc.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement _decode_at")

    def get_loss(self, examples: Iterable[Example], scores: Any) -> Tuple[float, Any]:
        """Required: the loss of a batch and its gradient w.r.t. the scores.

        examples (Iterable[Example]): The batch, its gold under spans_key.
        scores: What the model returned for the batch.
        RETURNS (Tuple[float, Any]): The loss and d_scores, shaped as scores.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement get_loss")

    def _n_head_outputs(self) -> int:
        """Optional: the head's nO (default: one per label).

        RETURNS (int): The head's number of outputs.
        """
        return len(self.labels)

    def _initialize_settings(
        self, summary: GoldSummary, get_examples: Callable[[], Iterable[Example]]
    ) -> None:
        """Optional: infer the head's settings from the gold (those the config
        leaves None) and warn about gold spans the head cannot learn. Called
        by initialize() once the labels are set, before the model is sized.

        summary (GoldSummary): Labels, widths and misaligned spans of the gold.
        get_examples (Callable[[], Iterable[Example]]): The training data.
        """

    def _configure_model(self) -> None:
        """Optional: give the model the settings from self.cfg that its
        forward reads (in its attrs). Called when the pipe is created, before
        the head is sized and after weights are loaded; never per call: a
        head whose model reads a setting offers a property that sets it.
        """

    # Labels and gold ------------------------------------------------------

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    @property
    def key(self) -> str:
        return self.cfg["spans_key"]

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

    # Decoding at thresholds -----------------------------------------------

    def set_annotations(self, docs: Iterable[Doc], scores) -> None:
        """Decode the scores and write spans to doc.spans[spans_key] (and doc.ents)."""
        docs = list(docs)
        ents_filter = self.ents_filter if self.cfg["set_ents"] else None
        label_keys = [self.vocab.strings.add(label) for label in self.labels]
        thresholds = self.label_thresholds() if self.span_thresholds else None
        for doc, found in zip(docs, self._decode_at(docs, scores, thresholds)):
            found = filter_span_arrays(doc, found)
            write_spans(doc, found, label_keys, self.key, ents_filter)

    def _warn_capped(self, docs: List[Doc], counts: numpy.ndarray) -> None:
        """Warn once per call where `max_candidates` cut a doc's spans (counts:
        how many each doc had before the cap), naming the first such doc."""
        cap = self.cfg.get("max_candidates") or None
        over = numpy.flatnonzero(counts > cap) if cap is not None else []
        if len(over):
            first = int(over[0])
            more = f" (and {len(over) - 1} more doc(s) of this call)" if len(over) > 1 else ""
            warnings.warn(
                self.capped_warning.format(
                    name=self.name, kept=cap, count=int(counts[first]), length=len(docs[first]), more=more
                )
            )

    @property
    def can_calibrate(self) -> bool:
        """Whether `spacy globalner calibrate` can set per-label thresholds."""
        return self.span_thresholds

    def label_thresholds(self) -> numpy.ndarray:
        """Float64 (n_labels,): the score (a probability, as in attrs["scores"])
        each label's spans must reach: its threshold from `spacy globalner
        calibrate` (cfg["thresholds"], label -> probability), `threshold` for
        the others.
        """
        fallback = self.cfg["threshold"]  # may be set in Python after creation
        check_number(fallback, "threshold", self.name, least=0.0, most=1.0, error=Errors.E050, key=self.key)
        calibrated = self.cfg.get("thresholds") or {}
        values = calibrated.values() if isinstance(calibrated, dict) else [None]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ValueError(Errors.E018.format(name=self.name, value=calibrated))
        thresholds = numpy.asarray([calibrated.get(label, fallback) for label in self.labels], dtype="float64")
        if not numpy.isfinite(thresholds).all():
            raise ValueError(Errors.E018.format(name=self.name, value=calibrated))
        if not ((thresholds >= 0.0) & (thresholds <= 1.0)).all():
            raise ValueError(Errors.E051.format(name=self.name, value=calibrated))
        return thresholds

    def candidate_spans(self, docs: List[Doc], scores, thresholds: numpy.ndarray) -> List[SpanArrays]:
        """The spans each doc would get with these per-label thresholds, as
        set_annotations would write them (edge tokens filtered out).

        thresholds (numpy.ndarray): Float (n_labels,), one per label.
        RETURNS (List[SpanArrays]): One per doc.
        """
        found = self._decode_at(docs, scores, thresholds)
        return [filter_span_arrays(doc, spans) for doc, spans in zip(docs, found)]

    # Saving and loading: cfg first, then the head's shape, then weights --

    def _restore_cfg(self, saved: Dict[str, Any]) -> None:
        """Merge a saved cfg: learned keys (and keys the config does not set)
        from `saved`; inferred keys from `saved` while the config leaves them
        None; every other setting keeps the value the component was created with.
        """
        for key, value in saved.items():
            learned = key in self.learned_cfg_keys or key not in self.cfg
            inferred = key in self.inferred_cfg_keys and self.cfg[key] is None
            if learned or inferred:
                self.cfg[key] = value

    def _warn_unsaved_settings(self) -> None:
        """W005 for each setting edited in self.cfg after creation: the config
        the pipeline is saved with still holds the old value, which wins at load.
        """
        for key, configured in self._configured_settings.items():
            value = self.cfg.get(key)
            if value != configured and not (key in self.inferred_cfg_keys and configured is None):
                warnings.warn(
                    Warnings.W005.format(name=self.name, key=key, value=value, configured=configured)
                )

    def _load_cfg(self, data: bytes, where: str) -> None:
        try:
            saved = srsly.json_loads(data)
        except ValueError as err:
            raise ValueError(Errors.E014.format(name=self.name, where=where, err=err)) from None
        if not isinstance(saved, dict) or not isinstance(saved.get("labels"), list):
            err = f"found {type(saved).__name__} without a labels list"
            raise ValueError(Errors.E014.format(name=self.name, where=where, err=err))
        self._restore_cfg(saved)

    def _load_model(self, data: bytes, where: str) -> None:
        self._init_model_shape()
        # Thinc restores each node's saved attrs; the head's attrs are the
        # architecture's settings, which the config gives (as for cfg above).
        configured = [(node, dict(node.attrs)) for node in self.model.get_ref("head").walk()]
        try:
            self.model.from_bytes(data)
        # msgpack, Thinc's dimension checks and torch's state dict each raise
        # their own types; to a user all of them mean "these weights don't load".
        except Exception as err:
            raise ValueError(
                Errors.E015.format(
                    name=self.name, where=where, err=f"{type(err).__name__}: {str(err).rstrip('.')}",
                    n_labels=len(self.labels), labels=list(self.labels),
                )
            ) from err
        # A pipe built before (loading into an initialized pipe) keeps its head's
        # shape, so Thinc sees no change of nO: compare with the labels here.
        n_outputs = self.model.get_ref("head").get_dim("nO")
        if n_outputs != self._n_head_outputs():
            raise ValueError(
                Errors.E015.format(
                    name=self.name, where=where, n_labels=len(self.labels), labels=list(self.labels),
                    err=f"the weights have {n_outputs} outputs, the labels need {self._n_head_outputs()}",
                )
            )
        for node, attrs in configured:
            node.attrs.update(attrs)
        self._configure_model()
        count, param = non_finite_weights(self.model)
        if count:
            raise ValueError(Errors.E016.format(name=self.name, where=where, count=count, param=param))

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        self._warn_unsaved_settings()
        return super().to_bytes(exclude=exclude)

    def to_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> None:
        self._warn_unsaved_settings()
        super().to_disk(path, exclude=exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "SpanPipe":
        self._validate_serialization_attrs()
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except (ValueError, TypeError) as err:  # msgpack: truncated, or not msgpack at all
            raise ValueError(
                Errors.E017.format(name=self.name, err=f"{type(err).__name__}: {str(err).rstrip('.')}")
            ) from err
        where = "the {!r} entry of the bytes given to from_bytes".format
        if not isinstance(msg, dict):
            raise ValueError(Errors.E017.format(name=self.name, err=f"found a {type(msg).__name__}"))
        for key in ("cfg", "model"):
            if key not in exclude and key not in msg:
                raise ValueError(Errors.E013.format(name=self.name, where=where(key)))
        if "cfg" not in exclude:
            self._load_cfg(msg["cfg"], where("cfg"))
        if "vocab" not in exclude and "vocab" in msg:
            self.vocab.from_bytes(msg["vocab"], exclude=exclude)
        if "model" not in exclude:
            self._load_model(msg["model"], where("model"))
        return self

    def from_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> "SpanPipe":
        self._validate_serialization_attrs()

        def read(part_path: Path) -> bytes:
            if not part_path.is_file():
                raise ValueError(Errors.E013.format(name=self.name, where=part_path))
            return part_path.read_bytes()

        deserialize = {
            "cfg": lambda cfg_path: self._load_cfg(read(cfg_path), str(cfg_path)),
            "vocab": lambda vocab_path: self.vocab.from_disk(vocab_path, exclude=exclude),
            "model": lambda model_path: self._load_model(read(model_path), str(model_path)),
        }
        util.from_disk(path, deserialize, exclude)
        return self


def check_spans_key_free(nlp: Language, name: str, key: str, factory: str) -> None:
    """Raise E023 where another component of nlp (spancat too) writes
    doc.spans[key]: whichever ran later would replace the other's spans.
    Factories call it before the component joins the pipeline, initialize()
    again (a pipe's spans_key can change after it was built, and spaCy's
    factories, adding spancat after this one, check nothing).

    nlp (Language): The pipeline.
    name (str): The component's name.
    key (str): The doc.spans key it writes.
    factory (str): Its factory, for the fix the error gives.
    """
    for other, pipe in nlp.components:
        if other != name and written_spans_key(pipe) == key:
            raise ValueError(Errors.E023.format(name=name, other=other, key=key, factory=factory))


def non_finite_weights(model: Model) -> Tuple[int, Optional[str]]:
    """Count the NaN/inf weights of a model, Thinc params and torch tensors alike.

    RETURNS (Tuple[int, Optional[str]]): The count and the first offending
        parameter ("node.param"), or (0, None).
    """
    count, first = 0, None
    for node in model.walk():
        arrays = [
            (name, node.ops.to_numpy(node.get_param(name)))
            for name in node.param_names
            if node.has_param(name)
        ]
        for shim in node.shims:
            module = shim_module(shim)
            if module is not None:
                arrays.extend(
                    (name, tensor.detach().float().cpu().numpy())
                    for name, tensor in module.state_dict().items()
                    if tensor.is_floating_point()
                )
        for name, array in arrays:
            bad = int(array.size - numpy.isfinite(array).sum())
            if bad and first is None:
                first = f"{node.name}.{name}"
            count += bad
    return count, first
