"""CPU time of the CRENER torch scorer alone, forward+backward and forward,
on GENIA-like chunks: the windows of 10 batches of 40 training docs, chunked
as the head chunks them, random token vectors, one torch thread, best of 5.

    python scripts/scorer_speed.py TRAIN_SPACY ['{"enhancement": "paper", ...}']

The second argument overrides settings of the architecture's defaults (the
shipped configs' predictor_input = "grid+tags" is always set). Run it on two
checkouts (PYTHONPATH=OLD_CHECKOUT) to time a change of the scorer.
"""
import json
import sys
import time

import numpy
import spacy
import torch
from spacy.tokens import DocBin

from spacy_globalner.ml.models.crener import _chunks, crener_settings
from spacy_globalner.ml.torch.crener.scorer import CRENERScorer

N_TAGS = 6  # NNC and one THC per GENIA label


def main(train_path: str, overrides: str = "{}") -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    docs = list(DocBin().from_disk(train_path).get_docs(spacy.blank("en").vocab))[:400]
    scorer = CRENERScorer(N_TAGS, crener_settings(**{"predictor_input": "grid+tags", **json.loads(overrides)}))
    chunks = []
    for first in range(0, len(docs), 40):
        lengths = [len(doc) for doc in docs[first : first + 40]]
        windows = numpy.array([[i, 0, n] for i, n in enumerate(lengths)])
        for chunk in _chunks(windows, 65536):
            chunk_lengths = [lengths[i] for i in chunk]
            chunks.append((torch.randn(len(chunk), max(chunk_lengths), 96), torch.tensor(chunk_lengths)))
    scorer(*chunks[0])  # materialise the lazy input layer

    def run(train: bool) -> float:
        scorer.train(train)
        start = time.process_time()
        for X, lengths in chunks:
            if train:
                scores = scorer(X.requires_grad_(True), lengths)
                scores.backward(torch.ones_like(scores))
            else:
                with torch.no_grad():
                    scorer(X, lengths)
        return time.process_time() - start

    run(True)
    train = min(run(True) for _ in range(5))
    predict = min(run(False) for _ in range(5))
    print(f"{len(chunks)} chunks: forward+backward {train:.3f} s, forward {predict:.3f} s")


if __name__ == "__main__":
    main(*sys.argv[1:])
