"""Per-label thresholds chosen on dev data: the sweep behind `spacy globalner calibrate`.

A component with a threshold keeps every cell (global_pointer) or closing vote
(crener) whose score, the probability users read in attrs["scores"], reaches
it; the thresholds written are such probabilities. Calibration decodes the
dev set once at a low floor, marks each candidate span that is a gold span,
and, per label, sorts the candidates by score: keeping the top k gives k
predictions with cumsum(hits)[k] true positives, so precision, recall and F
at every threshold that changes the output come from one cumulative sum,
with no decoding per threshold. The thresholds of all labels are chosen
together for the best micro F (the component's spans F), or each for a
target precision.
"""
import math
from typing import Dict, List, NamedTuple, Optional, Sequence

import numpy
from spacy.attrs import IDX, LENGTH
from spacy.tokens import Doc
from spacy.training import Example

from ..decoding import SpanArrays
from ..decoding.probabilities import logit, sigmoid
from .gold import reference_spans

# How far below the lowest current threshold, in logits, the sweep looks:
# from 0.3775 (the logit -0.5) down to sigmoid(-8.5) = 0.0002, far below any
# useful operating point.
SWEEP_RANGE = 8.0
# The cfg is saved as JSON, which keeps 10 decimals: a threshold is chosen
# on that grid, so that the value loaded (within an ulp of it: ujson's parser
# does not always round to nearest) keeps and drops the same scores.
DECIMALS = 10
# Dinkelbach's iteration for the micro F converges in a few rounds.
MAX_ROUNDS = 50


class LabelCalibration(NamedTuple):
    """The sweep's choice for one label, with the dev P/R/F it expects there.

    threshold (Optional[float]): The chosen probability, or None: keep the fallback
        (no gold span of the label in dev, no candidate hits it, or the target
        precision is out of reach).
    """

    label: str
    n_gold: int
    threshold: Optional[float]
    precision: float
    recall: float
    f: float


def sweep_threshold(
    scores: numpy.ndarray,
    hits: numpy.ndarray,
    n_gold: int,
    floor_score: float,
    target_precision: Optional[float] = None,
    false_cost: Optional[float] = None,
) -> Optional[numpy.ndarray]:
    """Choose one label's cut on its candidates' scores.

    scores (numpy.ndarray): Float (n,) sigmoid scores of the candidate spans.
    hits (numpy.ndarray): Bool (n,): the candidate is a gold span.
    n_gold (int): Gold spans of the label (found by a candidate or not).
    floor_score (float): The score every candidate reaches (the decoding floor).
    target_precision (Optional[float]): Keep precision at least this, with
        the highest recall.
    false_cost (Optional[float]): Maximise 2 * true positives - false_cost *
        predictions instead (keeping nothing scores 0): with the micro F of
        all labels as false_cost, the cut that raises that F most (see
        `calibrate_thresholds`). None (and no target): the label's own best F.
    RETURNS (Optional[numpy.ndarray]): [cut score, precision, recall, F, true
        positives, predictions], or None when no cut keeps a true positive (or
        meets the target), or keeping nothing is best but cannot be set.
    """
    if n_gold <= 0 or not hits.any():
        return None
    order = numpy.argsort(-scores, kind="stable")
    scores = scores[order].astype("float64")
    true_positives = numpy.cumsum(hits[order])
    kept = numpy.arange(1, scores.shape[0] + 1)
    # A cut can fall only where the score drops: all tied candidates go together.
    cuts = numpy.append(scores[1:] < scores[:-1], True) & (true_positives > 0)
    precision = true_positives / kept
    recall = true_positives / n_gold
    f = 2.0 * true_positives / (kept + n_gold)
    if target_precision is not None:
        # The most true positives within the target; among equal ones, the fewest kept.
        goal = numpy.where(cuts & (precision >= target_precision), true_positives - kept / (kept[-1] + 1.0), -1.0)
    elif false_cost is not None:
        goal = numpy.where(cuts, 2.0 * true_positives - false_cost * kept, numpy.finfo("float64").min)
    else:
        goal = numpy.where(cuts, f, -1.0)
    best = int(numpy.argmax(goal))  # the first maximum: the highest such cut
    if false_cost is not None and target_precision is None and goal[best] < 0:
        cut = storable_cut(1.0, float(scores[0]))
        if cut <= scores[0]:
            return None
        return numpy.asarray([cut, 0.0, 0.0, 0.0, 0.0, 0.0])
    if goal[best] < 0:
        return None
    below = scores[best + 1] if best + 1 < scores.shape[0] else floor_score
    cut = storable_cut(float(scores[best]), float(below))
    return numpy.asarray([cut, precision[best], recall[best], f[best], true_positives[best], kept[best]])


def storable_cut(high: float, low: float) -> float:
    """A threshold that keeps a score of `high` and drops one of `low` (< high),
    with at most DECIMALS decimals: the midpoint where that grid allows, else
    the grid point just at or below `high` (which keeps `low` too only when
    the two are closer than the grid's step).
    """
    cut = round(0.5 * (high + low), DECIMALS)
    if low < cut <= high:
        return cut
    cut = round(math.floor(high * 10**DECIMALS) / 10**DECIMALS, DECIMALS)
    return cut if cut <= high else round(cut - 10**-DECIMALS, DECIMALS)


def floor_below(thresholds: numpy.ndarray) -> float:
    """The probability SWEEP_RANGE logits below the lowest of `thresholds`
    (probabilities), where calibration decodes its candidates."""
    lowest = float(numpy.clip(thresholds.min(), 1e-12, 1.0 - 1e-12))
    return float(sigmoid(logit(lowest) - SWEEP_RANGE))


def calibrate_thresholds(
    examples: Sequence[Example],
    candidates: Sequence[SpanArrays],
    labels: Sequence[str],
    spans_key: str,
    floor: float,
    target_precision: Optional[float] = None,
) -> List[LabelCalibration]:
    """Choose a threshold per label from the candidate spans of each example.

    Candidates are matched with gold as spaCy's Scorer.score_spans matches
    predictions: by the reference tokens they cover. A candidate whose edges
    fall inside a reference token is not a prediction the scorer counts, and
    candidates covering the same reference span count once (at their best score).

    examples (Sequence[Example]): Dev examples; predicted docs are the ones decoded.
    candidates (Sequence[SpanArrays]): Each example's spans decoded at `floor`.
    labels (Sequence[str]): The component's labels (label_ids index them).
    spans_key (str): Where the gold spans are (doc.spans[key], else doc.ents).
    floor (float): The score (probability) the candidates were decoded at.
    target_precision (Optional[float]): See `sweep_threshold`.
    RETURNS (List[LabelCalibration]): One per label, in label order.
    """
    label_index = {label: i for i, label in enumerate(labels)}
    n_labels = len(labels)
    n_gold = numpy.zeros((n_labels,), dtype="int64")
    all_scores, all_hits, all_labels = [], [], []
    for example, found in zip(examples, candidates):
        scores, hits, label_ids, gold_label_ids = _match_candidates(example, found, label_index, spans_key)
        n_gold += numpy.bincount(gold_label_ids, minlength=n_labels)
        all_scores.append(scores)
        all_hits.append(hits)
        all_labels.append(label_ids)
    scores = numpy.concatenate(all_scores or [numpy.zeros((0,), "float32")])
    hits = numpy.concatenate(all_hits or [numpy.zeros((0,), bool)])
    label_ids = numpy.concatenate(all_labels or [numpy.zeros((0,), "int64")])
    floor_score = float(floor)
    per_label = [(scores[label_ids == i], hits[label_ids == i], int(n_gold[i])) for i in range(n_labels)]

    def sweep(false_cost: Optional[float]) -> List[Optional[numpy.ndarray]]:
        return [sweep_threshold(*arrays, floor_score, target_precision, false_cost) for arrays in per_label]

    if target_precision is not None:
        chosen = sweep(None)
    else:
        # Micro F = 2 TP / (predictions + gold) over all labels, which is what
        # the component's score reports. Dinkelbach's iteration: with the
        # current F as the cost of a prediction, each label's best cut is
        # independent; the F of those cuts is the next cost, until it stops rising.
        cost, chosen = 0.0, sweep(0.0)
        for _ in range(MAX_ROUNDS):
            true_positives = sum(c[4] for c in chosen if c is not None)
            predictions = sum(c[5] for c in chosen if c is not None)
            micro_f = 2.0 * true_positives / max(predictions + int(n_gold.sum()), 1)
            if micro_f <= cost + 1e-12:
                break
            cost, chosen = micro_f, sweep(micro_f)
    results = []
    for label, arrays, choice in zip(labels, per_label, chosen):
        if choice is None:
            results.append(LabelCalibration(label, arrays[2], None, 0.0, 0.0, 0.0))
        else:
            cut, precision, recall, f = choice[:4].tolist()
            results.append(LabelCalibration(label, arrays[2], cut, precision, recall, f))
    return results


def _match_candidates(example: Example, found: SpanArrays, label_index: Dict[str, int], spans_key: str):
    """One doc's candidates as the scorer sees them.

    RETURNS (Tuple[ndarray, ndarray, ndarray, ndarray]): per distinct counted
        prediction its best score, whether it is gold, its label id; and the
        label id of each distinct gold span of a known label.
    """
    n_labels = len(label_index)
    reference = example.reference
    gold = [
        (span.start_char, span.end_char, label_index[span.label_])
        for span in reference_spans(example, spans_key) if span.label_ in label_index
    ]
    n_chars = len(reference.text) + 1
    gold = numpy.asarray(gold, dtype="int64").reshape(-1, 3)
    gold_keys = numpy.unique((gold[:, 0] * n_chars + gold[:, 1]) * n_labels + gold[:, 2])
    if not len(found):
        empty = numpy.zeros((0,), "int64")
        return numpy.zeros((0,), "float32"), numpy.zeros((0,), bool), empty, gold_keys % n_labels
    offsets = example.predicted.to_array([IDX, LENGTH]).astype("int64").reshape(-1, 2)
    start_chars = offsets[found.starts, 0]
    end_chars = offsets[found.ends - 1, 0] + offsets[found.ends - 1, 1]
    reference_offsets = reference.to_array([IDX, LENGTH]).astype("int64").reshape(-1, 2)
    counted = numpy.isin(start_chars, reference_offsets[:, 0]) & numpy.isin(
        end_chars, reference_offsets[:, 0] + reference_offsets[:, 1]
    )
    label_ids = found.label_ids.astype("int64")
    keys = ((start_chars * n_chars + end_chars) * n_labels + label_ids)[counted]
    scores = found.scores[counted]
    # The best score of each distinct key: sort by key, then by descending score.
    order = numpy.lexsort((-scores, keys))
    keys, scores = keys[order], scores[order]
    first = numpy.ones(len(keys), dtype=bool)  # no counted candidate at all is possible
    first[1:] = keys[1:] != keys[:-1]
    keys, scores = keys[first], scores[first]
    return scores, numpy.isin(keys, gold_keys), keys % n_labels, gold_keys % n_labels


def thresholds_cfg(calibrated: Sequence[LabelCalibration]) -> Dict[str, float]:
    """cfg["thresholds"]: the labels that got a threshold (others use the fallback)."""
    return {result.label: result.threshold for result in calibrated if result.threshold is not None}


def restore_ents(docs: Sequence[Doc], ents: Sequence[tuple]) -> None:
    """Put back doc.ents as they were before the component wrote its own."""
    for doc, doc_ents in zip(docs, ents):
        doc.ents = doc_ents


class CalibrationReport(NamedTuple):
    """What `calibrate_component` did: the choice per label and the dev scores
    (the component's own scorer) before and after."""

    labels: List[LabelCalibration]
    before: Dict
    after: Dict


def calibrate_component(
    nlp,
    name: str,
    examples: Sequence[Example],
    *,
    target_precision: Optional[float] = None,
    batch_size: int = 64,
) -> CalibrationReport:
    """Choose per-label thresholds of component `name` on dev examples and
    write them to its cfg["thresholds"] (the fallback `threshold` is kept).

    nlp (Language): The pipeline; `name` must be a component with a threshold.
    examples (Sequence[Example]): Dev examples with gold spans; their
        predicted docs are annotated in place by the components up to `name`.
    target_precision (Optional[float]): See `sweep_threshold`.
    batch_size (int): Docs per prediction batch.
    RETURNS (CalibrationReport): The choice per label, and the scores.
    """
    pipe = nlp.get_pipe(name)
    docs = [example.predicted for example in examples]
    for upstream_name, upstream in nlp.pipeline:
        if upstream_name == name:
            break
        docs = list(upstream.pipe(docs, batch_size=batch_size))
    ents = [doc.ents for doc in docs]
    batches = [docs[i : i + batch_size] for i in range(0, len(docs), batch_size)]
    scores = [pipe.predict(batch) for batch in batches]

    def annotate_and_score() -> Dict:
        restore_ents(docs, ents)
        for batch, batch_scores in zip(batches, scores):
            pipe.set_annotations(batch, batch_scores)
        return pipe.score(examples)

    before = annotate_and_score()
    current = pipe.label_thresholds()
    floor = floor_below(current)
    floors = numpy.full_like(current, floor)
    candidates = [
        found
        for batch, batch_scores in zip(batches, scores)
        for found in pipe.candidate_spans(batch, batch_scores, floors)
    ]
    chosen = calibrate_thresholds(examples, candidates, pipe.labels, pipe.key, floor, target_precision)
    # A label without a choice keeps what it had: the fallback, or an earlier calibration.
    pipe.cfg["thresholds"] = {**(pipe.cfg.get("thresholds") or {}), **thresholds_cfg(chosen)}
    after = annotate_and_score()
    return CalibrationReport(chosen, before, after)
