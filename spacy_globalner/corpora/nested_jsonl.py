"""Nested NER as JSON lines, one sentence a line (GENIA).

    {"tokens": ["IL-2", "gene", ...], "entities": [[0, 2, "DNA"], ...]}

Entity offsets are token indices, end exclusive; entities may nest, cross,
or share a span under two types. Other keys ("doc") are ignored. Entities
whose offsets fall outside the sentence are skipped and counted.
"""
from pathlib import Path
from typing import Iterator, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import Record, Repairs, read_docs, token_record
from .lines import PathLike, bad_record, json_lines

EXPECTED = ('an object {"tokens": [str, ...], "entities": [[start, end_exclusive, '
            'type], ...]} with integer token offsets')


def read_nested_jsonl(
    path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None
) -> Iterator[Doc]:
    """Read a nested-NER JSON lines file into Docs.

    path (Union[str, Path]): The file, e.g. genia/train.jsonl.
    vocab (Vocab): The vocab of the Docs.
    spans_key (str): The key in doc.spans for all entities, nested included.
    limit (Optional[int]): Read at most this many sentences.
    RETURNS (Iterator[Doc]): One Doc per line; tokens joined by spaces.
    """
    return read_docs(parse_nested_jsonl, path, vocab, spans_key=spans_key, limit=limit)


def _is_entity(entity) -> bool:
    return (
        isinstance(entity, (list, tuple))
        and len(entity) == 3
        and all(isinstance(i, int) and not isinstance(i, bool) for i in entity[:2])
        and isinstance(entity[2], str)
        and bool(entity[2])
    )


def parse_nested_jsonl(path: Path, repairs: Repairs) -> Iterator[Record]:
    for line_no, line, record in json_lines(path):
        problem = None
        if not isinstance(record, dict):
            problem = f"a {type(record).__name__}, not an object"
        else:
            tokens = record.get("tokens")
            entities = record.get("entities", [])
            if not isinstance(tokens, list) or not all(
                isinstance(token, str) and token.strip() for token in tokens
            ):
                problem = "'tokens' is missing or not a list of non-empty strings"
            elif not isinstance(entities, list):
                problem = "'entities' is not a list"
            else:
                bad = next((e for e in entities if not _is_entity(e)), None)
                if bad is not None:
                    problem = f"entity {bad!r} is not [start, end_exclusive, type]"
        if problem is not None:
            raise bad_record(path, line_no, line, problem, EXPECTED)
        spans = [(start, end, label) for start, end, label in entities]
        yield token_record(tokens, spans, line_no)
