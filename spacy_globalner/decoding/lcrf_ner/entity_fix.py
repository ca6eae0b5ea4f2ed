"""Entity-Fix (Zöllner et al., 2021): repair tag sequences that a token
classifier or an unconstrained CRF decoded with forbidden transitions.

Both rules cut a sequence into runs: a run opens at a B tag, or at an I tag
that follows no entity token (O or the start of the doc), and goes on over
the I tags right after it, whatever their types. A valid run (B-X I-X ...)
is left as it is. An invalid run is repaired as a whole:

"paper" (the default), the rule as the paper writes it: "replaces forbidden
    I-X tags with the tag of the previous token. If the previous token has a
    B-X tag, the inserted token is converted to the corresponding I-X tag.
    In the special case where an I-X tag is predicted at the start of the
    sequence, it is converted to B-X of the same class." Applied left to
    right, a run opened by B-Y becomes B-Y I-Y ..., a run opened by I after
    O becomes O ..., and a run opened by I at the start becomes B-X I-X ...
    It assumes the strict reading of invalid sequences (an I without a valid
    start is no entity): tokens the strict reading gives no entity stay out
    of every entity (except at the doc's start). Its guarantee that the
    entity F1 "can never decrease" holds where every invalid run counts as
    one wrong entity (the paper's "tokens which already form an incorrect
    entity"); under the plain strict reading, which keeps the valid prefix
    B-Y of B-Y I-X as an entity, it can decrease (gold Y = [0, 1), predicted
    B-Y I-X: the fix turns a correct Y into a wrong [0, 2)).
"lenient": a run opened by I-X becomes B-X I-X ... wherever it is, and a
    run opened by B-Y becomes B-Y I-Y ...
    It assumes the lenient (conlleval) reading, where an I that opens an
    entity starts a new one of its own type; after it the output reads the
    same strictly and leniently.

Both rules act on IOB; BIOES sequences are repaired through their IOB
projection (see `bioes.py`), so the same rules follow that scheme.
"""
from typing import Tuple

import numpy

from ...errors import Errors

ENTITY_FIX_RULES = ("paper", "lenient")


def entity_fix(
    tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int, *, rule: str = "paper"
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Apply Entity-Fix to a batch of padded IOB tag sequences.

    tags (numpy.ndarray): Int tag ids (n_docs, max_length), ordered as in
        iob.py (B-* , I-*, O); padding is left as it is.
    lengths (numpy.ndarray): Number of tokens of each doc.
    n_labels (int): Number of entity labels.
    rule (str): "paper" or "lenient" (see the module docstring).
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): The repaired tags (a new
        array), and a bool per doc: True where a tag was changed.
    """
    if rule not in ENTITY_FIX_RULES:
        raise ValueError(Errors.E123.format(options=ENTITY_FIX_RULES, value=rule))
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
    head_of = numpy.maximum(head_of, 0)
    head_types = numpy.take_along_axis(tags, head_of, axis=1) % n_labels
    fixed = tags.copy()
    fixed[heads] = head_types[heads]
    continued = is_inside & ~heads
    fixed[continued] = head_types[continued] + n_labels
    if rule == "paper":
        # A run opened by I after O takes the O before it, token by token.
        opened_inside = is_inside & heads & (positions[None, :] > 0)
        dropped = in_entity & numpy.take_along_axis(opened_inside, head_of, axis=1)
        fixed[dropped] = 2 * n_labels
    return fixed, (fixed != tags).any(axis=1)
