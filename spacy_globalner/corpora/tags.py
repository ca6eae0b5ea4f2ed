"""Token tags (BIO, BIOES, BMES) to entity spans, repairing broken sequences.

One decoder reads every scheme: `B-` opens a span, `I-`/`M-` continue it,
`E-` closes it, `S-` is a one-token span, `O` is outside. Sequences that
break the scheme are repaired the way most evaluation scripts (conlleval)
read them, and every repair is counted in a `Repairs` log so the reader can
report it.
"""
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..errors import Errors
from .docs import Entity, Record, Repairs, char_record
from .lines import shorten

PREFIXES = ("B", "I", "M", "E", "S")

REPAIR_CONTINUE = "I-/M- tag without an open span of its label (read as B-)"
REPAIR_END = "E- tag without an open span of its label (read as S-)"
REPAIR_UNCLOSED = "span not closed by an E- tag (closed at its last tagged token)"


def split_tag(tag: str, *, path: Path, line_no: int, line: str) -> Tuple[str, str]:
    """Split "B-PER" into ("B", "PER"); "O" gives ("O", "").

    Labels may contain hyphens ("B-creative-work"), so only the first one splits.
    """
    if tag == "O":
        return "O", ""
    prefix, sep, label = tag.partition("-")
    if not sep or prefix not in PREFIXES or not label.strip():
        raise ValueError(
            Errors.E304.format(path=path, line_no=line_no, line=shorten(line), tag=tag)
        )
    return prefix, label


def tags_to_entities(
    tags: Sequence[Tuple[str, str]],
    line_nos: Sequence[int],
    repairs: Repairs,
    *,
    closed_by_end: bool = False,
) -> List[Entity]:
    """Decode split tags into (start, end_exclusive, label) token spans.

    tags (Sequence[Tuple[str, str]]): (prefix, label) per token, from `split_tag`.
    line_nos (Sequence[int]): The line of each token, for the repair log.
    repairs (Repairs): Where repaired sequences are counted.
    closed_by_end (bool): The scheme closes every multi-token span with E-
        (BIOES, BMES), so a span that ends otherwise is counted as a repair.
    RETURNS (List[Entity]): The spans, in order of their start.
    """
    entities: List[Entity] = []
    start: Optional[int] = None
    label = ""

    def close(end: int, by_end: bool) -> None:
        nonlocal start
        if start is not None:
            if closed_by_end and not by_end:
                repairs.add(REPAIR_UNCLOSED, line_nos[end - 1])
            entities.append((start, end, label))
            start = None

    for i, (prefix, tag_label) in enumerate(tags):
        continues = start is not None and tag_label == label
        if prefix == "O":
            close(i, by_end=False)
        elif prefix == "B":
            close(i, by_end=False)
            start, label = i, tag_label
        elif prefix in ("I", "M"):
            if not continues:
                repairs.add(REPAIR_CONTINUE, line_nos[i])
                close(i, by_end=False)
                start, label = i, tag_label
        elif prefix == "E":
            if not continues:
                repairs.add(REPAIR_END, line_nos[i])
                close(i, by_end=False)
                start, label = i, tag_label
            close(i + 1, by_end=True)
        else:  # "S"
            close(i, by_end=False)
            start, label = i, tag_label
            close(i + 1, by_end=True)
    close(len(tags), by_end=False)
    return entities


REPAIR_SEVERAL_CHARS = "line with several characters (one token per character)"


def char_tags_record(
    fields: Sequence[str],
    tags: Sequence[Tuple[str, str]],
    line_nos: Sequence[int],
    repairs: Repairs,
    *,
    closed_by_end: bool = False,
) -> Record:
    """A sentence tagged one character a line, as a one-token-per-character Record.

    A line that holds several characters (Weibo has emoji that upstream
    broke into two replacement characters) is split into one token per
    character, its span boundaries kept, and counted.
    """
    entities = tags_to_entities(tags, line_nos, repairs, closed_by_end=closed_by_end)
    offsets = [0]
    for field, line_no in zip(fields, line_nos):
        offsets.append(offsets[-1] + len(field))
        if len(field) > 1:
            repairs.add(REPAIR_SEVERAL_CHARS, line_no)
    char_entities = [(offsets[start], offsets[end], label) for start, end, label in entities]
    return char_record("".join(fields), char_entities, line_nos[0], repairs)
