"""Decode a linear-chain CRF's scores into entities: Viterbi (argmax for the
softmax baseline), optionally constrained to valid tags, then Entity-Fix,
then a probability per entity.
"""
from typing import List, Optional, Tuple, Union

import numpy

from ..spans import SpanArrays, split_by_doc
from .marginals import bioes_span_probabilities, independent_span_probabilities, span_probabilities
from .schemes import forbidden_transitions, repair, tags_to_spans
from .viterbi import constrain_transitions, forbidden_score, viterbi


def decode_lcrf_ner(
    emissions: numpy.ndarray,
    lengths: numpy.ndarray,
    transitions: numpy.ndarray,
    n_labels: int,
    *,
    constrained: bool = False,
    entity_fix: Union[bool, str] = "paper",
    outside: Optional[numpy.ndarray] = None,
    tag_scheme: str = "iob",
) -> Tuple[List[SpanArrays], numpy.ndarray]:
    """The entities of each doc under IOB or BIOES tags.

    emissions (numpy.ndarray): Tag scores (n_docs, max_length, n_tags), padded,
        tags ordered as in iob.py or bioes.py.
    lengths (numpy.ndarray): Number of tokens of each doc.
    transitions (numpy.ndarray): Scores [from, to] over tags, START and END.
        All zero for the softmax baseline: the tags are then the argmax of
        each token's emissions, and the probabilities those of independent
        softmaxes.
    n_labels (int): Number of entity labels.
    constrained (bool): Give forbidden transitions `forbidden_score`, so that
        Viterbi only returns valid tags (and the probabilities are those of the
        constrained CRF).
    entity_fix (Union[bool, str]): The Entity-Fix rule that repairs forbidden
        tags, "paper" or "lenient" (see entity_fix.py), or "none" to read them
        strictly as O. True means "paper", False "none".
    outside (Optional[numpy.ndarray]): Bool (n_docs, max_length), True for
        tokens that must be tagged O, such as whitespace: every other tag gets
        `forbidden_score` as emission there.
    tag_scheme (str): "iob" or "bioes".
    RETURNS (Tuple[List[SpanArrays], numpy.ndarray]): The entities of each doc
        with their probabilities, and a bool per doc: True where the raw
        decoded path had a forbidden transition (whether or not it was repaired).
    """
    rule = entity_fix_rule(entity_fix)
    lengths = numpy.asarray(lengths, dtype="int64")
    if outside is not None and outside.any():
        not_o = numpy.arange(emissions.shape[2]) != emissions.shape[2] - 1
        blocked = outside[:, :, None] & not_o[None, None, :]
        emissions = numpy.where(blocked, forbidden_score(emissions.dtype), emissions).astype(emissions.dtype)
    if constrained:
        transitions = constrain_transitions(transitions, forbidden_transitions(tag_scheme, n_labels))
    independent = not transitions.any()
    if independent:
        tags = _argmax_tags(emissions, lengths)
    else:
        tags, _ = viterbi(emissions, lengths, transitions)
    fixed, invalid = repair(tag_scheme, tags, lengths, n_labels, rule=rule if rule != "none" else "paper")
    if rule != "none":
        tags = fixed
    entities = tags_to_spans(tag_scheme, tags, lengths, n_labels)
    if independent:
        probabilities = independent_span_probabilities(emissions, lengths, entities, n_labels, tag_scheme=tag_scheme)
    else:
        probability = bioes_span_probabilities if tag_scheme == "bioes" else span_probabilities
        probabilities = probability(emissions, lengths, transitions, entities, n_labels)
    found = split_by_doc(entities, len(lengths), probabilities)
    return found, invalid


def entity_fix_rule(entity_fix: Union[bool, str]) -> str:
    """The rule name of an `entity_fix` setting: True -> "paper", False -> "none"."""
    if entity_fix is True:
        return "paper"
    if entity_fix is False:
        return "none"
    return entity_fix


def _argmax_tags(emissions: numpy.ndarray, lengths: numpy.ndarray) -> numpy.ndarray:
    """Each token's best tag (what Viterbi gives with zero transitions); O on padding."""
    n_docs, max_length, n_tags = emissions.shape
    tags = emissions.argmax(axis=2) if n_tags else numpy.zeros((n_docs, max_length), dtype="int64")
    padding = numpy.arange(max_length)[None, :] >= lengths[:, None]
    return numpy.where(padding, n_tags - 1, tags).astype("int64")
