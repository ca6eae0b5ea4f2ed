"""Gather one benchmark run's figures, and the machine they ran on, into the
benchmark's single JSON file.

python scripts/collect_results.py CORPUS ENCODER STATS_JSON MODELS_DIR METRICS_DIR RESULTS_JSON
    [--threads 1] [--command "..."]

RESULTS_JSON keeps every corpus and encoder run so far; this run's entry
(results["runs"][CORPUS][ENCODER]) is replaced.
"""
import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Dict

LOAD_CAVEAT = (
    "Timings come from a shared machine; other processes' load (recorded as the "
    "load average) inflates and scatters them. Each prediction time is the best of "
    "3 runs to damp that; training times are single runs."
)


def read_json(path: Path) -> Dict:
    return json.loads(path.read_text()) if path.exists() else {}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return 0.0


def machine(threads: int) -> Dict:
    import spacy
    import thinc
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_gb": memory_gb(),
        "gpu": gpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {"spacy": spacy.__version__, "thinc": thinc.__version__, "torch": torch.__version__},
        "threads": {"torch": threads, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads},
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "load_caveat": LOAD_CAVEAT,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus")
    parser.add_argument("encoder")
    parser.add_argument("stats", type=Path)
    parser.add_argument("models_dir", type=Path)
    parser.add_argument("metrics_dir", type=Path)
    parser.add_argument("results", type=Path)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--command", default="")
    args = parser.parse_args()
    stats = read_json(args.stats)
    accuracy = read_json(args.metrics_dir / "accuracy.json")
    speed = read_json(args.metrics_dir / "speed.json")
    length = read_json(args.metrics_dir / "length.json")
    heads = {}
    for head in sorted(set(accuracy) | set(speed) | set(length)):
        heads[head] = {
            "train": read_json(args.models_dir / head / "train_stats.json"),
            "accuracy": accuracy.get(head),
            "prediction": speed.get(head),
            "length_scaling": length.get(head),
        }
    run = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": args.command,
        "machine": machine(args.threads),
        "corpus": {key: stats.get(key) for key in ("lang", "nested", "train_limit", "steps")},
        "corpus_stats": {split: {k: v for k, v in stats.get(split, {}).items() if k != "labels"}
                         for split in ("train", "dev")},
        "heads": heads,
    }
    results = read_json(args.results) or {"runs": {}}
    results["runs"].setdefault(args.corpus, {})[args.encoder] = run
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(results, indent=2))
    print(f"{args.results}: {args.corpus}/{args.encoder} with {len(heads)} heads")


if __name__ == "__main__":
    main()
