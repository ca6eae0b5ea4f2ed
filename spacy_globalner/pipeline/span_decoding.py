"""Decoding a span component's scores at its thresholds: the spans written to
the docs, the candidates calibration sweeps, and the cap on spans per doc."""
import warnings
from typing import Iterable, List, Optional

import numpy
from spacy.tokens import Doc

from ..decoding import SpanArrays
from ..errors import Errors
from ..validation import check_number
from .edges import filter_span_arrays
from .span_output import write_spans


class ThresholdDecoding:
    """set_annotations through the one decode hook, `_decode_at`, and the
    per-label thresholds of the heads whose threshold is a span's score.
    Mixed into SpanPipe."""

    # Whether cfg["threshold"] (and the calibrated cfg["thresholds"]) is the
    # score, a probability, that a span of a label must reach.
    span_thresholds: bool = False
    # Formatted with name, kept, count, length and more where max_candidates
    # cut a doc's spans.
    capped_warning: str = ""

    def set_annotations(self, docs: Iterable[Doc], scores) -> None:
        """Decode the scores and write spans to doc.spans[spans_key] (and doc.ents)."""
        docs = list(docs)
        ents_filter = self.ents_filter if self.cfg["set_ents"] else None
        label_keys = [self.vocab.strings.add(label) for label in self.labels]
        thresholds = self.label_thresholds() if self.span_thresholds else None
        for doc, found in zip(docs, self._decode_at(docs, scores, thresholds)):
            found = filter_span_arrays(doc, found)
            write_spans(doc, found, label_keys, self.key, ents_filter)

    def _decode_at(self, docs: List[Doc], scores, thresholds: Optional[numpy.ndarray]) -> List[SpanArrays]:
        """The spans of each doc, in the order of its labels' ids.

        thresholds (Optional[numpy.ndarray]): Float (n_labels,): the score (a
            probability) each label's spans must reach, where span_thresholds;
            else None.
        RETURNS (List[SpanArrays]): One per doc.
        """
        raise NotImplementedError

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
