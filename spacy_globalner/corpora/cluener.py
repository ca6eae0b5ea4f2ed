"""CLUENER 2020 JSON lines: text and entities as character offsets.

    {"text": "浙商银行企业信贷部叶老桂...",
     "label": {"company": {"浙商银行": [[0, 3]]}, "name": {"叶老桂": [[9, 11]]}}}

Offsets are characters, end inclusive. An entity whose offsets fall outside
the text, or whose surface string differs from the text at its offsets, is
skipped and counted. The test split has no "label" key and reads as docs
without entities.

Tokens are the characters (see the package docstring for the tokenizer
that a training config for them needs).
"""
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import REPAIR_OUT_OF_RANGE, Record, Repairs, char_record, read_docs
from .lines import PathLike, bad_record, json_lines

EXPECTED = ('an object {"text": str, "label": {type: {surface: [[start, '
            'end_inclusive], ...]}}} with integer character offsets')
REPAIR_SURFACE = "entity whose surface string differs from the text at its offsets (skipped)"


def read_cluener(path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None) -> Iterator[Doc]:
    """Read a CLUENER JSON lines file into Docs of one token per character.

    path (Union[str, Path]): The file, e.g. cluener/train.json.
    vocab, spans_key, limit: As for `read_docs`; a Chinese vocab
        (spacy.blank("zh").vocab); limit counts lines.
    RETURNS (Iterator[Doc]): One Doc per line.
    """
    return read_docs(parse_cluener, path, vocab, spans_key=spans_key, limit=limit)


def _is_offsets(offsets) -> bool:
    return (
        isinstance(offsets, (list, tuple))
        and len(offsets) == 2
        and all(isinstance(i, int) and not isinstance(i, bool) for i in offsets)
    )


def _entities(record) -> Tuple[Optional[str], List[Tuple[int, int, str, str]]]:
    """(problem or None, [(start, end_inclusive, type, surface)])."""
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        return "'text' is missing or not a string", []
    labels = record.get("label", {})
    if not isinstance(labels, dict):
        return "'label' is not an object", []
    entities = []
    for label, surfaces in labels.items():
        if not label or not isinstance(surfaces, dict):
            return f"the entities of {label!r} are not an object of surface strings", []
        for surface, spans in surfaces.items():
            if not isinstance(spans, list) or not all(_is_offsets(s) for s in spans):
                return f"the offsets of {label!r} {surface!r} are not [[start, end], ...]", []
            entities.extend((start, end, label, surface) for start, end in spans)
    return None, entities


def parse_cluener(path: Path, repairs: Repairs) -> Iterator[Record]:
    for line_no, line, record in json_lines(path):
        problem, entities = _entities(record)
        if problem is not None:
            raise bad_record(path, line_no, line, problem, EXPECTED)
        text = record["text"]
        char_entities = []
        for start, end, label, surface in entities:
            if not 0 <= start <= end < len(text):
                repairs.add(REPAIR_OUT_OF_RANGE, line_no)
            elif text[start : end + 1] != surface:
                repairs.add(REPAIR_SURFACE, line_no)
            else:
                char_entities.append((start, end + 1, label))
        yield char_record(text, char_entities, line_no, repairs)
