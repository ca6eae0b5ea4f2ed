"""Dev ents F per epoch of each flat arm in the GermEval learning tests, so
their F1 floors and epoch budget are chosen from measured curves.

python project/probes/learning_floors.py --seeds 0,1 --output project/benchmarks/learning_floors.jsonl

Trains exactly as tests/helpers/germeval.py's learn_outer_level (its slice,
batch and one torch thread), for up to --epochs, scoring dev after each.
"""
import json
import sys
from pathlib import Path

import spacy
import typer
from spacy.training import Example
from thinc.api import fix_random_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.helpers.germeval import BATCH, N_DEV, N_TRAIN, read_outer_level  # noqa: E402
from tests.helpers.trained_pipelines import one_torch_thread  # noqa: E402

ARMS = {
    "lcrf_ner": ("lcrf_ner", {}),
    "cse_ner": ("cse_ner", {}),
    "softmax": ("lcrf_ner", {"entity_fix": "paper", "model": {"transitions": "none"}}),
    "bioes": ("lcrf_ner", {"model": {"tag_scheme": "bioes"}}),
}


def curve(folder: Path, arm: str, seed: int, epochs: int):
    factory, config = ARMS[arm]
    with one_torch_thread():
        fix_random_seed(seed)
        nlp = spacy.blank("de")
        nlp.add_pipe(factory, config=config)
        train = [Example(nlp.make_doc(d.text), d)
                 for d in read_outer_level(folder / "germ.train.iob2", nlp.vocab, N_TRAIN)]
        dev = [Example(nlp.make_doc(d.text), d)
               for d in read_outer_level(folder / "germ.dev.iob2", nlp.vocab, N_DEV)]
        optimizer = nlp.initialize(lambda: train)
        for epoch in range(1, epochs + 1):
            for start in range(0, len(train), BATCH):
                nlp.update(train[start:start + BATCH], sgd=optimizer, drop=0.1)
            yield {"arm": arm, "seed": seed, "epoch": epoch, "ents_f": round(nlp.evaluate(dev)["ents_f"], 4)}


def main(
    data: Path = typer.Option(Path("../shared/data/germeval2014"), help="GermEval 2014's folder"),
    seeds: str = typer.Option("0,1", help="Comma-separated seeds"),
    epochs: int = typer.Option(6, help="Epochs to train, dev scored after each"),
    output: Path = typer.Option(..., help="JSONL: one line per arm, seed and epoch"),
):
    with output.open("w", encoding="utf8") as file_:
        for arm in ARMS:
            for seed in (int(s) for s in seeds.split(",")):
                for row in curve(data, arm, seed, epochs):
                    print(json.dumps(row), flush=True)
                    file_.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    typer.run(main)
