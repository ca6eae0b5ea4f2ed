"""The tag schemes of lcrf_ner, "iob" and "bioes", behind one set of
functions, so the converter, the decoder, the forbidden transitions (and so
the penalties) and Entity-Fix all follow the scheme a model was built with.
"""
from typing import Tuple

import numpy

from ...errors import Errors
from ..spans import EntityArrays
from . import bioes, iob
from .entity_fix import entity_fix

TAG_SCHEMES = ("iob", "bioes")


def check_tag_scheme(scheme: str) -> str:
    """RETURNS (str): `scheme`, if it is one of TAG_SCHEMES; else raise E121."""
    if scheme not in TAG_SCHEMES:
        raise ValueError(Errors.E121.format(options=TAG_SCHEMES, value=scheme))
    return scheme


def n_tags(scheme: str, n_labels: int) -> int:
    """Number of emitted tags of `scheme` for `n_labels` labels (O is the last)."""
    check_tag_scheme(scheme)
    return bioes.n_bioes_tags(n_labels) if scheme == "bioes" else iob.n_iob_tags(n_labels)


def forbidden_transitions(scheme: str, n_labels: int) -> numpy.ndarray:
    """Bool [from, to] matrix over tags, START and END: True where forbidden."""
    check_tag_scheme(scheme)
    return bioes.bioes_forbidden(n_labels) if scheme == "bioes" else iob.iob_forbidden(n_labels)


def spans_to_tags(scheme: str, length: int, starts, ends, label_ids, n_labels: int) -> numpy.ndarray:
    """Tag one doc's non-overlapping spans (see iob.py and bioes.py).

    length (int): Number of tokens in the doc.
    starts, ends, label_ids (numpy.ndarray): The spans (end exclusive).
    n_labels (int): Number of entity labels.
    RETURNS (numpy.ndarray): Int64 tag ids (length,).
    """
    check_tag_scheme(scheme)
    module = bioes if scheme == "bioes" else iob
    return module.spans_to_tags(length, starts, ends, label_ids, n_labels)


def tags_to_spans(scheme: str, tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int) -> EntityArrays:
    """The strict reading of padded tag sequences (see iob.py and bioes.py).

    tags (numpy.ndarray): Int tag ids (n_docs, max_length); padding is ignored.
    lengths (numpy.ndarray): Number of tokens of each doc.
    n_labels (int): Number of entity labels.
    RETURNS (EntityArrays): The entities, ordered by doc then start.
    """
    check_tag_scheme(scheme)
    module = bioes if scheme == "bioes" else iob
    return module.tags_to_spans(tags, lengths, n_labels)


def repair(
    scheme: str, tags: numpy.ndarray, lengths: numpy.ndarray, n_labels: int, *, rule: str = "paper"
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Entity-Fix under `scheme`. BIOES sequences are projected on IOB (B, U
    -> B; I, L -> I), repaired there and written back as BIOES, so a valid
    BIOES sequence is unchanged, an unclosed B-X is closed where its run
    ends, and an I-X or L-X that opens a run is treated as the IOB rule
    treats an I-X there.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): The repaired tags, and a
        bool per doc: True where a tag was changed.
    """
    check_tag_scheme(scheme)
    if scheme == "iob":
        return entity_fix(tags, lengths, n_labels, rule=rule)
    tags = numpy.asarray(tags, dtype="int64")
    lengths = numpy.asarray(lengths, dtype="int64")
    fixed_iob, _ = entity_fix(bioes.bioes_to_iob(tags, n_labels), lengths, n_labels, rule=rule)
    fixed = bioes.iob_to_bioes(fixed_iob, lengths, n_labels)
    padding = numpy.arange(tags.shape[1])[None, :] >= lengths[:, None]
    fixed = numpy.where(padding, tags, fixed)
    return fixed, (fixed != tags).any(axis=1)
