"""Viterbi decoding of a linear-chain CRF, vectorised over docs and tags."""
from typing import Tuple

import numpy


def forbidden_score(dtype) -> float:
    """The score that constrained decoding gives a forbidden transition.

    Finite, so that no inf - inf turns into NaN, and a quarter of the dtype's
    minimum, so that a few such scores can be summed on one path without
    overflowing even in float16.
    """
    return float(numpy.finfo(dtype).min) / 4


def constrain_transitions(transitions: numpy.ndarray, forbidden: numpy.ndarray) -> numpy.ndarray:
    """Give the forbidden transitions `forbidden_score` of the matrix's dtype.

    transitions (numpy.ndarray): Scores [from, to] over tags, START and END.
    forbidden (numpy.ndarray): Bool, same shape, True where forbidden.
    RETURNS (numpy.ndarray): A new matrix of the same dtype.
    """
    return numpy.where(forbidden, forbidden_score(transitions.dtype), transitions).astype(
        transitions.dtype, copy=False
    )


def viterbi(
    emissions: numpy.ndarray, lengths: numpy.ndarray, transitions: numpy.ndarray
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The highest-scoring tag sequence of each doc.

    emissions (numpy.ndarray): Tag scores (n_docs, max_length, n_tags), padded.
    lengths (numpy.ndarray): Number of tokens of each doc.
    transitions (numpy.ndarray): Scores [from, to], (n_tags + 2, n_tags + 2),
        with START at index n_tags and END at n_tags + 1.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): Int64 tags (n_docs,
        max_length), padding filled with the last tag id (O in IOB), and the
        best path score of each doc (0 for empty docs).
    """
    n_docs, max_length, n_tags = emissions.shape
    lengths = numpy.asarray(lengths, dtype="int64")
    dtype = numpy.result_type(emissions.dtype, transitions.dtype)
    emissions = emissions.astype(dtype, copy=False)
    transitions = transitions.astype(dtype, copy=False)
    start, end = transitions[n_tags, :n_tags], transitions[:n_tags, n_tags + 1]
    step = transitions[:n_tags, :n_tags]
    tags = numpy.full((n_docs, max_length), n_tags - 1, dtype="int64")
    if max_length == 0:
        return tags, numpy.zeros((n_docs,), dtype=dtype)
    identity = numpy.broadcast_to(numpy.arange(n_tags), (n_docs, n_tags))
    backpointers = numpy.empty((n_docs, max_length, n_tags), dtype="int64")
    backpointers[:, 0] = identity
    scores = start[None, :] + emissions[:, 0]
    for t in range(1, max_length):
        candidates = scores[:, :, None] + step[None, :, :]
        best_previous = candidates.argmax(axis=1)
        best = numpy.take_along_axis(candidates, best_previous[:, None, :], axis=1)[:, 0]
        active = (t < lengths)[:, None]
        # Past a doc's end its score is carried along unchanged, and the
        # identity backpointers carry its last tag back to its last token.
        scores = numpy.where(active, best + emissions[:, t], scores)
        backpointers[:, t] = numpy.where(active, best_previous, identity)
    final = scores + end[None, :]
    last = final.argmax(axis=1)
    best_scores = numpy.where(lengths > 0, final[numpy.arange(n_docs), last], 0)
    path = numpy.empty((n_docs, max_length), dtype="int64")
    path[:, -1] = last
    for t in range(max_length - 1, 0, -1):
        path[:, t - 1] = backpointers[numpy.arange(n_docs), t, path[:, t]]
    padding = numpy.arange(max_length)[None, :] >= lengths[:, None]
    tags = numpy.where(padding, tags, path)
    return tags, best_scores.astype(dtype, copy=False)
