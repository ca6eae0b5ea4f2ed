"""What the project times: training updates, prediction throughput and the
encoder's share of it, and peak memory.

    python scripts/measure.py pipeline-speed CORPUS DEV_SPACY ENCODER/HEAD/BUDGET [...] [--output JSON]
    python scripts/measure.py train-memory CORPUS CORPUS_DIR ENCODER/HEAD/BUDGET [...]
    python scripts/measure.py train-speed TRAIN_SPACY CONFIG [CONFIG ...]
    python scripts/measure.py predict-speed TRAIN_SPACY DEV_SPACY CONFIG [CONFIG ...]
    python scripts/measure.py threshold-scan CORPUS DEV_SPACY ENCODER/HEAD/BUDGET SCORES_KEY [--output JSON]

`pipeline-speed` and `train-memory` measure pipelines the `compare` workflow
trained (its command `compare-speed` runs the first), `threshold-scan` times
compare's threshold scan against `spacy find-threshold` on one of them; `train-speed` and
`predict-speed` time configs side by side (docs/shipping.md). The file is also
the `--code` of compare's `spacy train`: importing it registers the step timer
and the timing logger, and fixes torch's threads from BENCH_THREADS.
"""
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

import typer
from spacy.util import registry

import spacy_globalner  # noqa: F401 (registers the components)

# `spacy train --code` imports this file by its path, without its folder on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    Arg,
    Opt,
    budget_overrides,
    code_state,
    portable,
    set_threads,
    thread_env,
    versions,
    write_json,
)

if "BENCH_THREADS" in os.environ:  # a timed child process (compare.py's `spacy train`)
    set_threads(int(os.environ["BENCH_THREADS"]))

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)


# Training: `spacy train --code scripts/measure.py` (compare.py)

_step_starts: Dict[int, float] = {}


@registry.callbacks("benchmark.step_timer.v1")
def make_step_timer(
    then: Optional[Callable[[Any, Dict[str, Any]], None]] = None,
) -> Callable[[Any, Dict[str, Any]], None]:
    """Note when each update starts, then run THEN, the config's own
    before_update (the _trf configs' memory release), inside the timed update."""
    def before_update(nlp, args: Dict[str, Any]) -> None:
        _step_starts[args["step"]] = time.perf_counter()
        if then is not None:
            then(nlp, args)

    return before_update


def training_seconds(
    starts: Dict[int, float], ends: Dict[int, float], eval_steps: List[int]
) -> float:
    """Seconds from the first update to the last, batching included, with each
    evaluation step counted as a median update instead of update + evaluation.
    """
    steps = sorted(set(starts) & set(ends))
    if not steps:
        return 0.0
    total = ends[steps[-1]] - starts[steps[0]]
    plain = [ends[s] - starts[s] for s in steps if s not in eval_steps]
    median = statistics.median(plain) if plain else 0.0
    for step in eval_steps:
        if step in starts and step in ends:
            total -= (ends[step] - starts[step]) - median
    return total


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@registry.loggers("benchmark.timed_logger.v1")
def make_timed_logger(path: str = "train_stats.json"):
    console = registry.loggers.get("spacy.ConsoleLogger.v3")(progress_bar=None)

    def setup(nlp, stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> Tuple[Callable, Callable]:
        log_console, finalize_console = console(nlp, stdout, stderr)
        ends: Dict[int, float] = {}
        eval_steps: List[int] = []
        last: Dict[str, Any] = {}
        step = {"n": -1}

        def log_step(info: Optional[Dict[str, Any]]) -> None:
            step["n"] += 1
            ends[step["n"]] = time.perf_counter()
            if info is not None:
                eval_steps.append(info["step"])
                last.update(info)
            log_console(info)

        def finalize() -> None:
            import torch

            finalize_console()
            seconds = training_seconds(_step_starts, ends, eval_steps)
            words = int(last.get("words", 0))
            stats = {
                "steps": step["n"] + 1,
                "words": words,
                "train_seconds": round(seconds, 3),
                "train_words_per_second": round(words / seconds, 1) if seconds else None,
                "final_dev_score": last.get("score"),
                "peak_rss_mb": round(peak_rss_mb(), 1),
                "torch_threads": torch.get_num_threads(),
            }
            write_json(Path(path), stats)

        return log_step, finalize

    return setup


@app.command("train-speed")
def train_speed(
    # fmt: off
    train_path: Path = Arg(..., help="A .spacy training corpus", metavar="TRAIN_SPACY"),
    configs: List[Path] = Arg(..., help="Training configs to time side by side"),
    # fmt: on
):
    """Training words/s of configs on the same examples, one torch thread:
    5 warm-up updates, then 30 timed updates of 40 docs each, timed in the
    process's CPU time so other jobs on a shared machine do not move it."""
    from spacy.tokens import DocBin
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config
    from thinc.api import fix_random_seed

    set_threads(1)
    for config_path in configs:
        fix_random_seed(0)
        nlp = load_model_from_config(load_config(config_path), auto_fill=True)
        docs = list(DocBin().from_disk(train_path).get_docs(nlp.vocab))[:1400]
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
        optimizer = nlp.initialize(lambda examples=examples: examples[:400])
        batches = [examples[i : i + 40] for i in range(0, len(examples), 40)]
        for batch in batches[:5]:
            nlp.update(batch, sgd=optimizer)
        start = time.process_time()
        for batch in batches[5:35]:
            nlp.update(batch, sgd=optimizer)
        seconds = time.process_time() - start
        words = sum(len(eg.x) for batch in batches[5:35] for eg in batch)
        print(f"{config_path}: {words / seconds:.0f} words/s ({seconds:.1f} s, {words} words)")


def best_pipe_seconds(pipelines: List[Tuple[str, Any]], words: List[List[str]], repeats: int,
                      batch_size: int) -> Dict[str, float]:
    """NAME/full and NAME/encoder -> the least CPU seconds, over `repeats` rounds
    of the pipelines taking turns, that nlp.pipe took over docs of `words`,
    with the whole pipeline and with its first component (the encoder) alone."""
    from spacy.tokens import Doc

    best: Dict[str, float] = {}
    for _ in range(repeats):
        for name, nlp in pipelines:
            for mode in ("full", "encoder"):
                batch = [Doc(nlp.vocab, words=w) for w in words]
                start = time.process_time()
                with nlp.select_pipes(enable=nlp.pipe_names[:1] if mode == "encoder" else nlp.pipe_names):
                    list(nlp.pipe(batch, batch_size=batch_size))
                key = f"{name}/{mode}"
                best[key] = min(best.get(key, float("inf")), time.process_time() - start)
    return best


@app.command("predict-speed")
def predict_speed(
    # fmt: off
    train_path: Path = Arg(..., help="A .spacy training corpus", metavar="TRAIN_SPACY"),
    dev_path: Path = Arg(..., help="A .spacy corpus whose sentences are the input", metavar="DEV_SPACY"),
    configs: List[Path] = Arg(..., help="Training configs to time side by side"),
    updates: int = Opt(60, "--updates", help="Updates of 40 docs before timing (no head predicts from random weights)"),
    docs: int = Opt(1000, "--docs", help="Dev sentences predicted per run"),
    repeats: int = Opt(5, "--repeats", help="Rounds over all configs; the best run of each counts"),
    # fmt: on
):
    """Prediction words/s of configs side by side in one process, one torch
    thread: each pipeline is trained for a few updates on the same examples,
    then the configs take turns predicting the same pre-tokenized dev docs
    (nlp.pipe, batch 256), the best of `repeats` rounds counting; and the
    encoder alone the same way, so the head's share shows. Timed in the
    process's CPU time (one thread), so other jobs on a shared machine do
    not move the figures."""
    from spacy.tokens import Doc, DocBin
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config
    from thinc.api import fix_random_seed

    set_threads(1)
    pipelines = []
    for config_path in configs:
        fix_random_seed(0)
        nlp = load_model_from_config(load_config(config_path), auto_fill=True)
        train = list(DocBin().from_disk(train_path).get_docs(nlp.vocab))
        examples = [Example(Doc(nlp.vocab, words=[t.text for t in doc]), doc) for doc in train]
        optimizer = nlp.initialize(lambda examples=examples: examples[:400])
        for i in range(updates):
            lo = (40 * i) % max(len(examples) - 40, 1)
            nlp.update(examples[lo : lo + 40], sgd=optimizer)
        pipelines.append((config_path.stem, nlp))
    references = list(DocBin().from_disk(dev_path).get_docs(pipelines[0][1].vocab))[:docs]
    words = [[t.text for t in doc] for doc in references]
    n_words = sum(len(w) for w in words)
    best = best_pipe_seconds(pipelines, words, repeats, batch_size=256)
    for name, _ in pipelines:
        full, encoder = best[f"{name}/full"], best[f"{name}/encoder"]
        print(f"{name}: {n_words / full:.0f} words/s ({full:.2f} s for {n_words} words); "
              f"encoder alone {n_words / encoder:.0f} words/s; head adds {100 * (full - encoder) / encoder:.0f}%")


@app.command("pipeline-speed")
def pipeline_speed(
    # fmt: off
    corpus: str = Arg(..., help="The corpus' name, as compare.py wrote it"),
    dev_path: Path = Arg(..., help="A .spacy corpus whose sentences are the input", metavar="DEV_SPACY"),
    configs: List[str] = Arg(..., help="Runs as ENCODER/HEAD/BUDGET (global_pointer/spancat/steps4000)"),
    training_dir: Path = Opt(Path("training/compare"), "--training-dir", help="compare.py's training folder"),
    seed: int = Opt(0, "--seed", help="Whose model-last to time"),
    docs: int = Opt(500, "--docs", help="Dev sentences predicted per run"),
    repeats: int = Opt(3, "--repeats", help="Rounds over all pipelines; the best run of each counts"),
    output: Optional[Path] = Opt(None, "--output", help="JSON for tables.py --speed (SPEED_DIR/CORPUS.json)"),
    # fmt: on
):
    """Prediction words/s of pipelines that compare.py trained, side by side in
    one process, one torch thread: they take turns predicting the same
    pre-tokenized dev docs (nlp.pipe, batch 64), and their encoder alone the
    same way, the best of `repeats` rounds counting. Timed in the process's CPU
    time, so other jobs on a shared machine do not move the figures."""
    import spacy
    from spacy.tokens import DocBin

    set_threads(1)
    pipelines = [(config, spacy.load(training_dir / corpus / config / f"seed{seed}" / "model-last"))
                 for config in configs]
    references = list(DocBin().from_disk(dev_path).get_docs(pipelines[0][1].vocab))[:docs]
    words = [[t.text for t in doc] for doc in references]
    n_words = sum(len(w) for w in words)
    best = best_pipe_seconds(pipelines, words, repeats, batch_size=64)
    measured = {}
    for name, _ in pipelines:
        full, encoder = best[f"{name}/full"], best[f"{name}/encoder"]
        measured[name] = {"words_per_second": round(n_words / full, 1),
                          "encoder_words_per_second": round(n_words / encoder, 1),
                          "encoder_share": round(encoder / full, 4)}
        print(f"{name}: {n_words / full:.0f} words/s; encoder alone {n_words / encoder:.0f} words/s "
              f"({100 * encoder / full:.0f}% of the time)")
    if output is not None:
        command = (f"python scripts/measure.py pipeline-speed {corpus} {dev_path} {' '.join(configs)} "
                   f"--seed {seed} --docs {docs} --repeats {repeats} --output {output}")
        models = {name: portable(str((training_dir / corpus / name / f"seed{seed}" / "model-last").resolve()))
                  for name, _ in pipelines}
        write_json(output, {"corpus": corpus, "seed": seed, "docs": len(words), "words": n_words,
                            "repeats": repeats, "threads": 1, "command": command, "models": models,
                            "code": code_state(), "versions": versions(), "pipelines": measured})


@app.command("threshold-scan")
def threshold_scan(
    # fmt: off
    corpus: str = Arg(..., help="The corpus' name, as compare.py wrote it"),
    dev_path: Path = Arg(..., help="The .spacy corpus the threshold is chosen on", metavar="DEV_SPACY"),
    config: str = Arg(..., help="A run as ENCODER/HEAD/BUDGET (global_pointer/spancat/steps4000)"),
    scores_key: str = Arg(..., help="The score the threshold is chosen for (spans_sc_f, ents_f)"),
    training_dir: Path = Opt(Path("training/compare"), "--training-dir", help="compare.py's training folder"),
    seed: int = Opt(0, "--seed", help="Whose model-last to tune"),
    docs: int = Opt(200, "--docs", help="Dev sentences the threshold is chosen on"),
    trials: int = Opt(21, "--trials", help="Thresholds tried from 0 to 1"),
    output: Optional[Path] = Opt(None, "--output", help="Where the timings and both tools' choices go"),
    # fmt: on
):
    """CPU seconds, on one torch thread, of `spacy find-threshold` (a reload and
    a prediction of dev per threshold) and of compare.py's scan (one
    prediction of dev), choosing the same head's threshold on the same docs;
    fails if they choose differently."""
    import tempfile

    import spacy
    from spacy.cli.find_threshold import find_threshold
    from spacy.tokens import DocBin
    from threshold_scan import scan_threshold

    set_threads(1)
    model = training_dir / corpus / config / f"seed{seed}" / "model-last"
    nlp = spacy.load(model)
    name = nlp.pipe_names[-1]
    with tempfile.TemporaryDirectory() as folder:
        cut = Path(folder) / "dev.spacy"
        DocBin(docs=list(DocBin().from_disk(dev_path).get_docs(nlp.vocab))[:docs], store_user_data=True).to_disk(cut)
        start = time.process_time()
        found = find_threshold(str(model), cut, name, "threshold", scores_key, n_trials=trials, silent=True)
        find_seconds = time.process_time() - start
        start = time.process_time()
        scanned = scan_threshold(nlp, cut, name, scores_key, trials)
        scan_seconds = time.process_time() - start
    if scanned[2] != found[2]:
        raise SystemExit(f"The scan scored the thresholds otherwise than find-threshold: {scanned[2]} != {found[2]}")
    print(f"{config}: find-threshold {find_seconds:.1f} s, scan {scan_seconds:.1f} s "
          f"({find_seconds / scan_seconds:.1f}x); both choose {found[0]:.2f} ({scores_key} {found[1]:.4f})")
    if output is not None:
        command = (f"python scripts/measure.py threshold-scan {corpus} {dev_path} {config} {scores_key} "
                   f"--seed {seed} --docs {docs} --trials {trials} --output {output}")
        write_json(output, {"corpus": corpus, "model": str(model.resolve()), "docs": docs, "trials": trials,
                            "threads": 1, "command": command, "scores_key": scores_key,
                            "threshold": float(found[0]), "score": float(found[1]),
                            "cpu_seconds": {"find_threshold": round(find_seconds, 2), "scan": round(scan_seconds, 2)}})


@app.command("train-memory")
def train_memory(
    # fmt: off
    corpus: str = Arg(..., help="The corpus' name, as compare.py wrote it"),
    corpus_dir: Path = Arg(..., help="compare's corpus folder: train.spacy and dev.spacy"),
    configs: List[str] = Arg(..., help="Runs as ENCODER/HEAD/BUDGET (global_pointer/spancat/steps4000)"),
    training_dir: Path = Opt(Path("training/compare"), "--training-dir", help="compare.py's training folder"),
    seed: int = Opt(0, "--seed", help="The seed of every training (the batches' order)"),
    updates: int = Opt(40, "--updates", help="Updates per pipeline"),
    # fmt: on
):
    """Peak resident memory of `spacy train` for each config as compare.py
    composed it (any seed's folder: the composed configs differ in no setting
    that trains), each in a fresh process on the same corpus, seed and number
    of updates, so on the same batches (the dev set cut to 100 docs)."""
    import tempfile

    from compare import train_and_measure

    for config in configs:
        composed = next(iter(sorted((training_dir / corpus / config).glob("seed*/config.cfg"))), None)
        if composed is None:
            raise SystemExit(f"No config compare composed in {training_dir / corpus / config}: run compare first")
        with tempfile.TemporaryDirectory() as output:
            command = [sys.executable, "-m", "spacy", "train", str(composed), "--output", output,
                       "--code", str(Path(__file__).resolve()), "--paths.train", str(corpus_dir / "train.spacy"),
                       "--paths.dev", str(corpus_dir / "dev.spacy"), "--corpora.dev.limit", "100",
                       "--training.logger.path", str(Path(output) / "stats.json"),
                       "--system.seed", str(seed), *budget_overrides(composed, updates)]
            peak = train_and_measure(command, thread_env(1, offline=True))
        print(f"{config}: peak RSS {peak:,.0f} MiB over {updates} updates")


if __name__ == "__main__":
    app()
