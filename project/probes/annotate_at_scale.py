"""Measure `spacy globalner annotate` as a batch job (not a test; docs/shipping.md
links it). Each command prints one JSON line:

    python project/probes/annotate_at_scale.py rss --docs 1000000
    python project/probes/annotate_at_scale.py rss --docs 200000 --no-zones
    python project/probes/annotate_at_scale.py speed --docs 100000
    python project/probes/annotate_at_scale.py overhead --docs 30000

The pipeline is a small trained lcrf_ner (HashEmbedCNN width 32 + lcrf_ner, 8
updates on 20 GENIA sentences of the bundled slice): the fastest real pipeline,
so that a million documents run in minutes and the job's own costs show.
Documents are the slice's GENIA dev sentences, each with a number of its own
("Sample 123456 : ..."), so the vocabulary keeps growing as in a real corpus. Commands run as subprocesses
with OMP_NUM_THREADS=1 (one thread each, for the measurement only).

rss: peak RSS (VmHWM) of the annotate process, and its RSS when 10%, 50% and
100% of the lines are done (from OUTPUT.progress, polled). --no-zones runs the
same job without spaCy memory zones (in-process annotate_file, zone_size above
the corpus size) to show what they keep flat.
speed: words/s of `spacy globalner annotate` and `spacy apply` (.jsonl in,
.spacy out) on the same pipeline and input, batch size 64 both; wall time of
the whole command minus that of the same command on a one-line corpus (start-up),
and each command's peak RSS.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import srsly
import typer

REPO = Path(__file__).resolve().parents[2]
# This checkout's package, in this process as in the commands it runs (_env).
sys.path.insert(0, str(REPO))
GENIA = REPO / "project" / "assets" / "genia"
# The factory's HashEmbedCNN, made small.
SMALL_TOK2VEC = {"width": 32, "depth": 1, "embed_size": 500, "maxout_pieces": 2}

app = typer.Typer(add_completion=False)


def _pipeline(folder: Path) -> Path:
    """A small lcrf_ner trained for 8 updates on 20 GENIA sentences, saved in FOLDER."""
    import spacy
    import torch
    from spacy.language import Language
    from spacy.training import Example
    from spacy.util import fix_random_seed

    from spacy_globalner.corpora import read_nested_jsonl

    fix_random_seed(0)
    torch.set_num_threads(1)
    nlp = spacy.blank("en")
    model = dict(Language.get_factory_meta("lcrf_ner").default_config["model"])
    model["tok2vec"] = {**model["tok2vec"], **SMALL_TOK2VEC}
    nlp.add_pipe("lcrf_ner", config={"model": model})
    docs = list(read_nested_jsonl(GENIA / "train.jsonl", nlp.vocab, limit=20))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W100: lcrf_ner learns the outer layer only
        optimizer = nlp.initialize(lambda: examples)
        for _ in range(8):
            nlp.update(examples, sgd=optimizer)
    nlp.to_disk(folder / "pipeline")
    return folder / "pipeline"


def _corpus(path: Path, n_docs: int) -> int:
    """Write n_docs lines; RETURNS the number of whitespace-separated words."""
    import spacy

    from spacy_globalner.corpora import read_nested_jsonl

    vocab = spacy.blank("en").vocab
    texts = [doc.text for doc in read_nested_jsonl(GENIA / "dev.jsonl", vocab, limit=400)]
    texts = [text for text in texts if text.strip()]
    words = 0

    def lines():
        nonlocal words
        for i in range(n_docs):
            text = f"Sample {i} : {texts[i % len(texts)]}"
            words += len(text.split())
            yield {"id": str(i), "text": text}

    srsly.write_jsonl(path, lines())
    return words


def _env() -> dict:
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = str(REPO)
    return env


def _status(pid: int, key: str) -> int:
    """A /proc/PID/status value in MiB, 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _run_sampled(command, output: Path, n_docs: int) -> dict:
    marker = output.with_name(output.name + ".progress")
    start = time.monotonic()
    proc = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples = {}
    peak = 0
    while proc.poll() is None:
        rss = _status(proc.pid, "VmRSS")
        peak = max(peak, _status(proc.pid, "VmHWM"))
        try:
            done = srsly.read_json(marker)["input_line"] / n_docs
        except (FileNotFoundError, ValueError, KeyError):
            done = 0.0
        for share in (0.1, 0.5, 1.0):
            if done >= share and share not in samples and rss:
                samples[share] = rss
        time.sleep(0.2)
    _, stderr = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(stderr.decode())
    return {
        "seconds": round(time.monotonic() - start, 1),
        "peak_rss_mib": peak,
        "rss_mib_at": {f"{int(k * 100)}%": v for k, v in sorted(samples.items())},
    }


@app.command()
def rss(docs: int = 10000, no_zones: bool = False):
    folder = Path(tempfile.mkdtemp(prefix="measure-annotate-"))
    try:
        model = _pipeline(folder)
        corpus, output = folder / "corpus.jsonl", folder / "out.jsonl"
        _corpus(corpus, docs)
        if no_zones:
            code = (
                "import spacy; from spacy_globalner.scale.job import annotate_file; "
                f"annotate_file(spacy.load({str(model)!r}), {str(corpus)!r}, {str(output)!r}, "
                f"zone_size={docs + 1})"
            )
            command = [sys.executable, "-c", code]
        else:
            command = [sys.executable, "-m", "spacy", "globalner", "annotate", str(model), str(corpus), str(output)]
        result = _run_sampled(command, output, docs)
        result.update(docs=docs, memory_zones=not no_zones, output_lines=sum(1 for _ in output.open("rb")))
        print(json.dumps(result))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _wall(command):
    """RETURNS the command's wall time in seconds and its peak RSS in MiB."""
    start = time.monotonic()
    proc = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} exited with {proc.returncode}")
    return time.monotonic() - start, usage.ru_maxrss // 1024


@app.command()
def speed(docs: int = 100000, batch_size: int = 64):
    folder = Path(tempfile.mkdtemp(prefix="measure-annotate-"))
    try:
        model = _pipeline(folder)
        corpus, one = folder / "corpus.jsonl", folder / "one.jsonl"
        words = _corpus(corpus, docs)
        _corpus(one, 1)
        commands = {
            "spacy globalner annotate": lambda src, dst: [
                sys.executable, "-m", "spacy", "globalner", "annotate", str(model), str(src), str(dst) + ".jsonl",
                "--batch-size", str(batch_size)],
            "spacy apply": lambda src, dst: [
                sys.executable, "-m", "spacy", "apply", str(model), str(src), str(dst) + ".spacy",
                "--batch-size", str(batch_size), "--force"],
        }
        result = {"docs": docs, "words": words, "batch_size": batch_size}
        for name, command in commands.items():
            startup, _ = _wall(command(one, folder / "one-out"))
            total, peak = _wall(command(corpus, folder / "out"))
            result[name] = {
                "seconds": round(total, 1),
                "peak_rss_mib": peak,
                "startup_seconds": round(startup, 1),
                "words_per_second": round(words / (total - startup)),
                "docs_per_second": round(docs / (total - startup)),
            }
        print(json.dumps(result))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@app.command()
def overhead(docs: int = 30000, repeats: int = 2):
    """docs/s of the job (annotate_file: progress saved every 1,000 lines with
    fsync, memory zones) and of a bare nlp.pipe -> JSON lines loop over the same
    corpus, in one process, alternating; the pipeline loaded once."""
    import spacy
    import torch

    from spacy_globalner.scale import annotate, annotate_file, read_texts, write_jsonl

    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp(prefix="measure-annotate-"))
    try:
        nlp = spacy.load(_pipeline(folder))
        corpus = folder / "corpus.jsonl"
        _corpus(corpus, docs)
        runs = {
            "annotate_file": lambda: annotate_file(nlp, corpus, folder / "job.jsonl"),
            "nlp.pipe + write_jsonl": lambda: write_jsonl(folder / "bare.jsonl", annotate(nlp, read_texts(corpus))),
        }
        result = {name: [] for name in runs}
        for _ in range(repeats):
            for name, run in runs.items():
                start = time.monotonic()
                run()
                result[name].append(round(docs / (time.monotonic() - start)))
        print(json.dumps({"docs": docs, "docs_per_second": result}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    app()
