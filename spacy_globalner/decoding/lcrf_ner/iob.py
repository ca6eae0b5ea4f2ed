"""The IOB tag scheme of the linear-chain CRF: tag layout, forbidden transitions,
and conversions between tag sequences and spans.

With `n_labels` labels X1..Xe the tags are ordered

    B-X1 .. B-Xe, I-X1 .. I-Xe, O          (ids 0 .. 2e, n_tags = 2e + 1)

and the transition matrix has two more states, START (id n_tags) and END (id
n_tags + 1). Transition matrices are indexed [from, to]: row i is the tag a
step leaves, column j the tag it enters.
"""
import numpy

from ..spans import EntityArrays
from .tag_runs import fill_runs, int64_arrays, linked_runs, runs_to_spans


def n_iob_tags(n_labels: int) -> int:
    """Number of emitted tags (B-*, I-*, O) for `n_labels` labels."""
    return 2 * n_labels + 1


def iob_forbidden(n_labels: int) -> numpy.ndarray:
    """The transitions that IOB forbids, as a [from, to] matrix over tags plus
    START and END.

    I-X may only follow B-X or I-X, so it may neither follow O, B-Y, I-Y nor
    START. Rows for END and the column for START are never used and stay False.
    n_labels (int): Number of entity labels.
    RETURNS (numpy.ndarray): Bool (n_tags + 2, n_tags + 2), True where forbidden.
    """
    n_tags = n_iob_tags(n_labels)
    forbidden = numpy.zeros((n_tags + 2, n_tags + 2), dtype=bool)
    inside = numpy.arange(n_labels) + n_labels
    forbidden[: n_tags + 1, inside] = True
    labels = numpy.arange(n_labels)
    forbidden[labels, inside] = False  # B-X -> I-X
    forbidden[inside, inside] = False  # I-X -> I-X
    return forbidden


def spans_to_tags(
    length: int, starts: numpy.ndarray, ends: numpy.ndarray, label_ids: numpy.ndarray, n_labels: int
) -> numpy.ndarray:
    """Tag one doc's non-overlapping spans with IOB; arguments and result as
    for `schemes.spans_to_tags`."""
    starts, ends, label_ids = int64_arrays(starts, ends, label_ids)
    tags = numpy.full((length,), 2 * n_labels, dtype="int64")
    fill_runs(tags, starts + 1, numpy.maximum(ends - starts - 1, 0), label_ids + n_labels)
    tags[starts] = label_ids
    return tags


def tags_to_spans(tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int) -> EntityArrays:
    """Read the entities of a batch of padded tag sequences, strictly.

    An entity is a B-X followed by any number of I-X. An I-X that does not
    continue such an entity is read as O: Entity-Fix (see entity_fix.py) is the
    repair for those, and is applied before this reading when configured.
    Arguments and result as for `schemes.tags_to_spans`.
    """
    tags, lengths = int64_arrays(tags, lengths)
    n_docs, max_length = tags.shape
    valid = numpy.arange(max_length)[None, :] < lengths[:, None]
    is_begin = valid & (tags < n_labels)
    is_inside = valid & (tags >= n_labels) & (tags < 2 * n_labels)
    types = numpy.where(is_inside, tags - n_labels, tags)
    # A token links to its left neighbour when it is I-X after B-X or I-X.
    links = numpy.zeros_like(valid)
    links[:, 1:] = (
        is_inside[:, 1:]
        & (is_begin[:, :-1] | is_inside[:, :-1])
        & (types[:, 1:] == types[:, :-1])
    )
    # Linked runs that open with a B are entities; runs opening with an I are not.
    opens = (is_begin | is_inside) & ~links
    open_flat, run_sizes = linked_runs(opens, is_begin | is_inside)
    keep = is_begin.ravel()[open_flat]
    return runs_to_spans(open_flat[keep], run_sizes[keep], tags)
