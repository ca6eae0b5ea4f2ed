"""Annotated Docs as plain records, and the JSON lines reader and writer that both
the single-machine path (`nlp.pipe`) and the Ray path share.

One record per document:

    {"id": "d1", "text": "...",
     "spans": [{"key": "sc", "label": "DNA", "start": 0, "end": 2,
                "start_char": 0, "end_char": 9, "score": 3.1}, ...],
     "ents": [{"label": "DNA", "start": 0, "end": 2, "start_char": 0, "end_char": 9}]}

`start`/`end` are token offsets, `*_char` character offsets into `text`, and
`score` is the component's score for the span (a logit for global_pointer and
crener, a probability for lcrf_ner), or null when the component stores none.
"""
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import srsly
from spacy.language import Language
from spacy.tokens import Doc

from .reader import PathLike, read_lines

Record = Dict[str, Any]


def doc_to_record(
    doc: Doc, *, doc_id: Optional[str] = None, spans_keys: Optional[Sequence[str]] = None
) -> Record:
    """The spans, scores and entities of an annotated Doc as a JSON-ready dict.

    doc (Doc): The annotated Doc.
    doc_id (Optional[str]): An identifier carried through from the input.
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write; None
        writes every key, in sorted order.
    RETURNS (Dict[str, Any]): The record.
    """
    keys = sorted(doc.spans) if spans_keys is None else list(spans_keys)
    spans = []
    for key in keys:
        group = doc.spans.get(key, [])
        scores = getattr(group, "attrs", {}).get("scores")
        if scores is not None and len(scores) != len(group):
            scores = None
        for i, span in enumerate(group):
            spans.append(
                {
                    "key": key,
                    "label": span.label_,
                    "start": span.start,
                    "end": span.end,
                    "start_char": span.start_char,
                    "end_char": span.end_char,
                    "score": None if scores is None else float(scores[i]),
                }
            )
    ents = [
        {
            "label": ent.label_,
            "start": ent.start,
            "end": ent.end,
            "start_char": ent.start_char,
            "end_char": ent.end_char,
        }
        for ent in doc.ents
    ]
    return {"id": doc_id, "text": doc.text, "spans": spans, "ents": ents}


def read_texts(path: PathLike) -> Iterator[Tuple[Optional[str], str]]:
    """Read (id, text) pairs: JSON lines with a "text" (and optional "id") field
    when the file name ends in .jsonl, else one document per line of plain text.
    A malformed line raises its error (see reader.read_lines).

    path (Union[str, Path]): The corpus file.
    RETURNS (Iterator[Tuple[Optional[str], str]]): Ids (the line number, from
        1, where a line has none) and texts.
    """
    for line in read_lines(path):
        if line.error is not None:
            raise ValueError(line.error)
        yield line.doc_id, line.text


def annotate(
    nlp: Language,
    items: Iterable[Tuple[Optional[str], str]],
    *,
    batch_size: int = 64,
    n_process: int = 1,
    spans_keys: Optional[Sequence[str]] = None,
) -> Iterator[Record]:
    """Run `nlp.pipe` over (id, text) pairs and yield one record per document,
    in input order.

    nlp (Language): The loaded pipeline.
    items (Iterable[Tuple[Optional[str], str]]): Ids and texts, e.g. from read_texts.
    batch_size (int): Docs per batch.
    n_process (int): Processes for nlp.pipe.
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write (None: all).
    RETURNS (Iterator[Dict[str, Any]]): The records.
    """
    pairs = ((text, doc_id) for doc_id, text in items)
    docs = nlp.pipe(pairs, as_tuples=True, batch_size=batch_size, n_process=n_process)
    for doc, doc_id in docs:
        yield doc_to_record(doc, doc_id=doc_id, spans_keys=spans_keys)


def write_jsonl(path: PathLike, records: Iterable[Record]) -> int:
    """Write records as JSON lines, streaming; folders are made.

    path (Union[str, Path]): The output file.
    records (Iterable[Dict[str, Any]]): The records.
    RETURNS (int): The number of records written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf8") as file_:
        for record in records:
            file_.write(srsly.json_dumps(record) + "\n")
            count += 1
    return count


def read_records(path: PathLike) -> List[Record]:
    """Read records back from a JSON lines file or a folder of Parquet files."""
    path = Path(path)
    if path.is_dir():
        import pyarrow.parquet

        return pyarrow.parquet.read_table(path).to_pylist()
    return list(srsly.read_jsonl(path))
