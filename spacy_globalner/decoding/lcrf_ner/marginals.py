"""Forward-backward over a linear-chain CRF, and the probability of each
decoded entity, computed in float64 with numpy.

The confidence of an entity X over tokens [start, end) is the marginal
probability of its exact tag path: B-X at start, I-X up to end - 1, and then
anything but I-X (or the end of the doc), so that the entity is neither
shorter nor longer. It is a probability of the whole span under the CRF, in
[0, 1], and the probabilities of two different entities at one position sum
to at most 1.
"""
from typing import Callable, NamedTuple, Tuple

import numpy

from ..spans import EntityArrays
from .viterbi import forbidden_score


def forward_backward(
    emissions: numpy.ndarray, lengths: numpy.ndarray, transitions: numpy.ndarray
) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Log forward and backward scores of every doc, vectorised over docs and tags.

    emissions (numpy.ndarray): Tag scores (n_docs, max_length, n_tags), padded.
    lengths (numpy.ndarray): Number of tokens of each doc.
    transitions (numpy.ndarray): Scores [from, to] with START at index n_tags
        and END at n_tags + 1.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]): log_alpha
        (scores of the prefixes ending in each tag, its emission included),
        log_beta (scores of the suffixes after each tag, END included) and
        log_z, the log-partition of each doc (0 for empty docs).
    """
    emissions = numpy.asarray(emissions, dtype="float64")
    transitions = numpy.asarray(transitions, dtype="float64")
    lengths = numpy.asarray(lengths, dtype="int64")
    n_docs, max_length, n_tags = emissions.shape
    start, end = transitions[n_tags, :n_tags], transitions[:n_tags, n_tags + 1]
    step = transitions[:n_tags, :n_tags]
    log_alpha = numpy.zeros_like(emissions)
    log_beta = numpy.zeros_like(emissions)
    if max_length == 0:
        return log_alpha, log_beta, numpy.zeros((n_docs,))
    log_alpha[:, 0] = start + emissions[:, 0]
    for t in range(1, max_length):
        stepped = logsumexp(log_alpha[:, t - 1, :, None] + step[None], axis=1) + emissions[:, t]
        # Past a doc's end its last scores are carried, so log_z reads them at the end.
        log_alpha[:, t] = numpy.where((t < lengths)[:, None], stepped, log_alpha[:, t - 1])
    log_beta[:, max_length - 1] = end
    for t in range(max_length - 2, -1, -1):
        ahead = emissions[:, t + 1] + log_beta[:, t + 1]
        stepped = logsumexp(step[None] + ahead[:, None, :], axis=2)
        log_beta[:, t] = numpy.where((t < lengths - 1)[:, None], stepped, end)
    log_z = numpy.where(lengths > 0, logsumexp(log_alpha[:, -1] + end, axis=1), 0.0)
    return log_alpha, log_beta, log_z


def span_probabilities(
    emissions: numpy.ndarray, lengths: numpy.ndarray, transitions: numpy.ndarray, entities: EntityArrays, n_labels: int
) -> numpy.ndarray:
    """The probability of each entity's exact IOB tag path (see module docstring).

    emissions, lengths, transitions: as for `forward_backward`, tags ordered
        as in iob.py.
    entities (EntityArrays): The entities.
    n_labels (int): Number of entity labels.
    RETURNS (numpy.ndarray): Float32 probabilities in [0, 1], one per entity.
    """
    return _chain_span_probabilities(_iob_log_path, emissions, lengths, transitions, entities, n_labels)


def bioes_span_probabilities(
    emissions: numpy.ndarray, lengths: numpy.ndarray, transitions: numpy.ndarray, entities: EntityArrays, n_labels: int
) -> numpy.ndarray:
    """The probability of each entity's exact BIOES tag path: U-X for one
    token; B-X, I-X up to end - 2 and L-X at end - 1 otherwise. Unlike IOB,
    the path fixes both boundaries itself, so nothing after it is constrained.
    Arguments and result as for `span_probabilities`, tags ordered as in bioes.py.
    """
    return _chain_span_probabilities(_bioes_log_path, emissions, lengths, transitions, entities, n_labels)


class _Chain(NamedTuple):
    """A batch's float64 scores under the CRF and their forward-backward
    results, as the scheme's `log_path` reads them."""

    emissions: numpy.ndarray
    lengths: numpy.ndarray
    transitions: numpy.ndarray
    log_alpha: numpy.ndarray
    log_beta: numpy.ndarray


def _chain_span_probabilities(
    log_path: Callable[[_Chain, EntityArrays, int], numpy.ndarray],
    emissions: numpy.ndarray,
    lengths: numpy.ndarray,
    transitions: numpy.ndarray,
    entities: EntityArrays,
    n_labels: int,
) -> numpy.ndarray:
    """What both schemes' span probabilities share: the arguments as arrays,
    forward-backward, and the normalisation of `log_path`, the log score
    (unnormalised) of each entity's exact tag path in the scheme.
    """
    if len(entities) == 0:
        return numpy.zeros((0,), dtype="float32")
    emissions, lengths, entities = _as_arrays(emissions, lengths, entities)
    transitions = numpy.asarray(transitions, dtype="float64")
    log_alpha, log_beta, log_z = forward_backward(emissions, lengths, transitions)
    chain = _Chain(emissions, lengths, transitions, log_alpha, log_beta)
    return _probabilities(log_path(chain, entities, n_labels) - log_z[entities.doc_ids])


def _iob_log_path(chain: _Chain, entities: EntityArrays, n_labels: int) -> numpy.ndarray:
    """The log score of B-X at start, I-X up to end - 1, then anything but I-X."""
    emissions, lengths, transitions, log_alpha, log_beta = chain
    doc_ids, starts, ends, label_ids = entities
    max_length, n_tags = emissions.shape[1:]
    begin, inside = label_ids, label_ids + n_labels
    widths = ends - starts
    # Emissions of I-X summed over [start + 1, end) from prefix sums.
    inside_sums = _inside_prefix_sums(emissions, n_labels)
    inner = (
        transitions[begin, inside]
        + inside_sums[doc_ids, ends, label_ids]
        - inside_sums[doc_ids, starts + 1, label_ids]
        + (widths - 2) * transitions[inside, inside]
    )
    inner = numpy.where(widths > 1, inner, 0.0)
    last = numpy.where(widths > 1, inside, begin)
    after = numpy.minimum(ends, max_length - 1)
    leaving = (
        transitions[last, :n_tags]
        + emissions[doc_ids, after]
        + log_beta[doc_ids, after]
    )
    leaving[numpy.arange(len(doc_ids)), inside] = forbidden_score("float64")
    right = numpy.where(
        ends >= lengths[doc_ids],
        transitions[last, n_tags + 1],
        logsumexp(leaving, axis=1),
    )
    return log_alpha[doc_ids, starts, begin] + inner + right


def _bioes_log_path(chain: _Chain, entities: EntityArrays, n_labels: int) -> numpy.ndarray:
    """The log score of U-X, or B-X, I-X ... and L-X, over [start, end)."""
    emissions, _, transitions, log_alpha, log_beta = chain
    doc_ids, starts, ends, label_ids = entities
    e = n_labels
    begin, inside, last, unit = label_ids, label_ids + e, label_ids + 2 * e, label_ids + 3 * e
    widths = ends - starts
    single = widths == 1
    inside_sums = _inside_prefix_sums(emissions, e)
    n_inner = numpy.maximum(widths - 2, 0)
    # B -> I -> ... -> I -> L, or B -> L for two tokens.
    into_last = numpy.where(widths > 2, transitions[inside, last], transitions[begin, last])
    inner = (
        numpy.where(widths > 2, transitions[begin, inside], 0.0)
        + inside_sums[doc_ids, numpy.maximum(ends - 1, starts + 1), label_ids]
        - inside_sums[doc_ids, starts + 1, label_ids]
        + numpy.maximum(n_inner - 1, 0) * transitions[inside, inside]
        + into_last
        + emissions[doc_ids, ends - 1, last]
    )
    first = numpy.where(single, unit, begin)
    final = numpy.where(single, unit, last)
    return (
        log_alpha[doc_ids, starts, first]
        + numpy.where(single, 0.0, inner)
        + log_beta[doc_ids, ends - 1, final]
    )


def _probabilities(log_p: numpy.ndarray) -> numpy.ndarray:
    """Float32 probabilities of log probabilities, clipped at 1 (rounding)."""
    return numpy.exp(numpy.minimum(log_p, 0.0)).astype("float32")


def logsumexp(x: numpy.ndarray, axis: int) -> numpy.ndarray:
    """log(sum(exp(x))) along `axis`, shifted by the maximum for stability."""
    peak = x.max(axis=axis, keepdims=True)
    total = numpy.log(numpy.exp(x - peak).sum(axis=axis, keepdims=True)) + peak
    return numpy.squeeze(total, axis=axis)


def independent_span_probabilities(
    emissions: numpy.ndarray,
    lengths: numpy.ndarray,
    entities: EntityArrays,
    n_labels: int,
    *,
    tag_scheme: str = "iob",
) -> numpy.ndarray:
    """What `span_probabilities` (IOB) or `bioes_span_probabilities` give
    with all-zero transitions, where the tokens' tags are independent
    softmaxes: a product over the entity's tokens, from prefix sums, without
    the forward-backward loop over the time steps.

    RETURNS (numpy.ndarray): Float32 probabilities in [0, 1], one per entity.
    """
    if len(entities) == 0:
        return numpy.zeros((0,), dtype="float32")
    emissions, lengths, entities = _as_arrays(emissions, lengths, entities)
    doc_ids, starts, ends, label_ids = entities
    n_docs, max_length, n_tags = emissions.shape
    log_probs = emissions - logsumexp(emissions, axis=2)[:, :, None]
    e = n_labels
    inside_sums = _inside_prefix_sums(log_probs, e)
    widths = ends - starts
    if tag_scheme == "bioes":
        single = widths == 1
        first = numpy.where(single, label_ids + 3 * e, label_ids)
        inner_end = numpy.maximum(ends - 1, starts + 1)
        inner = inside_sums[doc_ids, inner_end, label_ids] - inside_sums[doc_ids, starts + 1, label_ids]
        last = log_probs[doc_ids, ends - 1, label_ids + 2 * e]
        log_p = log_probs[doc_ids, starts, first] + numpy.where(single, 0.0, inner + last)
    else:
        inner = inside_sums[doc_ids, ends, label_ids] - inside_sums[doc_ids, starts + 1, label_ids]
        after = numpy.minimum(ends, max_length - 1)
        # The token after the entity is anything but I-X (or the doc ends).
        p_continues = numpy.exp(log_probs[doc_ids, after, label_ids + e])
        right = numpy.where(ends < lengths[doc_ids], numpy.log1p(-numpy.minimum(p_continues, 1.0)), 0.0)
        log_p = log_probs[doc_ids, starts, label_ids] + inner + right
    return _probabilities(log_p)


def _as_arrays(
    emissions: numpy.ndarray, lengths: numpy.ndarray, entities: EntityArrays
) -> Tuple[numpy.ndarray, numpy.ndarray, EntityArrays]:
    """The arguments of the span-probability functions as float64 emissions,
    int64 lengths and int64 entity arrays."""
    return (
        numpy.asarray(emissions, dtype="float64"),
        numpy.asarray(lengths, dtype="int64"),
        EntityArrays.of(*entities),
    )


def _inside_prefix_sums(scores: numpy.ndarray, n_labels: int) -> numpy.ndarray:
    """Prefix sums over time of the I-X scores (tags n_labels to 2 * n_labels,
    the same in IOB and BIOES): entry [d, t, x] sums tokens [0, t) of doc d,
    so the sum over [a, b) is entry b minus entry a.

    RETURNS (numpy.ndarray): Float64 (n_docs, max_length + 1, n_labels).
    """
    n_docs, max_length = scores.shape[:2]
    sums = numpy.zeros((n_docs, max_length + 1, n_labels))
    numpy.cumsum(scores[:, :, n_labels : 2 * n_labels], axis=1, out=sums[:, 1:])
    return sums
