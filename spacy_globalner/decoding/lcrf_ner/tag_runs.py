"""What the IOB and BIOES schemes share when they turn spans into tags and
tags into spans: writing runs of I-X tags, and grouping linked tokens into
runs, all vectorised over the batch.
"""
from typing import Tuple

import numpy

from ..spans import EntityArrays


def int64_arrays(*arrays) -> Tuple[numpy.ndarray, ...]:
    """Each argument as an int64 array (a view where it already is one)."""
    return tuple(numpy.asarray(array, dtype="int64") for array in arrays)


def fill_runs(tags: numpy.ndarray, firsts: numpy.ndarray, sizes: numpy.ndarray, tag_ids: numpy.ndarray) -> None:
    """Write tag_ids[i] on the sizes[i] tokens from firsts[i] on, in place.

    tags (numpy.ndarray): Int64 tag ids of one doc (length,).
    firsts, sizes, tag_ids (numpy.ndarray): Int64, one entry per run.
    """
    first_inside = numpy.repeat(numpy.cumsum(sizes) - sizes, sizes)
    tokens = numpy.repeat(firsts, sizes) + numpy.arange(int(sizes.sum())) - first_inside
    tags[tokens] = numpy.repeat(tag_ids, sizes)


def linked_runs(opens: numpy.ndarray, in_entity: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Group the entity tokens of a padded batch into runs: a run starts at
    each token of `opens` and takes the tokens of `in_entity` after it.

    opens (numpy.ndarray): Bool (n_docs, max_length), the first token of each run.
    in_entity (numpy.ndarray): Bool (n_docs, max_length), a subset of which `opens` is.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): The flat index of each
        run's first token and the run's number of tokens.
    """
    run_ids = numpy.cumsum(opens.ravel()) - 1
    open_flat = numpy.flatnonzero(opens.ravel())
    run_sizes = numpy.bincount(run_ids[in_entity.ravel()], minlength=len(open_flat))
    return open_flat, run_sizes


def runs_to_spans(open_flat: numpy.ndarray, run_sizes: numpy.ndarray, types: numpy.ndarray) -> EntityArrays:
    """The entities of the kept runs of `linked_runs`.

    types (numpy.ndarray): Int label id of every token (n_docs, max_length).
    RETURNS (EntityArrays): The entities, ordered by doc then start.
    """
    max_length = types.shape[1]
    doc_ids, starts = numpy.divmod(open_flat, max_length) if max_length else (open_flat, open_flat)
    return EntityArrays(doc_ids, starts, starts + run_sizes, types.ravel()[open_flat])
