"""The BIOES tag scheme (BILUO in spaCy's terms): tag layout, forbidden
transitions, conversions between tag sequences and spans, and the IOB
projection through which Entity-Fix repairs BIOES sequences.

With `n_labels` labels X1..Xe the tags are ordered

    B-X1 .. B-Xe, I-X1 .. I-Xe, L-X1 .. L-Xe, U-X1 .. U-Xe, O
                                              (ids 0 .. 4e, n_tags = 4e + 1)

B opens an entity of two or more tokens, I continues it, L (E) closes it, U
(S) is a one-token entity. O is the last tag, as in IOB, and the transition
matrix has START (id n_tags) and END (id n_tags + 1), indexed [from, to].
"""
import numpy

from ..spans import EntityArrays
from . import iob
from .tag_runs import int64_arrays, linked_runs, runs_to_spans


def n_bioes_tags(n_labels: int) -> int:
    """Number of emitted tags (B-*, I-*, L-*, U-*, O) for `n_labels` labels."""
    return 4 * n_labels + 1


def bioes_forbidden(n_labels: int) -> numpy.ndarray:
    """The transitions that BIOES forbids, as a [from, to] matrix over tags
    plus START and END.

    After B-X or I-X (an open entity) only I-X or L-X may come, and the doc
    may not end. After O, L-*, U-* or START (no open entity) only B-*, U-*,
    O or the end may come. The row for END and the column for START are
    never used and stay False.
    n_labels (int): Number of entity labels.
    RETURNS (numpy.ndarray): Bool (n_tags + 2, n_tags + 2), True where forbidden.
    """
    e = n_labels
    n_tags = n_bioes_tags(e)
    start = n_tags
    labels = numpy.arange(e)
    begin, inside, last, unit = labels, labels + e, labels + 2 * e, labels + 3 * e
    forbidden = numpy.zeros((n_tags + 2, n_tags + 2), dtype=bool)
    open_rows = numpy.concatenate([begin, inside])
    closed_rows = numpy.concatenate([last, unit, [n_tags - 1, start]])
    forbidden[open_rows] = True
    forbidden[open_rows, start] = False
    for source in (begin, inside):
        forbidden[source, inside] = False
        forbidden[source, last] = False
    forbidden[closed_rows[:, None], numpy.concatenate([inside, last])[None, :]] = True
    return forbidden


def spans_to_tags(
    length: int, starts: numpy.ndarray, ends: numpy.ndarray, label_ids: numpy.ndarray, n_labels: int
) -> numpy.ndarray:
    """Tag one doc's non-overlapping spans with BIOES: their IOB tags, with
    the last token of each entity marked L or U. Arguments and result as for
    `schemes.spans_to_tags`."""
    iob_tags = iob.spans_to_tags(length, starts, ends, label_ids, n_labels)
    return iob_to_bioes(iob_tags[None, :], numpy.asarray([length]), n_labels)[0]


def tags_to_spans(tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int) -> EntityArrays:
    """Read the entities of a batch of padded BIOES tag sequences, strictly.

    An entity is a U-X, or a B-X, any number of I-X and an L-X. Any other
    piece (a B-X that is never closed, an I-X or L-X without its B-X) is read
    as O: Entity-Fix is the repair for those.
    Arguments and result as for `schemes.tags_to_spans`.
    """
    tags, lengths = int64_arrays(tags, lengths)
    n_docs, max_length = tags.shape
    valid = numpy.arange(max_length)[None, :] < lengths[:, None]
    kinds = numpy.where(valid & (tags < 4 * n_labels), tags // max(n_labels, 1), 4)
    types = tags % max(n_labels, 1)
    is_open = (kinds == 0) | (kinds == 1)  # B or I: the entity goes on
    continues = (kinds == 1) | (kinds == 2)  # I or L
    links = numpy.zeros_like(valid)
    links[:, 1:] = continues[:, 1:] & is_open[:, :-1] & (types[:, 1:] == types[:, :-1])
    in_entity = kinds < 4
    opens = in_entity & ~links
    open_flat, run_sizes = linked_runs(opens, in_entity)
    last_flat = open_flat + run_sizes - 1
    flat_kinds = kinds.ravel()
    keep = (flat_kinds[open_flat] == 3) | ((flat_kinds[open_flat] == 0) & (flat_kinds[last_flat] == 2))
    return runs_to_spans(open_flat[keep], run_sizes[keep], types)


def bioes_to_iob(tags: numpy.ndarray, n_labels: int) -> numpy.ndarray:
    """Project BIOES tags on IOB (B, U -> B; I, L -> I; O -> O).

    Entity boundaries that only L and U mark are lost, so a valid BIOES
    sequence maps to a valid IOB one with the same entities, and invalid
    ones (an unclosed B-X) may become valid.
    RETURNS (numpy.ndarray): Int64 IOB tag ids, same shape.
    """
    tags = numpy.asarray(tags, dtype="int64")
    e = n_labels
    kinds = numpy.minimum(tags // max(e, 1), 4)
    types = tags % max(e, 1)
    iob = numpy.where((kinds == 0) | (kinds == 3), types, types + e)
    return numpy.where(kinds == 4, 2 * e, iob)


def iob_to_bioes(tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int) -> numpy.ndarray:
    """Write valid IOB tag sequences (padded) as BIOES with the same entities:
    a B or I whose entity does not go on to the next token becomes U or L.

    RETURNS (numpy.ndarray): Int64 BIOES tag ids, same shape; O on padding.
    """
    tags = numpy.asarray(tags, dtype="int64")
    lengths = numpy.asarray(lengths, dtype="int64")
    e = n_labels
    valid = numpy.arange(tags.shape[1])[None, :] < lengths[:, None]
    is_begin = valid & (tags < e)
    is_inside = valid & (tags >= e) & (tags < 2 * e)
    goes_on = numpy.zeros_like(valid)
    goes_on[:, :-1] = is_inside[:, 1:]
    types = tags % max(e, 1)
    bioes = numpy.full(tags.shape, 4 * e, dtype="int64")
    bioes = numpy.where(is_begin & goes_on, types, bioes)
    bioes = numpy.where(is_begin & ~goes_on, types + 3 * e, bioes)
    bioes = numpy.where(is_inside & goes_on, types + e, bioes)
    bioes = numpy.where(is_inside & ~goes_on, types + 2 * e, bioes)
    return bioes
