"""Entity-Fix (Zöllner et al., 2021): repair IOB sequences that a CRF decoded
with forbidden transitions, so that no predicted entity token is lost.

A forbidden I-X takes the entity of the token before it: after B-Y or I-Y it
becomes I-Y (the entity goes on, with the type it started with); after O, or at
the start of the doc, it becomes B-X (a new entity of its own type). Valid
sequences are left unchanged.
"""
from typing import Tuple

import numpy


def entity_fix(
    tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Apply Entity-Fix to a batch of padded IOB tag sequences.

    The rule is applied left to right, so a chain of forbidden I tags all join
    the entity before them. That is the same as: every run of entity tokens
    (B or I, between O tags) is cut at its B tags; each piece takes the type of
    its first token, which becomes B when it was an I.
    tags (numpy.ndarray): Int tag ids (n_docs, max_length), ordered as in
        iob.py (B-* , I-*, O); padding is left as it is.
    lengths (numpy.ndarray): Number of tokens of each doc.
    n_labels (int): Number of entity labels.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): The repaired tags (a new
        array), and a bool per doc: True where a tag was changed.
    """
    tags = numpy.asarray(tags, dtype="int64")
    lengths = numpy.asarray(lengths, dtype="int64")
    n_docs, max_length = tags.shape
    positions = numpy.arange(max_length)
    valid = positions[None, :] < lengths[:, None]
    is_begin = valid & (tags < n_labels)
    is_inside = valid & (tags >= n_labels) & (tags < 2 * n_labels)
    in_entity = is_begin | is_inside
    after_entity = numpy.zeros_like(valid)
    after_entity[:, 1:] = in_entity[:, :-1]
    heads = is_begin | (is_inside & ~after_entity)
    # The head a token belongs to is the last head at or before it.
    head_of = numpy.maximum.accumulate(numpy.where(heads, positions[None, :], -1), axis=1)
    head_types = numpy.take_along_axis(tags, numpy.maximum(head_of, 0), axis=1) % n_labels
    fixed = tags.copy()
    fixed[heads] = head_types[heads]
    continued = is_inside & ~heads
    fixed[continued] = head_types[continued] + n_labels
    return fixed, (fixed != tags).any(axis=1)
