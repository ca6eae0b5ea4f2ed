"""Training with and without giving freed memory back to the system after
updates (glibc's malloc_trim), taking turns in one process, one torch thread:
CPU seconds per update and resident memory after each block.

    python project/probes/release_memory_ab.py CONFIG TRAIN.spacy OUTPUT.json
        [--size 1000] [--block 10] [--rounds 3] [--every 1,10]

Each round runs BLOCK updates untrimmed, then BLOCK updates trimmed every N
updates for each N in EVERY, every block on the same BLOCK batches the
config's batcher makes from TRAIN at SIZE padded words. A block's resident memory shows what the run
holds; its CPU time what trimming costs (the pages it gives back are faulted
in again by the next update).
"""
import ctypes
import json
import re
import sys
import time
from pathlib import Path

import torch
import typer
from spacy.training.initialize import init_nlp
from spacy.util import load_config, registry, resolve_dot_names

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from common import resolve_transformer  # noqa: E402

malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim


def rss_mib() -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path("/proc/self/status").read_text()).group(1)) // 1024


def main(
    config_path: Path = typer.Argument(..., help="A _trf config"),
    train_path: Path = typer.Argument(..., help="Training corpus (.spacy)"),
    output: Path = typer.Argument(..., help="Where the JSON goes"),
    size: int = typer.Option(1000, "--size", help="Batcher size (padded words)"),
    block: int = typer.Option(10, "--block", help="Updates per block"),
    rounds: int = typer.Option(3, "--rounds", help="Rounds of all modes"),
    every: str = typer.Option("1,10", "--every", help="Trim every N updates, for each N"),
):
    torch.set_num_threads(1)
    config = load_config(config_path, interpolate=False, overrides={
        "paths.train": str(train_path), "paths.dev": str(train_path),
        "paths.transformer": resolve_transformer("auto"),
        "training.logger": {"@loggers": "spacy.ConsoleLogger.v1"}})
    nlp = init_nlp(config)
    training = registry.resolve(nlp.config.interpolate()["training"])
    train_corpus, = resolve_dot_names(nlp.config.interpolate(), [nlp.config["training"]["train_corpus"]])
    batcher = registry.resolve({"batcher": {**dict(nlp.config["training"]["batcher"]), "size": size}})["batcher"]
    batches = list(batcher(train_corpus(nlp)))[:block]
    modes = [0] + [int(item) for item in every.split(",")]
    blocks = []
    for round_ in range(rounds):
        for trim_every in modes:
            begun = time.process_time()
            for step, batch in enumerate(batches, start=1):
                nlp.update(batch, sgd=training["optimizer"], drop=training["dropout"], losses={})
                if trim_every and step % trim_every == 0:
                    malloc_trim(0)
            blocks.append({"round": round_, "trim_every": trim_every,
                           "cpu_s_per_update": (time.process_time() - begun) / block, "rss_mib": rss_mib()})
            print(json.dumps(blocks[-1]), flush=True)
    summary = {str(mode): {"cpu_s_per_update": sum(b["cpu_s_per_update"] for b in blocks if b["trim_every"] == mode)
                           / rounds,
                           "rss_mib_last": [b["rss_mib"] for b in blocks if b["trim_every"] == mode][-1]}
               for mode in modes}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({"config": str(config_path), "train": str(train_path), "size": size,
                                  "block": block, "rounds": rounds, "torch_threads": torch.get_num_threads(),
                                  "summary": summary, "blocks": blocks}, indent=2) + "\n", encoding="utf8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    typer.run(main)
