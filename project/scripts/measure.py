"""Everything the benchmark times: training updates, prediction throughput,
the head's share of it, and memory against document length.

    python scripts/measure.py speed MODELS_DIR DEV_SPACY OUTPUT_JSON [--heads all]
    python scripts/measure.py length MODELS_DIR DEV_SPACY OUTPUT_JSON [--lengths 100,1000]
    python scripts/measure.py probe MODEL DEV_SPACY (--docs N | --length L)
    python scripts/measure.py head-cost PIPELINE_DIR DEV_SPACY [--docs 800]   # and where it goes
    python scripts/measure.py train-speed TRAIN_SPACY CONFIG [CONFIG ...]
    python scripts/measure.py predict-speed TRAIN_SPACY DEV_SPACY CONFIG [CONFIG ...]

`speed` and `length` run each measurement as `probe` in a fresh process with
fixed threads, a time limit and an address-space limit, so one head's runaway
cost is a figure, not a crash of the benchmark. The file is also the `--code`
of the benchmark's `spacy train` (train.py): importing it registers the step
timer and the timing logger, and fixes torch's threads from BENCH_THREADS.
"""
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

import typer
from spacy.util import registry

import spacy_globalner  # noqa: F401 (registers the components)

# `spacy train --code` imports this file by its path, without its folder on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Arg, Opt, read_json, set_threads, thread_env, trained_heads, write_json  # noqa: E402

if "BENCH_THREADS" in os.environ:  # a timed child process (train.py, probes)
    set_threads(int(os.environ["BENCH_THREADS"]))

MEMORY_LIMIT_BYTES = int(os.environ.get("BENCH_MEMORY_LIMIT_GB", "10")) * 2**30

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)


# Training: `spacy train --code scripts/measure.py` (train.py)

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
    save_dir: Optional[Path] = Opt(None, "--save-dir", help="Save each pipeline here (for `probe --length`)"),
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
        if save_dir is not None:
            save_dir.mkdir(parents=True, exist_ok=True)
            nlp.to_disk(save_dir / config_path.stem)
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
        models = {name: str((training_dir / corpus / name / f"seed{seed}" / "model-last").resolve())
                  for name, _ in pipelines}
        write_json(output, {"corpus": corpus, "seed": seed, "docs": len(words), "words": n_words,
                            "repeats": repeats, "threads": 1, "command": command, "models": models,
                            "pipelines": measured})


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
    from train_budget import budget_overrides

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
            peak = train_and_measure(command, thread_env(1))
        print(f"{config}: peak RSS {peak:,.0f} MiB over {updates} updates")


# Prediction: one measurement per fresh process (`probe`), run by `speed` and `length`


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@app.command("probe")
def probe_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline path"),
    dev: Path = Arg(..., help="A .spacy corpus whose sentences are the input"),
    mode: str = Opt("full", "--mode", help="full, encoder (the encoder component only) or both (alternating)"),
    docs: int = Opt(0, "--docs", help="Throughput on the first N dev sentences, as one nlp.pipe batch"),
    length: int = Opt(0, "--length", help="One doc of L tokens made of dev sentences one after another"),
    repeats: int = Opt(3, "--repeats", help="Runs; the best (least disturbed) counts"),
    batch_size: int = Opt(64, "--batch-size", help="nlp.pipe batch size"),
    threads: int = Opt(1, "--threads", help="torch threads"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU (-1: CPU)"),
    # fmt: on
):
    """One prediction measurement; prints one JSON line. Tokenization is done
    beforehand, so it is not timed. --mode both alternates whole-pipeline and
    encoder-only runs in one process, so both see the same load and full minus
    encoder is the head's own cost. Peak memory: growth of the process's peak
    RSS over its peak after loading and a warm-up on one short doc; on GPU
    also torch's peak allocation."""
    if mode not in ("full", "encoder", "both"):
        raise SystemExit(f"Unknown mode {mode!r}; choose full, encoder or both")
    set_threads(threads)
    import spacy
    import torch
    from spacy.tokens import Doc, DocBin

    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    nlp = spacy.load(model)
    encoder = nlp.pipe_names[0]
    references = list(DocBin().from_disk(dev).get_docs(nlp.vocab))
    words = [[t.text for t in doc] for doc in references]
    spaces = [[bool(t.whitespace_) for t in doc] for doc in references]

    def make_docs():
        if length:
            flat_words, flat_spaces = [], []
            while len(flat_words) < length:
                for w, s in zip(words, spaces):
                    flat_words.extend(w)
                    flat_spaces.extend(s[:-1] + [True])
                    if len(flat_words) >= length:
                        break
            return [Doc(nlp.vocab, words=flat_words[:length], spaces=flat_spaces[:length])]
        return [Doc(nlp.vocab, words=w, spaces=s) for w, s in zip(words[:docs], spaces[:docs])]

    def run(batch, run_mode=mode):
        if run_mode == "encoder":
            with nlp.select_pipes(enable=[encoder]):
                return list(nlp.pipe(batch, batch_size=batch_size))
        return list(nlp.pipe(batch, batch_size=batch_size))

    run([Doc(nlp.vocab, words=words[0][:10])])  # lazy initialisation out of the figures
    base_rss = peak_rss_mb()
    if gpu_id >= 0:
        torch.cuda.reset_peak_memory_stats()
    times = []
    encoder_times = []
    n_tokens = 0
    for _ in range(1 if length >= 5000 else repeats):
        batch = make_docs()
        n_tokens = sum(len(doc) for doc in batch)
        start = time.perf_counter()
        run(batch, "encoder" if mode == "encoder" else "full")
        times.append(time.perf_counter() - start)
        if mode == "both":
            batch = make_docs()
            start = time.perf_counter()
            run(batch, "encoder")
            encoder_times.append(time.perf_counter() - start)
    result = {
        "mode": mode,
        "encoder": encoder,
        "pipeline": nlp.pipe_names,
        "n_docs": len(make_docs()),
        "n_tokens": n_tokens,
        "seconds": round(min(times), 4),
        "seconds_all": [round(t, 4) for t in times],
        "words_per_second": round(n_tokens / min(times), 1),
        "base_peak_rss_mb": round(base_rss, 1),
        "peak_rss_growth_mb": round(peak_rss_mb() - base_rss, 1),
        "threads": torch.get_num_threads(),
    }
    if encoder_times:
        result["encoder_seconds"] = round(min(encoder_times), 4)
        result["encoder_seconds_all"] = [round(t, 4) for t in encoder_times]
        result["encoder_words_per_second"] = round(n_tokens / min(encoder_times), 1)
    if gpu_id >= 0:
        result["gpu_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    sys.stdout.write(json.dumps(result) + "\n")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def probe(args: List[str], threads: int, timeout: int, gpu: bool = False) -> Dict:
    """`probe` ARGS in a fresh process; its JSON, or {"error": ...}."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "probe", *args, "--threads", str(threads)]
    try:
        done = subprocess.run(
            cmd, env=thread_env(threads), capture_output=True, text=True, timeout=timeout,
            preexec_fn=None if gpu else _limit_memory,  # CUDA reserves huge address space
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


@app.command("speed")
def speed(
    # fmt: off
    models_dir: Path = Arg(..., help="MODELS_DIR/HEAD/model-last per head, from train.py"),
    dev: Path = Arg(..., help="The dev .spacy corpus"),
    output: Path = Arg(..., help="JSON file; each head's entry is replaced"),
    heads: str = Opt("all", "--heads", help="all, or head names separated by commas"),
    docs: int = Opt(500, "--docs", help="Dev sentences per batch"),
    threads: int = Opt(1, "--threads", help="torch/BLAS threads"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU (-1: CPU)"),
    repeats: int = Opt(5, "--repeats", help="Runs of each; the best counts"),
    timeout: int = Opt(600, "--timeout", help="Seconds per head"),
    # fmt: on
):
    """Prediction throughput and peak memory of every head, with and without
    it: one fresh process per head alternates whole-pipeline and encoder-only
    runs; head_overhead is (full - encoder) / encoder prediction time."""
    results = read_json(output)
    for head, model in trained_heads(models_dir, heads):
        full = probe(
            [str(model), str(dev), "--mode", "both", "--docs", str(docs),
             "--repeats", str(repeats), "--gpu-id", str(gpu_id)],
            threads, timeout, gpu=gpu_id >= 0,
        )
        entry = {"full": full, "encoder": {}}
        if "encoder_seconds" in full:
            entry["encoder"] = {
                "seconds": full["encoder_seconds"],
                "seconds_all": full["encoder_seconds_all"],
                "words_per_second": full["encoder_words_per_second"],
            }
        if "seconds" in entry["full"] and "seconds" in entry["encoder"]:
            encoder = entry["encoder"]["seconds"]
            entry["head_overhead"] = round((entry["full"]["seconds"] - encoder) / encoder, 4)
        results[head] = entry
        print(f"{head}: {entry.get('full', {}).get('words_per_second')} words/s, "
              f"head adds {entry.get('head_overhead')}")
    write_json(output, results)


def exponent(points: List[Dict], key: str) -> Optional[float]:
    """Slope of log(key) against log(length) between the two longest lengths
    measured: about 1 for linear growth, 2 for quadratic."""
    usable = [(p["n_tokens"], p[key]) for p in points if "error" not in p and p.get(key, 0) > 0]
    if len(usable) < 2:
        return None
    (l1, v1), (l2, v2) = usable[-2], usable[-1]
    return round(math.log(v2 / v1) / math.log(l2 / l1), 3)


@app.command("length")
def length_scaling(
    # fmt: off
    models_dir: Path = Arg(..., help="MODELS_DIR/HEAD/model-last per head, from train.py"),
    dev: Path = Arg(..., help="The dev .spacy corpus"),
    output: Path = Arg(..., help="JSON file; each head's entry is replaced"),
    heads: str = Opt("all", "--heads", help="all, or head names separated by commas"),
    lengths: str = Opt("100,1000,5000,20000", "--lengths", help="Doc lengths in tokens, separated by commas"),
    threads: int = Opt(1, "--threads", help="torch/BLAS threads"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU (-1: CPU)"),
    timeout: int = Opt(300, "--timeout", help="Seconds per head and length"),
    # fmt: on
):
    """Prediction time and peak memory against document length: one fresh
    process per head and length, predicting one doc of that many tokens."""
    sizes = [int(n) for n in lengths.split(",")]
    results = read_json(output)
    for head, model in trained_heads(models_dir, heads):
        points = []
        for size in sizes:
            point = probe(
                [str(model), str(dev), "--length", str(size), "--gpu-id", str(gpu_id)],
                threads, timeout, gpu=gpu_id >= 0,
            )
            point.setdefault("n_tokens", size)
            points.append(point)
            print(f"{head} {size}: {point.get('seconds', point.get('error'))} s, "
                  f"+{point.get('peak_rss_growth_mb')} MB")
            if "error" in point:
                break  # longer docs would fail the same way
        results[head] = {
            "points": points,
            "memory_exponent": exponent(points, "peak_rss_growth_mb"),
            "time_exponent": exponent(points, "seconds"),
        }
    write_json(output, results)


@app.command("head-cost")
def head_cost(
    # fmt: off
    pipeline: str = Arg(..., help="A trained pipeline with a tok2vec"),
    dev: Path = Arg(..., help="A .spacy corpus whose texts are the input"),
    docs: int = Opt(800, "--docs", help="Dev texts"),
    repeats: int = Opt(5, "--repeats", help="Runs of each; the best counts"),
    # fmt: on
):
    """How much a pipeline's heads add to its tok2vec's prediction time, and
    where each head's share goes: its model (`predict`) against decoding and
    writing the spans (`set_annotations`). Best of `repeats` alternating runs
    on one torch thread, batches of 256 docs, timed in the process's CPU
    time; ms per 1,000 docs."""
    import spacy
    from spacy.tokens import DocBin

    set_threads(1)
    nlp = spacy.load(pipeline)
    texts = [doc.text for doc in DocBin().from_disk(dev).get_docs(nlp.vocab)][:docs]
    n_words = sum(len(nlp.make_doc(text)) for text in texts)
    heads = [name for name in nlp.pipe_names if name != "tok2vec"]
    stages = ["tok2vec"] + [f"{name}/{stage}" for name in heads for stage in ("predict", "set_annotations")]
    best = {stage: float("inf") for stage in stages}
    for _ in range(repeats):
        batch = [nlp.make_doc(text) for text in texts]
        spent = {stage: 0.0 for stage in stages}
        for lo in range(0, len(batch), 256):
            docs_in = batch[lo : lo + 256]
            start = time.process_time()
            for _ in nlp.get_pipe("tok2vec").pipe(docs_in, batch_size=256):
                pass
            spent["tok2vec"] += time.process_time() - start
            for name in heads:
                pipe = nlp.get_pipe(name)
                start = time.process_time()
                scores = pipe.predict(docs_in)
                middle = time.process_time()
                pipe.set_annotations(docs_in, scores)
                spent[f"{name}/predict"] += middle - start
                spent[f"{name}/set_annotations"] += time.process_time() - middle
        for stage, seconds in spent.items():
            best[stage] = min(best[stage], seconds)
    encoder = best["tok2vec"]
    full = sum(best.values())
    per_1000 = 1000 * 1000 / len(texts)
    print(f"encoder {n_words / encoder:.0f} words/s, full {n_words / full:.0f} words/s, "
          f"heads add {100 * (full - encoder) / encoder:.1f}%")
    for stage in stages:
        print(f"{stage}: {best[stage] * per_1000:.1f} ms per 1,000 docs "
              f"({100 * best[stage] / encoder:.1f}% of the encoder's time)")


if __name__ == "__main__":
    app()
