"""Train every head's composed config with `spacy train`, one after another.

python scripts/train_heads.py CONFIG_DIR CORPUS_DIR OUTPUT_DIR [--heads all]
    [--gpu-id -1] [--threads 1]

Each head trains in its own process with the same thread settings; its timing
logger (bench_code.py) writes OUTPUT_DIR/HEAD/train_stats.json, to which the
wall time of the whole `spacy train` run (initialization and the two
evaluations included) is added.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmark_corpora import parse_heads

CODE = Path(__file__).parent / "bench_code.py"


def thread_env(threads: int) -> dict:
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    env["BENCH_THREADS"] = str(threads)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def train(config: Path, corpus_dir: Path, output: Path, gpu_id: int, threads: int) -> dict:
    stats_path = output / "train_stats.json"
    cmd = [
        sys.executable, "-m", "spacy", "train", str(config), "--output", str(output),
        "--code", str(CODE), "--gpu-id", str(gpu_id),
        "--paths.train", str(corpus_dir / "train.spacy"),
        "--paths.dev", str(corpus_dir / "dev.spacy"),
        "--training.logger.path", str(stats_path),
    ]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=thread_env(threads))
    wall = time.perf_counter() - start
    stats = json.loads(stats_path.read_text())
    stats.update({"wall_seconds": round(wall, 1), "threads": threads, "gpu_id": gpu_id})
    stats_path.write_text(json.dumps(stats, indent=2))
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config_dir", type=Path)
    parser.add_argument("corpus_dir", type=Path)
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--heads", default="all")
    parser.add_argument("--gpu-id", type=int, default=-1)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    for head in parse_heads(args.heads):
        config = args.config_dir / f"{head}.cfg"
        if not config.exists():
            print(f"skipping {head}: no config {config}")
            continue
        stats = train(config, args.corpus_dir, args.output_dir / head, args.gpu_id, args.threads)
        print(f"{head}: {stats}")


if __name__ == "__main__":
    main()
