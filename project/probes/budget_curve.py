"""Dev F against the training budget on the bundled GENIA slice: the smallest
`--training.max_steps` that learns.

    python project/probes/budget_curve.py OUTPUT.json [--config global_pointer]
        [--budgets 50,100,200,400,800] [--seed 0]

Trains the config once per budget, each run with its own schedule (the
learning rate decays to 0 at its own last update, as `--training.max_steps N`
gives it), on project/assets/genia's train slice (1,500 sentences), and scores
all spans on its dev slice (300 sentences) at the end: spaCy's training loop,
through `spacy globalner tune`'s trial runner, one torch thread.
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import spacy
import torch
import typer
from spacy.tokens import DocBin
from spacy.util import load_config

from spacy_globalner.corpora import read_nested_jsonl
from spacy_globalner.tuning import train_trial

ROOT = Path(__file__).resolve().parents[2]
GENIA = ROOT / "project" / "assets" / "genia"


def write_corpus(folder: Path) -> None:
    vocab = spacy.blank("en").vocab
    for split in ("train", "dev"):
        docs = list(read_nested_jsonl(GENIA / f"{split}.jsonl", vocab))
        DocBin(docs=docs, store_user_data=True).to_disk(folder / f"{split}.spacy")


def main(output: Path, config: str = "global_pointer", budgets: str = "50,100,200,400,800", seed: int = 0):
    torch.set_num_threads(1)
    steps = [int(step) for step in budgets.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_corpus(folder)
        for max_steps in steps:
            overrides = {"paths.train": str(folder / "train.spacy"), "paths.dev": str(folder / "dev.spacy"),
                         "training.max_steps": max_steps, "system.seed": seed}
            cfg = load_config(ROOT / "configs" / f"{config}.cfg", overrides=overrides, interpolate=False)
            start = time.perf_counter()
            score, scores = train_trial(cfg, evals=1, metric="spans_sc_f")
            rows.append({"max_steps": max_steps, "spans_sc_f": score, "spans_sc_p": scores.get("spans_sc_p"),
                         "spans_sc_r": scores.get("spans_sc_r"), "seconds": round(time.perf_counter() - start, 1)})
            print(rows[-1], flush=True)
    record = {"config": f"configs/{config}.cfg", "train": "project/assets/genia/train.jsonl (1,500 sentences)",
              "dev": "project/assets/genia/dev.jsonl (300 sentences)", "seed": seed, "threads": 1,
              "command": f"python project/probes/budget_curve.py {output} --config {config} --budgets {budgets} "
                         f"--seed {seed}", "runs": rows}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(typer.run(main))
