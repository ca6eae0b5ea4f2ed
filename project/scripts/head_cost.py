"""How much a trained pipeline's heads add to its tok2vec's prediction time.

python scripts/head_cost.py PIPELINE_DIR DEV.spacy [--docs 800]

Best of 4 alternating runs on one torch thread, batches of 256 docs.
"""
import argparse
import time

import spacy
import torch
from spacy.tokens import DocBin


def best_time(nlp, texts, names, repeats=4):
    best = float("inf")
    for _ in range(repeats):
        docs = [nlp.make_doc(text) for text in texts]
        start = time.perf_counter()
        for name in names:
            for _ in nlp.get_pipe(name).pipe(docs, batch_size=256):
                pass
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pipeline")
    parser.add_argument("dev")
    parser.add_argument("--docs", type=int, default=800)
    args = parser.parse_args()
    torch.set_num_threads(1)
    nlp = spacy.load(args.pipeline)
    texts = [doc.text for doc in DocBin().from_disk(args.dev).get_docs(nlp.vocab)][: args.docs]
    n_words = sum(len(nlp.make_doc(text)) for text in texts)
    heads = [name for name in nlp.pipe_names if name != "tok2vec"]
    encoder = best_time(nlp, texts, ["tok2vec"])
    full = best_time(nlp, texts, ["tok2vec"] + heads)
    print(f"encoder {n_words / encoder:.0f} words/s, full {n_words / full:.0f} words/s, "
          f"heads add {100 * (full - encoder) / encoder:.1f}%")


if __name__ == "__main__":
    main()
