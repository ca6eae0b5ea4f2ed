"""The base of the span components: SpanPipe, put together from its parts
(labels and gold: span_labels; decoding at thresholds: span_decoding; saving
and loading: span_serialization; the head's learning rate: head_lr).

A subclass provides:

- `_decode_at(docs, scores, thresholds) -> spans`: one SpanArrays per doc;
  `thresholds` holds a probability per label where the class sets
  `span_thresholds`, else None;
- `get_loss(examples, scores) -> (loss, d_scores)`;
- where needed, `_configure_model()` (copies cfg settings into model attrs;
  called before sizing the head and before each predict and update),
  `_n_head_outputs()` (the head's nO, if not len(labels)) and
  `_initialize_settings(summary, get_examples)` (settings inferred from the
  gold, warnings about gold the head cannot learn).

The architecture must `set_ref("head", ...)` on the Thinc node that owns the
torch module; the node has no layers until the module is built.
"""
import warnings
from itertools import islice
from typing import Any, Callable, Dict, Iterable, List, Optional

from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer, set_dropout_rate

from ..errors import Errors, Warnings
from ..validation import check_bool, check_key, check_number
from .ents_filters import EntsFilter
from .gold import check_gold_layer
from .head_lr import HeadScaledOptimizer
from .listeners import missing_upstream
from .span_decoding import ThresholdDecoding
from .span_labels import GoldSummary, LabelsAndGold
from .span_serialization import TwoPhaseRestore
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


class SpanPipe(LabelsAndGold, ThresholdDecoding, TwoPhaseRestore, TrainablePipe):
    """Base class of the span-predicting components (not registered itself).
    self.cfg holds settings (from the config) and learned state.
    """

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
        self._configure_model()  # pick up edits to self.cfg made after loading
        docs = list(docs)
        if not self._cut_off_reported:
            upstream = missing_upstream(self.model, docs)
            if upstream is not None:
                self._cut_off_reported = True
                warnings.warn(Warnings.W006.format(name=self.name, upstream=upstream))
        return self.model.predict(docs)

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

    def _initialize_settings(
        self, summary: GoldSummary, get_examples: Callable[[], Iterable[Example]]
    ) -> None:
        """Infer the head's settings from the gold (those the config leaves None)
        and warn about gold spans the head cannot learn. The labels are set.
        """

    # Scoring --------------------------------------------------------------

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        validate_examples(examples, f"{type(self).__name__}.score")
        return self.scorer(examples, spans_key=self.key, set_ents=self.cfg["set_ents"], **kwargs)


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
