"""spacy globalner annotate MODEL INPUT OUTPUT [--ray ...]

Spans with their scores as JSON records (see scale/records.py), written by a
batch job that streams in bounded memory, resumes after a crash and reports
malformed lines by number (scale/job.py), or by Ray Data for scale-out
(scale/ray_annotate.py). For .spacy output on one machine, `spacy apply`.
"""
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from ..gpu import require_gpu
from ._app import DEFAULT_THREADS, THREADS_HELP, Arg, Opt, globalner_cli, use_torch_threads


@globalner_cli.command("annotate")
def annotate_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline package name or path, as for spacy.load"),
    input_path: Path = Arg(..., help="Corpus: .jsonl with 'text' (and 'id'), or plain text, one document per "
                                     "line. A document without an 'id' gets its line number, from 1 (not with --ray)",
                           metavar="INPUT"),
    output_path: Path = Arg(..., help="Output .jsonl file, or a Parquet folder with --ray", metavar="OUTPUT"),
    batch_size: int = Opt(64, "--batch-size", help="Docs per batch"),
    n_process: int = Opt(1, "--n-process", help="Processes for nlp.pipe"),
    threads: int = Opt(DEFAULT_THREADS, "--threads", min=0, help=THREADS_HELP),
    spans_keys: Optional[List[str]] = Opt(None, "--spans-key",
                                          help="doc.spans key to write (repeatable; default: all)"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU for nlp.pipe (-1: CPU)"),
    use_ray: bool = Opt(False, "--ray", help="Run on Ray Data"),
    address: Optional[str] = Opt(None, "--address", help="Ray cluster address (default: local)"),
    workers: int = Opt(2, "--workers", help="Pipelines on Ray"),
    output_format: Optional[str] = Opt(None, "--format",
                                       help="Output format on Ray: jsonl or parquet "
                                            "(default: from the output's suffix)"),
    resume: bool = Opt(False, "--resume",
                       help="Go on from where an interrupted run stopped (OUTPUT.progress)"),
    errors_path: Optional[Path] = Opt(None, "--errors",
                                      help="Write malformed input lines here and go on "
                                           "(default: stop at the first, with its line number)"),
    max_length: Optional[int] = Opt(None, "--max-length", min=1,
                                    help="The longest document in characters (default: the pipeline's "
                                         "nlp.max_length, 1,000,000 unless its config sets it)"),
    show_progress: bool = Opt(True, "--progress/--no-progress",
                              help="Show a progress bar with docs/s (on a terminal only)"),
    # fmt: on
):
    """Annotate a corpus and write spans and scores as JSON lines (or Parquet
    with --ray). Each record carries its input line's "id", or the line's
    number (from 1, blank lines counted, as a string) where it has none, to
    join the output back to the input; on Ray such a record's id is null. A
    run saves its progress as it goes: after a crash, rerun it with --resume.
    A document longer than --max-length characters is a malformed line.
    For local annotation into .spacy files, `spacy apply` does it.
    """
    spans_keys = spans_keys or None
    try:
        if use_ray:
            from ..errors import Errors
            from ..scale.ray_annotate import ray_annotate

            retried = "Ray Data reads and retries the corpus itself"
            for option, given, why in (
                ("--resume", resume, retried),
                ("--errors", errors_path is not None, retried),
                ("--max-length", max_length is not None, "Ray's workers load the pipeline as saved"),
            ):
                if given:
                    raise ValueError(Errors.E507.format(option=option, why=why))

            count = ray_annotate(
                model, input_path, output_path, address=address, num_workers=workers,
                batch_size=batch_size, output_format=output_format, spans_keys=spans_keys,
            )
        else:
            import spacy

            from ..scale.job import annotate_file

            if gpu_id >= 0:
                require_gpu(gpu_id)
            msg.info(f"torch threads: {use_torch_threads(threads)} (--threads)")
            nlp = spacy.load(model)
            summary = annotate_file(
                nlp, input_path, output_path, errors_path=errors_path, resume=resume,
                batch_size=batch_size, n_process=n_process, spans_keys=spans_keys,
                show_progress=show_progress, max_length=max_length,
            )
            count = summary["records"]
            if summary["start_line"]:
                msg.info(f"Resumed after input line {summary['start_line']}: "
                         f"{summary['new_records']} new record(s)")
            if errors_path is not None:
                msg.info(f"{summary['errors']} malformed line(s) -> {errors_path}")
    except ValueError as err:
        msg.fail("Annotation failed", str(err))
        raise typer.Exit(code=1) from None
    msg.good(f"Annotated {count} document(s) -> {output_path}")
