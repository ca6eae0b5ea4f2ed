"""Code for `spacy train --code scripts/bench_code.py` in the benchmark.

Importing spacy_globalner registers every component, whatever setup.cfg's entry
points list yet. A step timer (training.before_update) and a logger time each
update, so training throughput leaves out the evaluations spaCy runs at step 0
and at the last step; threads are fixed so heads compare on equal terms.
"""
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

import spacy_globalner  # noqa: F401 (registers the components)
import torch
from spacy.util import registry

THREADS = int(os.environ.get("BENCH_THREADS", "1"))
torch.set_num_threads(THREADS)

_step_starts: Dict[int, float] = {}


@registry.callbacks("benchmark.step_timer.v1")
def make_step_timer() -> Callable[[Any, Dict[str, Any]], None]:
    def before_update(nlp, args: Dict[str, Any]) -> None:
        _step_starts[args["step"]] = time.perf_counter()

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
            finalize_console()
            seconds = training_seconds(_step_starts, ends, eval_steps)
            words = int(last.get("words", 0))
            stats = {
                "steps": step["n"] + 1,
                "words": words,
                "train_seconds": round(seconds, 3),
                "train_words_per_second": round(words / seconds, 1) if seconds else None,
                "final_dev_score": last.get("score"),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "torch_threads": torch.get_num_threads(),
            }
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(json.dumps(stats, indent=2))

        return log_step, finalize

    return setup
