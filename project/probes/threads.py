"""Wall time of prediction and training with torch's default threads against
one thread, on a quiet machine and under load, each in a fresh process.

The load is this script's own: one busy-looping process per core, started
before and stopped after each measurement, so "loaded" means the same thing
on every machine; "quiet" adds none (the load average before each run is
printed, to show what else the machine was doing). Prediction is `nlp.pipe` over the dev docs' texts (batch
256, as spaCy's default); training is `spacy train` for a few updates.

    python project/probes/threads.py MODEL DEV_SPACY CONFIG TRAIN_SPACY [--steps 60] [--repeats 3]
"""
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import typer

PREDICT = """
import sys, time, spacy
from spacy.tokens import DocBin
nlp = spacy.load(sys.argv[1])
texts = [doc.text for doc in DocBin().from_disk(sys.argv[2]).get_docs(nlp.vocab)]
list(nlp.pipe(texts[:20]))
start = time.perf_counter()
list(nlp.pipe(texts, batch_size=256))
print(time.perf_counter() - start)
"""


def busy() -> None:
    while True:
        pass


def env(threads: int) -> dict:
    names = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
    base = {k: v for k, v in os.environ.items() if k not in names}
    return base if threads == 0 else {**base, **{name: str(threads) for name in names}}


def timed(args, threads: int) -> float:
    if args[0] == "predict":
        out = subprocess.run([sys.executable, "-c", PREDICT, *args[1:]], env=env(threads),
                             capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spacy", "train", *args[1:]], env=env(threads),
                   capture_output=True, text=True, check=True)
    return time.perf_counter() - start


def main(
    model: Path,
    dev_path: Path,
    config: Path,
    train_path: Path,
    steps: int = typer.Option(60, help="Training updates per run"),
    repeats: int = typer.Option(3, help="Runs per setting; all are printed"),
    output: Path = typer.Option(None, help="Also write the figures to this JSON file"),
    loads: str = typer.Option("quiet,loaded", help="Which conditions to run: quiet (no load of ours), loaded"),
    jobs_to_run: str = typer.Option("predict,train", "--jobs", help="Which jobs to time"),
):
    jobs = {
        "predict": ["predict", str(model), str(dev_path)],
        "train": ["train", str(config), "--paths.train", str(train_path), "--paths.dev", str(dev_path),
                  "--training.max_steps", str(steps), "--training.optimizer.learn_rate.total_steps", str(steps),
                  "--training.optimizer.learn_rate.warmup_steps", str(max(1, steps // 10)),
                  "--training.eval_frequency", str(steps * 10)],
    }
    results = {}
    for load in loads.split(","):
        workers = []
        if load == "loaded":
            workers = [multiprocessing.Process(target=busy, daemon=True) for _ in range(os.cpu_count() or 1)]
            for worker in workers:
                worker.start()
        try:
            for job, args in ((job, jobs[job]) for job in jobs_to_run.split(",")):
                for threads in (0, 1):
                    label = f"{job}, {load}, {'default threads' if threads == 0 else 'one thread'}"
                    before = os.getloadavg()
                    seconds = [timed(args, threads) for _ in range(repeats)]
                    results[label] = {"seconds": seconds, "load_average_before": list(before)}
                    print(f"{label:40s} " + " ".join(f"{s:7.2f}" for s in seconds)
                          + f" s (load average before: {before[0]:.1f})", flush=True)
        finally:
            for worker in workers:
                worker.terminate()
    if output is not None:
        figures = {"command": " ".join(sys.argv), "cpu_count": os.cpu_count(), "seconds": results}
        output.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    typer.run(main)
