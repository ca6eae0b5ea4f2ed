"""A paired significance test of two heads' F on the same test sentences.

Approximate randomization (Noreen 1989; the test NLP papers use for F, which
is not a mean of per-sentence scores): under the null hypothesis that the two
heads are interchangeable, each sentence's pair of outcomes (true positives,
false positives, false negatives of one head and of the other) is as likely
swapped as not. The p-value is the share of random swaps whose difference in
F is at least as large as the observed one, either way, with the observed
assignment counted among them.

Seeds are paired by their number (seed 0 of one head with seed 0 of the
other: both trained on the same data order where the configs share a
batcher) and pooled: every seed pairing's sentences are swapped
independently, and F is computed over all of them. A run stores its
sentences' counts as compare.py writes them ("tp fp fn" per sentence, joined
by commas, see `parse_counts`).
"""
import functools
from typing import List, Optional, Sequence, Tuple

import numpy

RESAMPLES = 10_000
ALPHA = 0.05


def parse_counts(text: str) -> numpy.ndarray:
    """'1 0 0,0 1 2' -> [[1, 0, 0], [0, 1, 2]]: a row per sentence, (tp, fp, fn)."""
    return numpy.array([[int(n) for n in row.split()] for row in text.split(",")], dtype=numpy.int64).reshape(-1, 3)


def format_counts(rows: Sequence[Sequence[int]]) -> str:
    return ",".join(" ".join(str(int(n)) for n in row) for row in rows)


def f_score(counts: numpy.ndarray) -> numpy.ndarray:
    """F1 of summed (tp, fp, fn) along the last axis but one; 0 where nothing was predicted or expected."""
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    denominator = 2 * tp + fp + fn
    return numpy.where(denominator > 0, 2 * tp / numpy.maximum(denominator, 1), 0.0)


def paired_randomization(ours: Sequence[numpy.ndarray], theirs: Sequence[numpy.ndarray],
                         resamples: int = RESAMPLES, seed: int = 0) -> float:
    """The two-sided p-value of the difference in F between two heads.

    ours, theirs: per seed pairing, the (tp, fp, fn) rows of the same test
        sentences in the same order.
    RETURNS (float): p in (0, 1].
    """
    if len(ours) != len(theirs) or any(a.shape != b.shape for a, b in zip(ours, theirs)):
        raise ValueError("each seed pairing needs both heads' counts on the same sentences")
    a = numpy.concatenate(list(ours)).astype(numpy.float64)
    b = numpy.concatenate(list(theirs)).astype(numpy.float64)
    a_sum, b_sum = a.sum(0), b.sum(0)
    observed = abs(float(f_score(a_sum) - f_score(b_sum)))
    # Swapping sentence i moves (b_i - a_i) from one head's sums to the
    # other's: only the sentences where the heads differ can change anything.
    differ = (a != b).any(1)
    delta = (b - a)[differ]
    rng = numpy.random.default_rng(seed)
    swap = rng.random((resamples, len(delta))) < 0.5
    moved = swap.astype(numpy.float64) @ delta
    diffs = numpy.abs(f_score(a_sum + moved) - f_score(b_sum - moved))
    at_least = int((diffs >= observed - 1e-12).sum())
    return (at_least + 1) / (resamples + 1)


def pooled_p(ours_runs: List[dict], theirs_runs: List[dict], view: str) -> Optional[float]:
    """The p-value of two groups of runs on VIEW, seeds paired by number; None
    where a run has no per-sentence counts for VIEW or no seed pairs up."""
    theirs_by_seed = {run["seed"]: run for run in theirs_runs}
    pairs = []
    for run in ours_runs:
        other = theirs_by_seed.get(run["seed"])
        if other is None:
            continue
        first = (run.get("test_sentences") or {}).get(view)
        second = (other.get("test_sentences") or {}).get(view)
        if first is None or second is None:
            return None
        pairs.append((first, second))
    return _pooled_p(tuple(pairs)) if pairs else None


@functools.lru_cache(maxsize=None)
def _pooled_p(pairs: Tuple[Tuple[str, str], ...]) -> float:
    # Every table asks for the same pairs' p: the test runs once per pair.
    return paired_randomization([parse_counts(a) for a, _ in pairs], [parse_counts(b) for _, b in pairs])
