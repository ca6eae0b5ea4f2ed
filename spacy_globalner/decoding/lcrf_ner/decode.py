"""Decode a linear-chain CRF's scores into entities: Viterbi, optionally
constrained to valid IOB, then Entity-Fix, then a probability per entity.
"""
from typing import List, Optional, Tuple

import numpy

from ..spans import SpanArrays, split_by_doc
from .entity_fix import entity_fix as apply_entity_fix
from .iob import iob_forbidden, tags_to_spans
from .marginals import span_probabilities
from .viterbi import constrain_transitions, forbidden_score, viterbi


def decode_lcrf_ner(
    emissions: numpy.ndarray,
    lengths: numpy.ndarray,
    transitions: numpy.ndarray,
    n_labels: int,
    *,
    constrained: bool = False,
    entity_fix: bool = True,
    outside: Optional[numpy.ndarray] = None,
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """The entities of each doc under IOB tags.

    emissions (numpy.ndarray): Tag scores (n_docs, max_length, n_tags), padded,
        tags ordered as in iob.py.
    lengths (numpy.ndarray): Number of tokens of each doc.
    transitions (numpy.ndarray): Scores [from, to] over tags, START and END.
    n_labels (int): Number of entity labels.
    constrained (bool): Give forbidden transitions `forbidden_score`, so that
        Viterbi only returns valid IOB (and the probabilities are those of the
        constrained CRF).
    entity_fix (bool): Repair forbidden I tags with Entity-Fix; otherwise they
        are read as O.
    outside (Optional[numpy.ndarray]): Bool (n_docs, max_length), True for
        tokens that must be tagged O, such as whitespace: every other tag gets
        `forbidden_score` as emission there.
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): The entities of each doc
        with their probabilities, and a bool per doc: True where the raw Viterbi
        path had a forbidden transition (whether or not it was repaired).
    """
    lengths = numpy.asarray(lengths, dtype="int64")
    if outside is not None and outside.any():
        not_o = numpy.arange(emissions.shape[2]) != emissions.shape[2] - 1
        blocked = outside[:, :, None] & not_o[None, None, :]
        emissions = numpy.where(blocked, forbidden_score(emissions.dtype), emissions).astype(emissions.dtype)
    if constrained:
        transitions = constrain_transitions(transitions, iob_forbidden(n_labels))
    tags, _ = viterbi(emissions, lengths, transitions)
    fixed, invalid = apply_entity_fix(tags, lengths, n_labels)
    if entity_fix:
        tags = fixed
    doc_ids, starts, ends, label_ids = tags_to_spans(tags, lengths, n_labels)
    probabilities = span_probabilities(
        emissions, lengths, transitions, doc_ids, starts, ends, label_ids, n_labels
    )
    found = split_by_doc(doc_ids, len(lengths), starts, ends, label_ids, probabilities)
    return found, invalid
