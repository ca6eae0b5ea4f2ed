"""W2NER-style JSON: a JSON list of sentences with token-index entities.

    [{"sentence": ["IL-2", "gene", "expression"],
      "ner": [{"index": [0, 1], "type": "DNA"}, {"index": [0], "type": "protein"}]},
     ...]

The format of W2NER's and most nested-NER repositories' GENIA, ACE and
CADEC files. An entity's "index" lists its tokens; one with a gap
(discontinuous, as CADEC's and ShARe's are) cannot be a spaCy Span, so it is
left out, counted and reported with warning W303, never merged into the
contiguous span around it. Other keys ("word", "pos") are ignored.
"""
import json
import warnings
from pathlib import Path
from typing import Iterator, List, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..errors import Errors, Warnings
from .docs import Entity, Record, Repairs, read_docs, token_record
from .lines import PathLike, shorten

EXPECTED = ('a list of objects {"sentence": [str, ...], "ner": [{"index": [int, ...], '
            '"type": str}, ...]}')
REPAIR_DISCONTINUOUS = "discontinuous entity (left out: a span holds contiguous tokens only)"


def read_w2ner(path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None) -> Iterator[Doc]:
    """Read a W2NER-style JSON file into Docs.

    path (Union[str, Path]): The file, e.g. genia/train.json of W2NER.
    vocab, spans_key, limit: As for `read_docs`.
    RETURNS (Iterator[Doc]): One Doc per sentence; tokens joined by spaces.
    """
    return read_docs(parse_w2ner, path, vocab, spans_key=spans_key, limit=limit)


def _is_entity(entity) -> bool:
    index = entity.get("index") if isinstance(entity, dict) else None
    return (
        isinstance(index, list)
        and bool(index)
        and all(isinstance(i, int) and not isinstance(i, bool) for i in index)
        and isinstance(entity.get("type"), str)
        and bool(entity["type"])
    )


def _problem(record) -> Optional[str]:
    if not isinstance(record, dict):
        return f"a {type(record).__name__}, not an object"
    tokens = record.get("sentence")
    if not isinstance(tokens, list) or not all(isinstance(t, str) and t.strip() for t in tokens):
        return "'sentence' is missing or not a list of non-empty strings"
    entities = record.get("ner", [])
    if not isinstance(entities, list):
        return "'ner' is not a list"
    bad = next((e for e in entities if not _is_entity(e)), None)
    if bad is not None:
        return f"entity {bad!r} is not {{'index': [int, ...], 'type': str}}"
    return None


def parse_w2ner(path: Path, repairs: Repairs) -> Iterator[Record]:
    try:
        records = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as err:
        raise ValueError(Errors.E314.format(path=path, err=err)) from None
    if not isinstance(records, list):
        raise ValueError(Errors.E315.format(path=path, number=0, problem="the file is not a JSON list",
                                            value=shorten(repr(records)), expected=EXPECTED))
    gaps = []
    for number, record in enumerate(records, 1):
        problem = _problem(record)
        if problem is not None:
            raise ValueError(Errors.E315.format(path=path, number=number, problem=problem,
                                                value=shorten(json.dumps(record)), expected=EXPECTED))
        entities: List[Entity] = []
        for entity in record.get("ner", []):
            index = sorted(set(entity["index"]))
            if index[-1] - index[0] + 1 != len(index):
                repairs.add(REPAIR_DISCONTINUOUS, number)
                gaps.append((number, entity))
                continue
            entities.append((index[0], index[-1] + 1, entity["type"]))
        yield token_record(list(record["sentence"]), entities, number)
    if gaps:
        number, entity = gaps[0]
        warnings.warn(Warnings.W303.format(path=path, count=len(gaps), number=number,
                                           index=entity["index"], type=entity["type"]))
