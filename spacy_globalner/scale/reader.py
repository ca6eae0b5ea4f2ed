"""Reading a corpus line by line, in bounded memory, with each line's number and
byte offset, so that a job can report a malformed line where it is and resume
after the last line it wrote.

A `.jsonl` corpus has one JSON object with a string "text" (and an optional "id")
per line; blank lines are skipped. Any other file has one document per line of
UTF-8 text, blank lines included (an empty document). A document without an
"id" takes its line number as its id (a string, counted from 1 like the line
numbers of error messages, blank lines included), so that each output record
can be joined back to its input line. A line that cannot be a
document (invalid UTF-8, bad JSON, no "text", a "text" that is not a string)
comes back with its error instead of a text: the caller decides whether to stop
or to set it aside.
"""
import json
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Optional, Tuple, Union

import srsly

from ..errors import Errors

PathLike = Union[str, Path]
BOM = b"\xef\xbb\xbf"
# How much of a malformed line an error message quotes.
MAX_QUOTE = 200
# The byte order marks of the wide encodings, the 4-byte ones first (UTF-32-LE's
# starts with UTF-16-LE's), and the names iconv knows them by.
WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32-LE"), (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"), (b"\xfe\xff", "UTF-16-BE"),
)
# Bytes at the start of a corpus that check_encoding looks at.
SNIFF_BYTES = 4096


class Line(NamedTuple):
    """One line of the corpus.

    line_no (int): Its number, from 1.
    end (int): The byte offset just after it (where reading resumes).
    doc_id (Optional[str]): The "id" field of a JSON line, as a string, or
        the line number (from 1) where there is none; None for a malformed line.
    text (Optional[str]): The document's text; None for a malformed line.
    error (Optional[str]): Why the line is malformed (a catalogue message).
    raw (Optional[str]): A malformed line as read (undecodable bytes replaced).
    """

    line_no: int
    end: int
    doc_id: Optional[str] = None
    text: Optional[str] = None
    error: Optional[str] = None
    raw: Optional[str] = None


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE] + "..."


def _json_problem(text: str, err: ValueError) -> str:
    """What is wrong with a line that is not JSON, as the json module says it
    (where in the line), rather than ujson's terser message."""
    try:
        json.loads(text)
    except ValueError as json_err:
        return str(json_err)
    return str(err)  # what ujson refuses and json accepts (NaN, say)


def _wide_encoding(head: bytes) -> Optional[Tuple[str, str, str]]:
    """The wide encoding a file's first bytes are in, the evidence, and the
    name iconv reads it by; None for UTF-8 (or anything else without NUL
    bytes, which UTF-8 text lacks)."""
    for bom, name in WIDE_BOMS:
        if head.startswith(bom):
            # iconv's UTF-16 and UTF-32 read the mark and drop it.
            return name, "it starts with that encoding's byte order mark", name[:-3]
    if b"\x00" not in head:
        return None
    # Latin text in UTF-16 has a NUL in every other byte (the odd ones for
    # little-endian), in UTF-32 three NULs in every four bytes.
    def nul_share(offset: int, step: int) -> float:
        part = head[offset::step]
        return part.count(0) / max(1, len(part))

    evidence = f"{head.count(0)} NUL bytes in its first {len(head)}"
    if min(nul_share(i, 4) for i in (1, 2, 3)) > 0.5:
        name = "UTF-32-LE"
    elif min(nul_share(i, 4) for i in (0, 1, 2)) > 0.5:
        name = "UTF-32-BE"
    else:
        name = "UTF-16-LE" if nul_share(1, 2) >= nul_share(0, 2) else "UTF-16-BE"
    return name, evidence, name


def utf8_name(path: Path) -> Path:
    """The name an error message suggests for a re-encoded copy of a corpus."""
    return path.with_name(f"{path.stem}.utf8{path.suffix}")


def check_encoding(path: PathLike) -> None:
    """Raise E508 where a corpus is UTF-16 or UTF-32 (a byte order mark, or
    NUL bytes at its start): read as UTF-8, its first line would be an error
    and the others text full of NUL characters.

    path (Union[str, Path]): The corpus file.
    """
    path = Path(path)
    with path.open("rb") as file_:
        found = _wide_encoding(file_.read(SNIFF_BYTES))
    if found is not None:
        encoding, evidence, iconv = found
        raise ValueError(
            Errors.E508.format(
                path=path, encoding=encoding, evidence=evidence, iconv=iconv,
                suggested=utf8_name(path),
            )
        )


def read_lines(
    path: PathLike, *, start: int = 0, start_line: int = 0, jsonl: Optional[bool] = None
) -> Iterator[Line]:
    """Read a corpus from a byte offset on, one Line per document or malformed line.

    path (Union[str, Path]): The corpus file.
    start (int): The byte offset to start at: 0, or the `end` of a line read before.
    start_line (int): The number of the line before `start` (0 at the file's start).
    jsonl (Optional[bool]): Whether lines are JSON; None: when the name ends in .jsonl.
    RETURNS (Iterator[Line]): The lines, in file order.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(Errors.E400.format(path=path))
    check_encoding(path)
    if jsonl is None:
        jsonl = path.suffix == ".jsonl"
    line_no = start_line
    end = start
    with path.open("rb") as file_:
        if start > 0:
            file_.seek(start - 1)
            if file_.read(1) != b"\n":
                # The line before `start` was the file's unterminated last line:
                # the newline appended since ends it, not a new line.
                ending = file_.read(2)
                skip = 2 if ending == b"\r\n" else 1 if ending[:1] in (b"\n", b"\r") else 0
                start += skip
                end = start
        file_.seek(start)
        for raw in file_:
            line_no += 1
            end += len(raw)
            if line_no == 1 and raw.startswith(BOM):
                raw = raw[len(BOM):]
            raw = raw.rstrip(b"\r\n")
            try:
                text = raw.decode("utf8")
            except UnicodeDecodeError as err:
                shown = raw.decode("utf8", errors="replace")
                message = Errors.E500.format(
                    path=path, line_no=line_no, pos=err.start, value=_quote(raw[max(0, err.start - 20):err.end + 20]),
                    suggested=utf8_name(path),
                )
                yield Line(line_no, end, error=message, raw=shown)
                continue
            if not jsonl:
                yield Line(line_no, end, doc_id=str(line_no), text=text)
                continue
            if not text.strip():
                continue
            try:
                obj = srsly.json_loads(text)
            except ValueError as err:
                message = Errors.E501.format(path=path, line_no=line_no, problem=_json_problem(text, err),
                                             value=_quote(text))
                yield Line(line_no, end, error=message, raw=text)
                continue
            if not isinstance(obj, dict) or "text" not in obj:
                message = Errors.E401.format(path=path, line_no=line_no, value=_quote(obj))
                yield Line(line_no, end, error=message, raw=text)
                continue
            if not isinstance(obj["text"], str):
                message = Errors.E502.format(
                    path=path, line_no=line_no, type=type(obj["text"]).__name__, value=_quote(obj["text"])
                )
                yield Line(line_no, end, error=message, raw=text)
                continue
            doc_id = obj.get("id")
            yield Line(line_no, end, doc_id=str(line_no if doc_id is None else doc_id), text=obj["text"])
