"""Numbered lines of a corpus file, for readers that report where data is bad."""
import json
from pathlib import Path
from typing import Any, Iterator, List, Tuple, Union

from ..errors import Errors

PathLike = Union[str, Path]


def check_path(path: PathLike) -> Path:
    """The input as a Path, or an error that says the file is missing."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(Errors.E307.format(path=path))
    return path


def numbered_lines(path: Path) -> Iterator[Tuple[int, str]]:
    """Yield (1-based line number, line without its line break) from a UTF-8 file.

    Lines are decoded one at a time so that a bad byte is reported with its
    line number; a byte order mark on the first line is dropped.
    """
    with path.open("rb") as file_:
        for line_no, raw in enumerate(file_, 1):
            try:
                line = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as err:
                raise ValueError(
                    Errors.E303.format(path=path, line_no=line_no, line=raw[:200], err=err)
                ) from None
            yield line_no, line.rstrip("\r\n")


def json_lines(path: Path) -> Iterator[Tuple[int, str, Any]]:
    """Yield (1-based line number, line, decoded value) for each non-blank line
    of a JSON lines file; a line that is not JSON is error E305.
    """
    for line_no, line in numbered_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(
                Errors.E305.format(path=path, line_no=line_no, line=shorten(line), err=err)
            ) from None
        yield line_no, line, record


def sentence_blocks(
    path: Path, *, is_comment=lambda line: False
) -> Iterator[List[Tuple[int, str]]]:
    """Yield the non-blank lines of each blank-line separated sentence.

    Whitespace-only lines count as blank (WNUT-17 separates posts with a lone
    tab). Comment lines are left out, and so are CoNLL-2003 `-DOCSTART-`
    lines, which mark documents rather than tokens.
    """
    block: List[Tuple[int, str]] = []
    for line_no, line in numbered_lines(path):
        if not line.strip() or line.startswith("-DOCSTART-"):
            if block:
                yield block
                block = []
        elif not is_comment(line):
            block.append((line_no, line))
    if block:
        yield block


def shorten(line: str, width: int = 200) -> str:
    """The line as far as an error message needs it (JSON lines can be long)."""
    return line if len(line) <= width else line[:width] + "..."


def bad_record(path: Path, line_no: int, line: str, problem: str, expected: str) -> ValueError:
    """The catalogue error for a JSON line whose value does not have the format's shape."""
    return ValueError(
        Errors.E306.format(
            path=path, line_no=line_no, line=shorten(line), problem=problem, expected=expected
        )
    )


def malformed(path: Path, line_no: int, line: str, expected: str, hint: str) -> ValueError:
    """The catalogue error for a line that does not have the format's shape."""
    return ValueError(
        Errors.E302.format(
            path=path, line_no=line_no, line=shorten(line), expected=expected, hint=hint
        )
    )
