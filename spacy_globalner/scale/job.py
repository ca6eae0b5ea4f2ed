"""Annotating a corpus file as a batch job: streamed in bounded memory, resumable
after a crash, and explicit about malformed input.

    from spacy_globalner.scale.job import annotate_file
    annotate_file(nlp, "corpus.jsonl", "annotated.jsonl", errors_path="bad.jsonl", resume=True)

- Output: one JSON record per document (see records.py), in input order.
- Progress: every `checkpoint_every` lines (and at the end) the output and error
  files are flushed and fsynced, then OUTPUT.progress is replaced atomically
  (written to a temporary file, fsynced, renamed) with the input's byte offset
  and line number and the byte sizes of the output and error files at that
  point. A resumed job truncates both files to those sizes, dropping records
  written after the last checkpoint and any partly written last line, and reads
  on from the offset: each input line ends up in the output (or the error file)
  exactly once.
- Memory: lines are read one at a time and records written as they come; with
  one process, each `zone_size` lines run in a spaCy memory zone, so strings the
  vocab met in them are freed and memory stays flat over millions of documents.
- One run per output: OUTPUT.lock (lock.py) refuses a second run while the
  first writes it. A UTF-16 or UTF-32 input is refused before anything is
  written (reader.check_encoding).
- Malformed lines (invalid UTF-8, bad JSON, no "text", a text that is not a
  string): with `errors_path`, written there with their line number and error,
  and the job goes on; without, the job writes everything before the line, saves
  its progress and stops with the line's number (fix it and resume).
"""
import hashlib
import itertools
import os
import time
import warnings
from collections import deque
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, Optional, Sequence, Tuple

import srsly
from spacy.language import Language

from ..errors import Errors, Warnings
from ..validation import check_int
from .lock import output_lock
from .reader import Line, PathLike, check_encoding, read_lines
from .records import Record, doc_to_record

PROGRESS_SUFFIX = ".progress"
# Bytes of input before the resume offset whose hash identifies the input.
FINGERPRINT_BYTES = 4096
# Seconds between two saves of the progress at most, for slow pipelines.
CHECKPOINT_SECONDS = 10.0


def progress_path(output_path: PathLike) -> Path:
    """The progress file of an output: OUTPUT.progress next to it."""
    output_path = Path(output_path)
    return output_path.with_name(output_path.name + PROGRESS_SUFFIX)


def annotate_lines(
    nlp: Language,
    lines: Iterable[Line],
    *,
    stop_on_error: bool = True,
    batch_size: int = 64,
    n_process: int = 1,
    spans_keys: Optional[Sequence[str]] = None,
) -> Iterator[Tuple[Line, Optional[Record]]]:
    """Run nlp.pipe over the well-formed lines and yield every line with its
    record (None for a malformed line), in input order.

    nlp (Language): The loaded pipeline.
    lines (Iterable[Line]): Lines from read_lines.
    stop_on_error (bool): End the stream at the first malformed line (yielded last).
    batch_size (int): Docs per nlp.pipe batch.
    n_process (int): Processes for nlp.pipe.
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write (None: all).
    RETURNS (Iterator[Tuple[Line, Optional[Dict[str, Any]]]]): Lines and records.
    """
    # Lines nlp.pipe has taken but not yet given back: at most its buffer.
    pending: deque = deque()

    def feed() -> Iterator[Tuple[str, int]]:
        for line in lines:
            pending.append(line)
            if line.error is None:
                yield line.text, line.line_no
            elif stop_on_error:
                return

    docs = nlp.pipe(feed(), as_tuples=True, batch_size=batch_size, n_process=n_process)
    for doc, line_no in docs:
        while pending[0].line_no != line_no:
            yield pending.popleft(), None
        line = pending.popleft()
        yield line, doc_to_record(doc, doc_id=line.doc_id, spans_keys=spans_keys)
    while pending:
        yield pending.popleft(), None


def _refuse_too_long(lines: Iterable[Line], path: Path, max_length: int) -> Iterator[Line]:
    """The lines, a document longer than max_length marked malformed (E510): as
    any malformed line it stops the job or goes to the error file, where nlp.pipe
    would raise spaCy's E088 and end the stream without its line number."""
    for line in lines:
        if line.error is None and len(line.text) > max_length:
            error = Errors.E510.format(path=path, line_no=line.line_no, length=len(line.text), max_length=max_length)
            line = line._replace(error=error, raw=line.text)
        yield line


def _annotate_in_zones(
    nlp: Language, lines: Iterator[Line], *, zone_size: int, n_process: int, **kwargs: Any
) -> Iterator[Tuple[Line, Optional[Record]]]:
    if n_process != 1:
        # Worker processes keep their own vocab; restarting them per zone would
        # cost more than it frees in the parent.
        yield from annotate_lines(nlp, lines, n_process=n_process, **kwargs)
        return
    for first in lines:
        zone = itertools.chain([first], itertools.islice(lines, zone_size - 1))
        with nlp.memory_zone():
            yield from annotate_lines(nlp, zone, n_process=1, **kwargs)


def _fingerprint(path: Path, end: int) -> str:
    with path.open("rb") as file_:
        file_.seek(max(0, end - FINGERPRINT_BYTES))
        return hashlib.sha1(file_.read(end - max(0, end - FINGERPRINT_BYTES))).hexdigest()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # e.g. Windows, where directories cannot be opened
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: Dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf8") as file_:
        file_.write(srsly.json_dumps(data, indent=2))
        file_.flush()
        os.fsync(file_.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _open_for_resume(path: Path, size: int, what: str):
    """Open an output file for appending at `size` bytes, dropping what follows."""
    actual = path.stat().st_size if path.is_file() else -1
    if actual < size:
        raise ValueError(Errors.E504.format(what=what, path=path, size=size, actual=max(actual, 0)))
    file_ = path.open("r+b")
    file_.truncate(size)
    file_.seek(size)
    return file_


def _load_progress(marker: Path, input_path: Path, errors_path: Optional[Path]) -> Dict[str, Any]:
    state = srsly.read_json(marker)
    end = state["input_offset"]
    # The bytes before the resume point identify the input, not its path: a
    # copy, or the file re-encoded as UTF-8 after a line stopped the run
    # (E500), goes on from where the run stopped.
    if input_path.stat().st_size < end or _fingerprint(input_path, end) != state["input_fingerprint"]:
        raise ValueError(
            Errors.E503.format(marker=marker, input=state["input"], line_no=state["input_line"], path=input_path)
        )
    if state.get("errors_path") != (None if errors_path is None else str(errors_path.resolve())):
        # Lines set aside so far are in the other error file (or none was kept):
        # start this one afresh.
        state["error_bytes"] = 0
        state["errors"] = 0
    return state


def annotate_file(
    nlp: Language,
    input_path: PathLike,
    output_path: PathLike,
    *,
    errors_path: Optional[PathLike] = None,
    resume: bool = False,
    batch_size: int = 64,
    n_process: int = 1,
    spans_keys: Optional[Sequence[str]] = None,
    show_progress: bool = False,
    checkpoint_every: int = 1000,
    zone_size: int = 10000,
    max_length: Optional[int] = None,
) -> Dict[str, int]:
    """Annotate a corpus file into a JSON lines file of records, as described above.

    nlp (Language): The loaded pipeline.
    input_path (Union[str, Path]): A .jsonl corpus or plain text, one document per line.
    output_path (Union[str, Path]): The output .jsonl file (its progress file sits beside it).
    errors_path (Optional[Union[str, Path]]): Where malformed lines go; None: stop at the first.
    resume (bool): Continue from OUTPUT.progress if there is one (else start afresh).
    batch_size (int): Docs per nlp.pipe batch.
    n_process (int): Processes for nlp.pipe (-1: one per CPU).
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write (None: all).
    show_progress (bool): Show a progress bar with documents/s (only on a terminal).
    checkpoint_every (int): Lines between two saves of the progress.
    zone_size (int): Lines per spaCy memory zone (one process only).
    max_length (Optional[int]): The longest document in characters, for this call
        (None: nlp.max_length). A longer one is a malformed line (E510).
    RETURNS (Dict[str, int]): "records" and "errors" in the output and error files,
        "new_records" and "new_errors" written by this call, "start_line" (the line
        it resumed after, 0 when it started afresh).
    """
    input_path, output_path = Path(input_path), Path(output_path)
    errors_path = None if errors_path is None else Path(errors_path)
    for name, value in (("batch_size", batch_size), ("n_process", n_process), ("zone_size", zone_size),
                        ("checkpoint_every", checkpoint_every), ("max_length", max_length)):
        # n_process=-1 is nlp.pipe's "one process per CPU"
        if (name, value) not in (("n_process", -1), ("max_length", None)):
            check_int(value, name, "annotate", error=Errors.E403)
    if not input_path.is_file():
        raise ValueError(Errors.E400.format(path=input_path))
    if errors_path is not None and errors_path.resolve() == output_path.resolve():
        raise ValueError(Errors.E505.format(path=errors_path))
    check_encoding(input_path)  # before the output is touched
    default_length = nlp.max_length
    if max_length is not None:
        nlp.max_length = max_length
    try:
        with output_lock(output_path):
            summary = _annotate_file(
                nlp, input_path, output_path, errors_path=errors_path, resume=resume, batch_size=batch_size,
                n_process=n_process, spans_keys=spans_keys, show_progress=show_progress,
                checkpoint_every=checkpoint_every, zone_size=zone_size,
            )
    finally:
        nlp.max_length = default_length
    if summary["records"] == 0 and summary["errors"] == 0:
        warnings.warn(Warnings.W500.format(path=input_path, output=output_path))
    return summary


def _annotate_file(
    nlp: Language,
    input_path: Path,
    output_path: Path,
    *,
    errors_path: Optional[Path],
    resume: bool,
    batch_size: int,
    n_process: int,
    spans_keys: Optional[Sequence[str]],
    show_progress: bool,
    checkpoint_every: int,
    zone_size: int,
) -> Dict[str, int]:
    """annotate_file with its arguments checked and the output locked."""
    import tqdm

    marker = progress_path(output_path)
    state = {"input_offset": 0, "input_line": 0, "records": 0, "output_bytes": 0, "errors": 0, "error_bytes": 0}
    if resume and marker.is_file():
        state.update(_load_progress(marker, input_path, errors_path))
    else:
        # Before the output is emptied: a crash before the first checkpoint must
        # not leave an earlier run's progress to resume from.
        marker.unlink(missing_ok=True)
    start_line, start_records, start_errors = state["input_line"], state["records"], state["errors"]
    output_path.parent.mkdir(parents=True, exist_ok=True)
    if state["output_bytes"] == 0:
        output_path.write_bytes(b"")
    out = _open_for_resume(output_path, state["output_bytes"], "output")
    err = None
    if errors_path is not None:
        errors_path.parent.mkdir(parents=True, exist_ok=True)
        if state["error_bytes"] == 0:
            errors_path.write_bytes(b"")
        err = _open_for_resume(errors_path, state["error_bytes"], "error")

    def checkpoint(line: Optional[Line]) -> None:
        out.flush()
        os.fsync(out.fileno())
        if err is not None:
            err.flush()
            os.fsync(err.fileno())
        if line is not None:
            state["input_offset"], state["input_line"] = line.end, line.line_no
        state.update(
            input=str(input_path.resolve()),
            input_fingerprint=_fingerprint(input_path, state["input_offset"]),
            output_bytes=out.tell(),
            errors_path=None if errors_path is None else str(errors_path.resolve()),
            error_bytes=0 if err is None else err.tell(),
        )
        _write_atomic(marker, state)

    lines = _refuse_too_long(
        read_lines(input_path, start=state["input_offset"], start_line=state["input_line"]),
        input_path, nlp.max_length,
    )
    stream = _annotate_in_zones(
        nlp, lines, zone_size=zone_size, n_process=n_process, stop_on_error=errors_path is None,
        batch_size=batch_size, spans_keys=spans_keys,
    )
    bar = tqdm.tqdm(initial=start_line, unit=" docs", disable=None if show_progress else True)
    stopped: Optional[Line] = None
    last: Optional[Line] = None
    since, saved_at = 0, time.monotonic()
    try:
        for line, record in stream:
            if record is not None:
                out.write(srsly.json_dumps(record).encode("utf8") + b"\n")
                state["records"] += 1
            elif err is None:
                stopped = line
                break
            else:
                entry = {"line": line.line_no, "error": line.error, "text": line.raw}
                err.write(srsly.json_dumps(entry).encode("utf8") + b"\n")
                state["errors"] += 1
            last = line
            bar.update(1)
            since += 1
            if since >= checkpoint_every or time.monotonic() - saved_at > CHECKPOINT_SECONDS:
                checkpoint(last)
                since, saved_at = 0, time.monotonic()
        checkpoint(last)
    finally:
        stream.close()
        bar.close()
        out.close()
        if err is not None:
            err.close()
    if stopped is not None:
        raise ValueError(
            Errors.E506.format(error=stopped.error, records=state["records"], output=output_path)
        )
    return {
        "records": state["records"],
        "errors": state["errors"],
        "new_records": state["records"] - start_records,
        "new_errors": state["errors"] - start_errors,
        "start_line": start_line,
    }
