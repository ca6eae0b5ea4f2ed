"""Training words/s of configs side by side, on the same examples, one torch thread.

python scripts/train_speed.py TRAIN.spacy ../configs/global_pointer.cfg ../configs/lcrf_ner.cfg

5 warm-up updates, then 30 timed updates of 40 docs each.
"""
import argparse
import time

import torch
from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import load_config, load_model_from_config
from thinc.api import fix_random_seed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("train")
    parser.add_argument("configs", nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    for config_path in args.configs:
        fix_random_seed(0)
        nlp = load_model_from_config(load_config(config_path), auto_fill=True)
        docs = list(DocBin().from_disk(args.train).get_docs(nlp.vocab))[:1400]
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
        optimizer = nlp.initialize(lambda: examples[:400])
        batches = [examples[i : i + 40] for i in range(0, len(examples), 40)]
        for batch in batches[:5]:
            nlp.update(batch, sgd=optimizer)
        start = time.perf_counter()
        for batch in batches[5:35]:
            nlp.update(batch, sgd=optimizer)
        seconds = time.perf_counter() - start
        words = sum(len(eg.x) for batch in batches[5:35] for eg in batch)
        print(f"{config_path}: {words / seconds:.0f} words/s ({seconds:.1f} s, {words} words)")


if __name__ == "__main__":
    main()
