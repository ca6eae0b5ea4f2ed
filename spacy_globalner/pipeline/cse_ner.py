"""The `cse_ner` component: flat NER by CSE tagging (Zöllner et al., 2021):
per token a start and an end probability and a class, decoded by rules that
make an inconsistent output impossible.
"""
from typing import Callable, Iterable, List, Optional, Tuple

import numpy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model, torch2xp, xp2torch
from thinc.types import Floats3d

from ..decoding import SpanArrays
from ..decoding.cse_ner import decode_cse_ner
from ..decoding.probabilities import sigmoid
from ..errors import Errors, Warnings
from ..ml.models.cse_ner import build_cse_ner  # noqa: F401 (registers the architecture)
from ..ml.torch.cse_ner.scorer import cse_loss
from ..validation import check_number
from .ents_filters import highest_score_filter
from .flat_ner import (
    EntityFixCounts,
    FlatSpanPipe,
    expected_scores_shape,
    whitespace_tokens,
)
from .scoring import FLAT_NER_SCORE_WEIGHTS, score_spans_and_ents
from .span_pipe import DEFAULT_TOK2VEC_MODEL, check_spans_key_free

DEFAULT_CSE_NER_MODEL = """
[model]
@architectures = "spacy-globalner.CSENER.v1"
dropout = 0.1
mixed_precision = false
""" + DEFAULT_TOK2VEC_MODEL
DEFAULT_CSE_NER_MODEL_CONFIG = Config().from_str(DEFAULT_CSE_NER_MODEL)["model"]
# The probability that makes a token a start or an end marker.
DEFAULT_THRESHOLD = 0.5


@Language.factory(
    "cse_ner",
    assigns=["doc.ents", "doc.spans"],
    default_config={
        "model": DEFAULT_CSE_NER_MODEL_CONFIG,
        "spans_key": "sc",
        "set_ents": True,
        "threshold": DEFAULT_THRESHOLD,
        "head_lr_scale": 1.0,
        "scorer": {"@scorers": "spacy-globalner.span_scorer.v1"},
    },
    default_score_weights=dict(FLAT_NER_SCORE_WEIGHTS),
)
def make_cse_ner(
    nlp: Language,
    name: str,
    model: Model[List[Doc], Floats3d],
    spans_key: str,
    set_ents: bool,
    threshold: float,
    head_lr_scale: float,
    scorer: Optional[Callable],
) -> "CSENER":
    """Create a CSE tagger: start and end markers above `threshold`, missing
    markers filled in, a class per entity by the mean class probability.

    nlp (Language): The pipeline the component is added to.
    name (str): The component instance name, used to add entries to the
        losses during training.
    model (Model[List[Doc], Floats3d]): A model instance that is given a
        list of documents and returns per token a start and an end logit and
        the class logits, (n_docs, max_length, 2 + n_labels + 1).
    spans_key (str): Key of doc.spans to write the spans under; training
        reads the gold spans from it (from doc.ents, for a doc without the key).
    set_ents (bool): Whether to also write the entities to doc.ents.
    threshold (float): The probability that makes a token a start or an
        end marker.
    head_lr_scale (float): The factor on the optimizer's learning rate
        for the head's parameters (the "head" ref), e.g. 20 to train the head
        at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
    scorer (Optional[Callable]): The scoring method. Defaults to
        Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
        doc.ents.
    RETURNS (CSENER): The component.
    """
    check_spans_key_free(nlp, name, spans_key, "cse_ner")
    return CSENER(
        nlp.vocab, model, name, spans_key=spans_key, threshold=threshold,
        head_lr_scale=head_lr_scale, scorer=scorer, set_ents=set_ents,
    )


class CSENER(FlatSpanPipe):
    """Find entities by their start and end tokens and give each a class.

    The output is flat: the entities go to doc.ents and, with their scores
    (p_start * p_end * mean class probability), to doc.spans[spans_key].
    self.cfg holds the settings of __init__ and the labels.
    `marker_fix_counts` counts the decoded docs whose markers
    above the threshold did not pair up, so that a marker had to be added.
    """

    overlapping_gold_warning = Warnings.W130

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], Floats3d],
        name: str = "cse_ner",
        *,
        spans_key: str = "sc",
        threshold: float = DEFAULT_THRESHOLD,
        head_lr_scale: float = 1.0,
        scorer: Optional[Callable] = score_spans_and_ents,
        set_ents: bool = True,
    ) -> None:
        """Initialize the component; the settings go to self.cfg.

        vocab (Vocab): The shared vocabulary.
        model (Model[List[Doc], Floats3d]): A model instance that is given a
            list of documents and returns per token a start and an end logit and
            the class logits, (n_docs, max_length, 2 + n_labels + 1).
        name (str): The component instance name, used to add entries to the
            losses during training.
        spans_key (str): Key of doc.spans to write the spans under; training
            reads the gold spans from it (from doc.ents, for a doc without the key).
        threshold (float): The probability that makes a token a start or an
            end marker.
        head_lr_scale (float): The factor on the optimizer's learning rate
            for the head's parameters (the "head" ref), e.g. 20 to train the head
            at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
        scorer (Optional[Callable]): The scoring method. Defaults to
            Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
            doc.ents.
        set_ents (bool): Whether to also write the entities to doc.ents.
        """
        check_number(threshold, "threshold", name, least=0.0, most=1.0, error=Errors.E130)
        super().__init__(
            vocab,
            model,
            name,
            spans_key=spans_key,
            set_ents=set_ents,
            ents_filter=highest_score_filter,
            scorer=scorer,
            threshold=float(threshold),
            head_lr_scale=head_lr_scale,
        )
        self.marker_fix_counts = EntityFixCounts()

    def _decode_at(self, docs: List[Doc], scores: Floats3d, thresholds: Optional[numpy.ndarray]) -> List[SpanArrays]:
        lengths = numpy.asarray([len(doc) for doc in docs], dtype="int64")
        self._check_scores(scores, lengths)
        logits = self.model.ops.to_numpy(scores).astype("float64")
        start_probs = sigmoid(logits[..., 0])
        end_probs = sigmoid(logits[..., 1])
        class_logits = logits[..., 2:]
        class_probs = numpy.exp(class_logits - class_logits.max(axis=2, keepdims=True))
        class_probs /= class_probs.sum(axis=2, keepdims=True)
        # Whitespace tokens are never part of an entity (as in spaCy's ner):
        # they can be neither a marker nor the place of an added one.
        outside = whitespace_tokens(docs, logits.shape[1])
        start_probs[outside] = 0.0
        end_probs[outside] = 0.0
        found, repaired = decode_cse_ner(start_probs, end_probs, class_probs, lengths, threshold=self.cfg["threshold"])
        self.marker_fix_counts.add(int((lengths > 0).sum()), int(repaired.sum()))
        return found

    def get_loss(self, examples: Iterable[Example], scores: Floats3d) -> Tuple[float, Floats3d]:
        """Start BCE + end BCE + class softmax cross-entropy, summed over each
        doc's tokens and averaged over the docs, in float32.

        RETURNS (Tuple[float, Floats3d]): The loss and its gradient w.r.t. the logits.
        """
        examples = list(examples)
        lengths = numpy.asarray([len(example.predicted) for example in examples], dtype="int64")
        self._check_scores(scores, lengths)
        starts, ends, classes = self._gold_targets(examples, lengths, scores.shape[1])
        # The gradient stays fp32 (an fp32 leaf) until the head's grad scaler scales it.
        logits = xp2torch(self.model.ops.xp.asarray(scores, dtype="float32"), requires_grad=True)
        device = logits.device
        mask = numpy.arange(scores.shape[1])[None, :] < lengths[:, None]
        loss = cse_loss(
            logits,
            torch.as_tensor(starts, device=device),
            torch.as_tensor(ends, device=device),
            torch.as_tensor(classes, device=device),
            torch.as_tensor(mask, device=device),
        )
        loss.backward()
        d_scores = torch2xp(logits.grad)
        return float(loss.item()), d_scores

    def _gold_targets(
        self, examples: List[Example], lengths: numpy.ndarray, max_length: int
    ) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """Start and end targets (float32) and class ids (int64, "other" =
        n_labels) of the outermost gold spans, (n_docs, max_length) each.
        """
        label_index = {label: i for i, label in enumerate(self.labels)}
        n_labels = len(self.labels)
        starts = numpy.zeros((len(examples), max_length), dtype="float32")
        ends = numpy.zeros((len(examples), max_length), dtype="float32")
        classes = numpy.full((len(examples), max_length), n_labels, dtype="int64")
        for row, example in enumerate(examples):
            for span in self._outermost_gold_spans(example):
                starts[row, span.start] = 1.0
                ends[row, span.end - 1] = 1.0
                classes[row, span.start : span.end] = label_index[span.label_]
        return starts, ends, classes

    def _check_scores(self, scores: Floats3d, lengths: numpy.ndarray) -> None:
        expected = expected_scores_shape(lengths, 2 + len(self.labels) + 1)
        max_length = expected[1]
        if tuple(scores.shape) != expected:
            raise ValueError(
                Errors.E131.format(
                    name=self.name, expected=expected, n_docs=len(lengths),
                    max_length=max_length, n_labels=len(self.labels), got=tuple(scores.shape),
                )
            )
