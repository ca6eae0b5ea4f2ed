"""Where a transformer config's memory goes: the process's resident memory and
its peak at each stage of training and evaluating, one process, one torch thread.

    python project/probes/trf_memory.py CONFIG TRAIN.spacy DEV.spacy OUTPUT.json
        [--sizes 500,1000,2000] [--updates 20] [--transformer auto]

CONFIG is a package config (configs/global_pointer_trf.cfg) or a config the
`compare` workflow composed (training/compare/.../config.cfg, spaCy's `ner` or
`spancat` on the same transformer). Stages, in order, each with the peak of
that stage alone (Linux's VmHWM, reset between stages through
/proc/self/clear_refs):

- initialize: the pipeline built and initialized on TRAIN (weights, the
  transformer loaded from disk, the labels);
- train at each batcher `size` (padded words per batch, the configs ship
  2000), in ascending order: UPDATES updates with the config's optimizer and
  dropout on batches the config's batcher makes from TRAIN at that size
  (epoch after epoch);
- predict: DEV through nlp.pipe at the config's nlp.batch_size, what spaCy's
  evaluation does at each eval_frequency.

--release-every N hands freed memory back to the system before every N-th
update, as `spacy-globalner.release_memory.v1` in the `_trf` configs'
`[training.before_update]` does in `spacy train`.

Memory a stage frees goes back to the allocator, not always to the system, so
a stage's peak is at least the resident memory it started from (given beside it);
with --release-every, freed memory is released before each stage too.
"""
import json
import re
import sys
import time
from pathlib import Path

import spacy
import torch
import typer
from spacy.training import Corpus
from spacy.training.initialize import init_nlp
from spacy.util import load_config, registry, resolve_dot_names

from spacy_globalner.pipeline.release_memory import release_freed_memory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from common import resolve_transformer  # noqa: E402


def memory_mib() -> dict:
    status = Path("/proc/self/status").read_text()
    field = lambda name: int(re.search(rf"{name}:\s+(\d+)", status).group(1)) // 1024  # noqa: E731
    return {"rss_mib": field("VmRSS"), "peak_mib": field("VmHWM")}


def reset_peak(release: bool = False) -> int:
    if release:
        release_freed_memory()
    Path("/proc/self/clear_refs").write_text("5")
    return memory_mib()["rss_mib"]


def epochs(batcher, train_corpus, nlp):
    """The batcher's batches over TRAIN, epoch after epoch."""
    while True:
        yield from batcher(train_corpus(nlp))


def main(
    config_path: Path = typer.Argument(..., help="A _trf config, or a composed compare config"),
    train_path: Path = typer.Argument(..., help="Training corpus (.spacy)"),
    dev_path: Path = typer.Argument(..., help="Corpus to predict (.spacy)"),
    output: Path = typer.Argument(..., help="Where the JSON goes"),
    sizes: str = typer.Option("500,1000,2000", "--sizes", help="Batcher sizes (padded words), ascending"),
    updates: int = typer.Option(20, "--updates", help="Updates at each size"),
    transformer: str = typer.Option("auto", "--transformer", help="paths.transformer (auto: offline MiniLM)"),
    release_every: int = typer.Option(0, "--release-every", help="Release freed memory before every N-th "
                                      "update, as the configs' [training.before_update] does (0: never)"),
):
    torch.set_num_threads(1)
    overrides = {"paths.train": str(train_path), "paths.dev": str(dev_path),
                 "paths.transformer": resolve_transformer(transformer),
                 "training.logger": {"@loggers": "spacy.ConsoleLogger.v1"},
                 # the probe releases memory itself (--release-every); a composed
                 # config's own timing callback is the benchmark's
                 "training.before_update": None}
    config = load_config(config_path, overrides=overrides, interpolate=False)
    nlp = init_nlp(config)
    stages = [{"stage": "initialize", **memory_mib()}]
    training = registry.resolve(nlp.config.interpolate()["training"])
    train_corpus, = resolve_dot_names(nlp.config.interpolate(), [nlp.config["training"]["train_corpus"]])
    optimizer, dropout = training["optimizer"], training["dropout"]
    batcher_block = dict(nlp.config["training"]["batcher"])
    for size in [int(item) for item in sizes.split(",")]:
        start = reset_peak(release=bool(release_every))
        batcher = registry.resolve({"batcher": {**batcher_block, "size": size}})["batcher"]
        padded, rss_by_update, begun, done = [], [], time.perf_counter(), 0
        for batch in epochs(batcher, train_corpus, nlp):
            if done == updates:
                break
            padded.append(len(batch) * max(len(example.reference) for example in batch))
            if release_every and done % release_every == 0:
                release_freed_memory()
            nlp.update(batch, sgd=optimizer, drop=dropout, losses={})
            rss_by_update.append(memory_mib()["rss_mib"])
            done += 1
        stages.append({"stage": "train", "size": size, "updates": done, "largest_batch_padded_words": max(padded),
                       "seconds_per_update": (time.perf_counter() - begun) / max(done, 1),
                       "rss_at_start_mib": start, "rss_after_each_update_mib": rss_by_update, **memory_mib()})
    start = reset_peak(release=bool(release_every))
    docs = [example.reference.copy() for example in Corpus(str(dev_path))(nlp)]
    words = sum(len(doc) for doc in docs)
    begun = time.perf_counter()
    for _ in nlp.pipe(nlp.make_doc(doc.text) for doc in docs):
        pass
    stages.append({"stage": "predict", "batch_size": nlp.batch_size, "docs": len(docs), "words": words,
                   "seconds": time.perf_counter() - begun, "rss_at_start_mib": start, **memory_mib()})
    record = {"config": str(config_path), "train": str(train_path), "dev": str(dev_path),
              "release_every": release_every,
              "transformer": overrides["paths.transformer"], "torch_threads": torch.get_num_threads(),
              "pipeline": nlp.pipe_names, "spacy": spacy.__version__, "torch": torch.__version__,
              "stages": stages}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(record, indent=2) + "\n", encoding="utf8")
    for stage in stages:
        print(json.dumps(stage))


if __name__ == "__main__":
    typer.run(main)
