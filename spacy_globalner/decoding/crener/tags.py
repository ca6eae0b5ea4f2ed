"""The CRENER tag grid: which cells of an n x n token-pair grid carry which tags.

Cell (i, j) pairs token i (row) with token j (column) and holds any number of
tags at once (multi-label). For an entity covering tokens head..tail:

- NNC (next neighbouring token) at (k, k + 1) for every pair of neighbouring
  tokens inside the entity: the upper band;
- PNC (previous neighbouring token) at (k + 1, k): the same links read
  backwards, in the lower band;
- HTC_label (head to tail) at (head, tail): upper triangle, closes the entity
  and carries its type;
- THC_label (tail to head) at (tail, head): lower triangle, the same closure
  read backwards.

A single-token entity has its HTC and THC on the diagonal cell (head, head).

The tag channels of a grid are laid out as [NNC, PNC, HTC_0..HTC_{L-1},
THC_0..THC_{L-1}] for L labels; a model adds a threshold class in front.
"""
import numpy

NNC = 0
PNC = 1
N_LINK_TAGS = 2


def n_grid_tags(n_labels: int) -> int:
    """Number of tag channels of a grid for `n_labels` entity labels.

    n_labels (int): Number of entity labels.
    RETURNS (int): 2 link tags plus an HTC and a THC tag per label.
    """
    return N_LINK_TAGS + 2 * n_labels


def htc_channel(label_ids, n_labels: int):
    """Channel of the head-to-tail tag of each label id."""
    return N_LINK_TAGS + label_ids


def thc_channel(label_ids, n_labels: int):
    """Channel of the tail-to-head tag of each label id."""
    return N_LINK_TAGS + n_labels + label_ids


def encode_grid_entities(
    length: int,
    starts: numpy.ndarray,
    ends: numpy.ndarray,
    label_ids: numpy.ndarray,
    n_labels: int,
) -> numpy.ndarray:
    """The gold tag grid of one sequence (the inverse of `decode_grid`).

    length (int): Number of tokens in the sequence.
    starts (numpy.ndarray[int]): First token of each entity.
    ends (numpy.ndarray[int]): One past the last token of each entity (all
        entities lie inside [0, length)).
    label_ids (numpy.ndarray[int]): Label index of each entity.
    n_labels (int): Number of entity labels.
    RETURNS (numpy.ndarray[bool]): Tags of shape (length, length, n_grid_tags).
    """
    starts = numpy.asarray(starts, dtype="int64")
    ends = numpy.asarray(ends, dtype="int64")
    label_ids = numpy.asarray(label_ids, dtype="int64")
    tails = ends - 1
    grid = numpy.zeros((length, length, n_grid_tags(n_labels)), dtype=bool)
    # One link per pair of neighbouring tokens of each entity, all at once.
    n_links = numpy.maximum(tails - starts, 0)
    link_entity_starts = numpy.repeat(starts, n_links)
    link_offsets = numpy.arange(int(n_links.sum())) - numpy.repeat(numpy.cumsum(n_links) - n_links, n_links)
    links = link_entity_starts + link_offsets
    grid[links, links + 1, NNC] = True
    grid[links + 1, links, PNC] = True
    grid[starts, tails, htc_channel(label_ids, n_labels)] = True
    grid[tails, starts, thc_channel(label_ids, n_labels)] = True
    return grid
