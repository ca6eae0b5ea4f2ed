"""Train every head's composed config with `spacy train`, one after another.

python scripts/train.py CONFIG_DIR CORPUS_DIR OUTPUT_DIR [--heads all]
    [--gpu-id -1] [--threads 1]

Each head trains in its own process with the same thread settings; its timing
logger (measure.py, passed as `--code`) writes OUTPUT_DIR/HEAD/train_stats.json,
to which the wall time of the whole `spacy train` run (initialization and the
two evaluations included) is added.
"""
import json
import subprocess
import sys
import time
from pathlib import Path

import typer

from common import Arg, Opt, parse_heads, thread_env

CODE = Path(__file__).parent / "measure.py"


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


def main(
    # fmt: off
    config_dir: Path = Arg(..., help="HEAD.cfg per head, from configs.py"),
    corpus_dir: Path = Arg(..., help="train.spacy and dev.spacy, from corpus.py"),
    output_dir: Path = Arg(..., help="OUTPUT_DIR/HEAD gets each head's model-best, model-last and train_stats.json"),
    heads: str = Opt("all", "--heads", help="all, or head names separated by commas"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU to train on (-1: CPU)"),
    threads: int = Opt(1, "--threads", help="torch/BLAS threads of each training process"),
    # fmt: on
):
    for head in parse_heads(heads):
        config = config_dir / f"{head}.cfg"
        if not config.exists():
            print(f"skipping {head}: no config {config}")
            continue
        stats = train(config, corpus_dir, output_dir / head, gpu_id, threads)
        print(f"{head}: {stats}")


if __name__ == "__main__":
    typer.run(main)
