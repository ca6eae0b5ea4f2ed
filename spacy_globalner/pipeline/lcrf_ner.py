"""The `lcrf_ner` component: flat NER with a linear-chain CRF whose forbidden
IOB transitions carry learned penalties (Zöllner et al., 2021).
"""
from typing import Callable, Iterable, List, Optional, Tuple, Union

import numpy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Floats3d

from ..decoding import SpanArrays
from ..decoding.lcrf_ner.decode import decode_lcrf_ner, entity_fix_rule
from ..decoding.lcrf_ner.entity_fix import ENTITY_FIX_RULES
from ..decoding.lcrf_ner.schemes import n_tags as scheme_tags
from ..decoding.lcrf_ner.schemes import spans_to_tags
from ..errors import Errors, Warnings
from ..ml.models.lcrf_ner import build_lcrf_ner  # noqa: F401 (registers the architecture)
from ..ml.torch.lcrf_ner.likelihood import crf_nll, softmax_nll
from ..validation import check_bool
from .ents_filters import highest_score_filter
from .flat_ner import (  # noqa: F401 (EntityFixCounts, outermost_spans: imported from here)
    EntityFixCounts,
    FlatSpanPipe,
    expected_scores_shape,
    outermost_spans,
    whitespace_tokens,
)
from .scoring import FLAT_NER_SCORE_WEIGHTS, score_spans_and_ents
from .span_pipe import DEFAULT_TOK2VEC_MODEL, check_spans_key_free

CRFScores = Tuple[Floats3d, Floats2d]

DEFAULT_LCRF_NER_MODEL = """
[model]
@architectures = "spacy-globalner.LCRFNER.v1"
tag_scheme = "iob"
dropout = 0.1
mixed_precision = false
""" + DEFAULT_TOK2VEC_MODEL
DEFAULT_LCRF_NER_MODEL_CONFIG = Config().from_str(DEFAULT_LCRF_NER_MODEL)["model"]


@Language.factory(
    "lcrf_ner",
    assigns=["doc.ents", "doc.spans"],
    default_config={
        "model": DEFAULT_LCRF_NER_MODEL_CONFIG,
        "spans_key": "sc",
        "set_ents": True,
        "constrained": False,
        "entity_fix": "paper",
        "head_lr_scale": 1.0,
        "scorer": {"@scorers": "spacy-globalner.span_scorer.v1"},
    },
    default_score_weights=dict(FLAT_NER_SCORE_WEIGHTS),
)
def make_lcrf_ner(
    nlp: Language,
    name: str,
    model: Model[List[Doc], CRFScores],
    spans_key: str,
    set_ents: bool,
    constrained: bool,
    entity_fix: Union[bool, str],
    head_lr_scale: float,
    scorer: Optional[Callable],
) -> "LCRFNER":
    """Create a linear-chain CRF recogniser over IOB or BIOES tags (or the
    softmax baseline): Viterbi or argmax decoding, optionally constrained to
    valid tags, repaired by Entity-Fix ("paper", "lenient" or "none").

    nlp (Language): The pipeline the component is added to.
    name (str): The component instance name, used to add entries to the
        losses during training.
    model (Model[List[Doc], CRFScores]): A model instance that is given a
        list of documents and returns the tag emissions (n_docs, max_length,
        n_tags) and the transition scores (n_tags + 2, n_tags + 2).
    spans_key (str): Key of doc.spans to write the spans under; training
        reads the gold spans from it (from doc.ents, for a doc without the key).
    set_ents (bool): Whether to also write the entities to doc.ents.
    constrained (bool): Whether decoding allows only valid tag
        sequences (no I-X after O) rather than leaving them to entity_fix.
    entity_fix (Union[bool, str]): How invalid tag sequences are read as
        entities: "paper", "lenient" or "none" (True and False: "paper" and
        "none"); see decoding/lcrf_ner/entity_fix.py.
    head_lr_scale (float): The factor on the optimizer's learning rate
        for the head's parameters (the "head" ref), e.g. 20 to train the head
        at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
    scorer (Optional[Callable]): The scoring method. Defaults to
        Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
        doc.ents.
    RETURNS (LCRFNER): The component.
    """
    check_spans_key_free(nlp, name, spans_key, "lcrf_ner")
    return LCRFNER(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        constrained=constrained,
        entity_fix=entity_fix,
        scorer=scorer,
        head_lr_scale=head_lr_scale,
        set_ents=set_ents,
    )


class LCRFNER(FlatSpanPipe):
    """Tag tokens B-X / I-X / O (or BIOES) with a linear-chain CRF, or with
    independent softmaxes for the baseline, and read the entities.

    The output is flat: the entities go to doc.ents and, with their
    probabilities, to doc.spans[spans_key] (attrs["scores"] holds the marginal
    probability of each entity's exact tag path). self.cfg holds the settings
    of __init__ and the labels; the tag scheme and the kind of transitions
    are settings of the model. `entity_fix_counts` counts the decoded docs whose
    raw path Entity-Fix had to repair.
    """

    overlapping_gold_warning = Warnings.W100

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], CRFScores],
        name: str = "lcrf_ner",
        *,
        spans_key: str = "sc",
        constrained: bool = False,
        entity_fix: Union[bool, str] = "paper",
        scorer: Optional[Callable] = score_spans_and_ents,
        head_lr_scale: float = 1.0,
        set_ents: bool = True,
    ) -> None:
        """Initialize the component; the settings go to self.cfg.

        vocab (Vocab): The shared vocabulary.
        model (Model[List[Doc], CRFScores]): A model instance that is given a
            list of documents and returns the tag emissions (n_docs, max_length,
            n_tags) and the transition scores (n_tags + 2, n_tags + 2).
        name (str): The component instance name, used to add entries to the
            losses during training.
        spans_key (str): Key of doc.spans to write the spans under; training
            reads the gold spans from it (from doc.ents, for a doc without the key).
        constrained (bool): Whether decoding allows only valid tag
            sequences (no I-X after O) rather than leaving them to entity_fix.
        entity_fix (Union[bool, str]): How invalid tag sequences are read as
            entities: "paper", "lenient" or "none" (True and False: "paper" and
            "none"); see decoding/lcrf_ner/entity_fix.py.
        scorer (Optional[Callable]): The scoring method. Defaults to
            Scorer.score_spans on doc.spans[spans_key] (overlaps allowed) and on
            doc.ents.
        head_lr_scale (float): The factor on the optimizer's learning rate
            for the head's parameters (the "head" ref), e.g. 20 to train the head
            at 1e-3 over a transformer at 5e-5; 1.0 leaves it as it is.
        set_ents (bool): Whether to also write the entities to doc.ents.
        """
        check_bool(constrained, "constrained", name, error=Errors.E100)
        options = ENTITY_FIX_RULES + ("none",)
        if not isinstance(entity_fix, bool) and entity_fix not in options:
            raise ValueError(Errors.E120.format(name=name, options=options, value=entity_fix))
        super().__init__(
            vocab,
            model,
            name,
            spans_key=spans_key,
            set_ents=set_ents,
            ents_filter=highest_score_filter,
            scorer=scorer,
            constrained=constrained,
            entity_fix=entity_fix_rule(entity_fix),
            head_lr_scale=head_lr_scale,
        )
        self.entity_fix_counts = EntityFixCounts()

    @property
    def tag_scheme(self) -> str:
        """The model's tag scheme, "iob" or "bioes"."""
        return self.model.get_ref("head").attrs["tag_scheme"]

    def _decode_at(self, docs: List[Doc], scores: CRFScores, thresholds: Optional[numpy.ndarray]) -> List[SpanArrays]:
        emissions, transitions = scores
        lengths = numpy.asarray([len(doc) for doc in docs], dtype="int64")
        self._check_scores(emissions, transitions, lengths)
        found, repaired = decode_lcrf_ner(
            self.model.ops.to_numpy(emissions).astype("float32", copy=False),
            lengths,
            self.model.ops.to_numpy(transitions).astype("float32", copy=False),
            len(self.labels),
            constrained=self.cfg["constrained"],
            entity_fix=self.cfg["entity_fix"],
            outside=whitespace_tokens(docs, int(lengths.max(initial=0))),
            tag_scheme=self.tag_scheme,
        )
        self.entity_fix_counts.add(int((lengths > 0).sum()), int(repaired.sum()))
        return found

    def get_loss(self, examples: Iterable[Example], scores: CRFScores) -> Tuple[float, CRFScores]:
        """The CRF's mean negative log-likelihood of the gold tags per doc,
        computed with the forward algorithm in float32 (for the softmax
        baseline, whose transitions are zero, the tokens' cross-entropy).

        RETURNS (Tuple[float, Tuple[Floats3d, Floats2d]]): The loss and its
            gradient w.r.t. the emissions and the transitions.
        """
        examples = list(examples)
        emissions, transitions = scores
        lengths = numpy.asarray([len(example.predicted) for example in examples], dtype="int64")
        self._check_scores(emissions, transitions, lengths)
        tags = self._gold_tags(examples, lengths, emissions.shape[1])
        # The gradients stay fp32 (leaves in fp32) until the head's grad scaler scales them.
        xp = self.model.ops.xp
        emissions_t = xp2torch(xp.asarray(emissions, dtype="float32"), requires_grad=True)
        transitions_t = xp2torch(xp.asarray(transitions, dtype="float32"), requires_grad=True)
        device = emissions_t.device
        if self.model.get_ref("head").attrs["transitions"] == "none":
            # The softmax baseline: the same loss as the CRF's with zero
            # transitions, without its loop over the time steps.
            loss = softmax_nll(
                emissions_t, torch.as_tensor(tags, device=device), torch.as_tensor(lengths, device=device)
            )
        else:
            loss = crf_nll(
                emissions_t,
                transitions_t,
                torch.as_tensor(tags, device=device),
                torch.as_tensor(lengths, device=device),
            )
        loss.backward()
        d_emissions = torch2xp(emissions_t.grad)
        if transitions_t.grad is None:  # the softmax baseline: constant transitions
            d_transitions = self.model.ops.alloc2f(*transitions.shape)
        else:
            d_transitions = torch2xp(transitions_t.grad)
        return float(loss.item()), (d_emissions, d_transitions)

    def _gold_tags(self, examples: List[Example], lengths: numpy.ndarray, max_length: int) -> numpy.ndarray:
        """Int64 tags (n_docs, max_length) of the outermost gold spans; O on padding."""
        label_index = {label: i for i, label in enumerate(self.labels)}
        n_labels = len(self.labels)
        scheme = self.tag_scheme
        tags = numpy.full((len(examples), max_length), scheme_tags(scheme, n_labels) - 1, dtype="int64")
        for row, (example, length) in enumerate(zip(examples, lengths)):
            spans = self._outermost_gold_spans(example)
            tags[row, :length] = spans_to_tags(
                scheme,
                int(length),
                numpy.asarray([span.start for span in spans], dtype="int64"),
                numpy.asarray([span.end for span in spans], dtype="int64"),
                numpy.asarray([label_index[span.label_] for span in spans], dtype="int64"),
                n_labels,
            )
        return tags

    def _check_scores(self, emissions: Floats3d, transitions: Floats2d, lengths: numpy.ndarray) -> None:
        n_tags = scheme_tags(self.tag_scheme, len(self.labels))
        expected = expected_scores_shape(lengths, n_tags)
        max_length = expected[1]
        expected_transitions = (n_tags + 2, n_tags + 2)
        if tuple(emissions.shape) != expected or tuple(transitions.shape) != expected_transitions:
            raise ValueError(
                Errors.E101.format(
                    name=self.name,
                    expected=expected,
                    n_docs=len(lengths),
                    max_length=max_length,
                    n_labels=len(self.labels),
                    expected_transitions=expected_transitions,
                    got=tuple(emissions.shape),
                    got_transitions=tuple(transitions.shape),
                )
            )
