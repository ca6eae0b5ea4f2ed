"""Decode CSE tagging (Zöllner et al., 2021) into entities: a start and an
end probability per token, and a class distribution over the labels and
"other" without the B/I distinction.

As the paper describes it: tokens above the threshold (0.5) are start or end
markers. Where a start has no end before the next start, the token of highest
end probability between them (the start's own token included, the next
start's excluded) becomes an end marker; the end of the doc closes the last
start the same way. In reverse, where an end has no start after the end
before it, the token of highest start probability between them (the end's
own token included) becomes a start marker, and the doc's first end likewise
looks back to the doc's start. After both steps the markers alternate
start, end, start, end ... (a token may be both: a one-token entity), so
they pair up into non-overlapping, well-formed entities by construction.

The class of each pair is the argmax of the class probabilities averaged
over its tokens (start and end included), over the entity labels: the
markers already say there is an entity, the class head says which. Where
the paper's "other" would win the average the entity is kept with its best
label; that case is rare once trained and the start/end heads decide.
An entity's score is p_start(start) * p_end(end) * its label's mean class
probability, in [0, 1].
"""
from typing import List, Tuple

import numpy

from .spans import EntityArrays, SpanArrays, split_by_doc


def decode_cse_ner(
    start_probs: numpy.ndarray,
    end_probs: numpy.ndarray,
    class_probs: numpy.ndarray,
    lengths: numpy.ndarray,
    *,
    threshold: float = 0.5,
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """The entities of each doc of a padded batch.

    start_probs (numpy.ndarray): P(token starts an entity), (n_docs, max_length).
    end_probs (numpy.ndarray): P(token ends an entity), (n_docs, max_length).
    class_probs (numpy.ndarray): Class distribution per token, (n_docs,
        max_length, n_labels + 1), "other" last.
    lengths (numpy.ndarray): Number of tokens of each doc; padding is ignored.
    threshold (float): Probability above which a token is a marker.
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): The entities of each
        doc, ordered by start, and a bool per doc: True where a marker had to
        be added (the markers above the threshold did not pair up).
    """
    start_probs = numpy.asarray(start_probs, dtype="float64")
    end_probs = numpy.asarray(end_probs, dtype="float64")
    class_probs = numpy.asarray(class_probs, dtype="float64")
    lengths = numpy.asarray(lengths, dtype="int64")
    n_docs, max_length = start_probs.shape
    n_labels = class_probs.shape[2] - 1
    if n_docs == 0 or max_length == 0 or n_labels < 1:
        return [SpanArrays.empty() for _ in range(n_docs)], numpy.zeros((n_docs,), dtype=bool)
    valid = numpy.arange(max_length)[None, :] < lengths[:, None]
    is_start = (valid & (start_probs > threshold)).ravel()
    is_end = (valid & (end_probs > threshold)).ravel()
    flat_start, flat_end = start_probs.ravel(), end_probs.ravel()
    doc_begin = numpy.arange(n_docs) * max_length
    doc_stop = doc_begin + lengths
    n_markers = numpy.bincount(numpy.flatnonzero(is_start) // max_length, minlength=n_docs) + numpy.bincount(
        numpy.flatnonzero(is_end) // max_length, minlength=n_docs
    )
    _close_starts(is_start, is_end, flat_end, doc_stop)
    _open_ends(is_start, is_end, flat_start, doc_begin)
    starts_flat = numpy.flatnonzero(is_start)
    ends_flat = numpy.flatnonzero(is_end)
    doc_ids = starts_flat // max_length
    starts = starts_flat - doc_ids * max_length
    ends = ends_flat - doc_ids * max_length + 1
    # Mean class probabilities over [start, end) from prefix sums along each doc.
    sums = numpy.zeros((n_docs, max_length + 1, n_labels + 1))
    numpy.cumsum(numpy.where(valid[:, :, None], class_probs, 0.0), axis=1, out=sums[:, 1:])
    means = (sums[doc_ids, ends] - sums[doc_ids, starts]) / (ends - starts)[:, None]
    label_ids = means[:, :n_labels].argmax(axis=1)
    scores = flat_start[starts_flat] * flat_end[ends_flat] * means[numpy.arange(len(label_ids)), label_ids]
    scores = numpy.clip(scores, 0.0, 1.0).astype("float32")
    found = split_by_doc(EntityArrays(doc_ids, starts, ends, label_ids.astype("int64")), n_docs, scores)
    n_after = 2 * numpy.bincount(doc_ids, minlength=n_docs)
    return found, n_after != n_markers


def _close_starts(is_start, is_end, end_probs, doc_stop) -> None:
    """Give every start without an end before the next start (or its doc's
    end) the end of highest probability in between; changes `is_end` in place.
    """
    starts = numpy.flatnonzero(is_start)
    if not len(starts):
        return
    doc_of = numpy.searchsorted(doc_stop, starts, side="right")
    following = numpy.append(starts[1:], doc_stop[-1])
    last_in_doc = numpy.append(doc_of[1:] != doc_of[:-1], True)
    bounds = numpy.where(last_in_doc, doc_stop[doc_of], following)
    ends_before = numpy.concatenate([[0], numpy.cumsum(is_end)])
    # The gaps [start, bound) are disjoint, so an end added in one leaves the
    # others' counts as they were: the loop runs over the open starts only.
    missing = ends_before[bounds] == ends_before[starts]
    for start, bound in zip(starts[missing], bounds[missing]):
        is_end[start + int(end_probs[start:bound].argmax())] = True


def _open_ends(is_start, is_end, start_probs, doc_begin) -> None:
    """Give every end without a start after the end before it (or after its
    doc's start) the start of highest probability in between; changes
    `is_start` in place.
    """
    ends = numpy.flatnonzero(is_end)
    if not len(ends):
        return
    doc_of = numpy.searchsorted(doc_begin, ends, side="right") - 1
    previous = numpy.insert(ends[:-1] + 1, 0, 0)
    first_in_doc = numpy.insert(doc_of[1:] != doc_of[:-1], 0, True)
    bounds = numpy.where(first_in_doc, doc_begin[doc_of], previous)
    starts_before = numpy.concatenate([[0], numpy.cumsum(is_start)])
    missing = starts_before[ends + 1] == starts_before[bounds]
    for bound, end in zip(bounds[missing], ends[missing]):
        is_start[bound + int(start_probs[bound : end + 1].argmax())] = True
