"""GermEval 2014 slices for the learning tests.

python -m tests.helpers.germeval OUTPUT.jsonl [SEEDS]

writes each flat arm's dev ents F after every epoch (two seeds by default),
the curves the learning tests' F1 floors and N_EPOCHS are chosen from
(project/benchmarks/learning_floors.jsonl, run from the repository root).
"""
import json
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc
from spacy.training import Example, biluo_tags_to_spans, iob_to_biluo
from thinc.api import fix_random_seed

from tests.helpers import SHARED_DATA
from tests.helpers.trained_pipelines import one_torch_thread


def read_outer_level(path, vocab, limit):
    """Docs with the outer-level entities of a germ.*.iob2 file in doc.ents."""
    docs, words, tags = [], [], []
    with open(path, encoding="utf8") as file_:
        for line in file_:
            columns = line.rstrip("\n").split("\t")
            if len(columns) >= 2:
                words.append(columns[0])
                tags.append(columns[1])
                continue
            if words:
                doc = Doc(vocab, words=words)
                doc.ents = biluo_tags_to_spans(doc, iob_to_biluo(tags))
                docs.append(doc)
                words, tags = [], []
            if len(docs) == limit:
                break
    return docs


# The floors the learning tests assert sit well below what seeds 0 and 1
# reach after N_EPOCHS (this module's main writes the curves).
N_TRAIN, N_DEV, N_EPOCHS, BATCH = 2000, 500, 4, 32
# The flat arms the learning tests train: factory and settings.
ARMS = {
    "lcrf_ner": ("lcrf_ner", {}),
    "cse_ner": ("cse_ner", {}),
    "softmax": ("lcrf_ner", {"entity_fix": "paper", "model": {"transitions": "none"}}),
    "bioes": ("lcrf_ner", {"model": {"tag_scheme": "bioes"}}),
}


def learn_outer_level(folder, factory, config=None, seed=0, epochs=N_EPOCHS, after_epoch=None):
    """Train `factory` on the first N_TRAIN sentences of GermEval's outer
    level for `epochs`, on one torch thread as the other learning tests, and
    return the pipeline and its dev scores (first N_DEV sentences).
    `after_epoch(epoch, scores)`, where given, sees dev scores after each.
    """
    with one_torch_thread():
        fix_random_seed(seed)
        nlp = spacy.blank("de")
        nlp.add_pipe(factory, config=config or {})
        train = [Example(nlp.make_doc(doc.text), doc)
                 for doc in read_outer_level(folder / "germ.train.iob2", nlp.vocab, N_TRAIN)]
        dev = [Example(nlp.make_doc(doc.text), doc)
               for doc in read_outer_level(folder / "germ.dev.iob2", nlp.vocab, N_DEV)]
        optimizer = nlp.initialize(lambda: train)
        for epoch in range(1, epochs + 1):
            for start in range(0, len(train), BATCH):
                nlp.update(train[start : start + BATCH], sgd=optimizer, drop=0.1)
            if after_epoch is not None:
                after_epoch(epoch, nlp.evaluate(dev))
        return nlp, nlp.evaluate(dev)


def write_curves(output: Path, seeds=(0, 1), epochs: int = 6) -> None:
    folder = SHARED_DATA / "germeval2014"
    with output.open("w", encoding="utf8") as file_:
        for arm, (factory, config) in ARMS.items():
            for seed in seeds:
                def write(epoch, scores, arm=arm, seed=seed):
                    row = {"arm": arm, "seed": seed, "epoch": epoch, "ents_f": round(scores["ents_f"], 4)}
                    file_.write(json.dumps(row) + "\n")
                    print(json.dumps(row), flush=True)

                learn_outer_level(folder, factory, config, seed=seed, epochs=epochs, after_epoch=write)


if __name__ == "__main__":
    write_curves(Path(sys.argv[1]), tuple(int(s) for s in sys.argv[2].split(",")) if len(sys.argv) > 2 else (0, 1))
