"""Side by side in one process: spaCy's padded BiLSTM encoder against this
package's batch-independent one (same settings, same weights), on the token counts of GENIA sentences
(random vectors: the encoders' cost does not depend on their values).

Prints, for each encoder, tokens/s of prediction and of training
(forward + backward), alternating the two encoders pass by pass so both see
the same machine state, and how far a doc's vectors move between being
encoded alone and in a batch of 64.

    python project/probes/encoder_speed.py project/assets/genia/train.jsonl --passes 5
"""
import json
import time
from pathlib import Path

import numpy
import torch
import typer
from spacy.util import registry


def main(
    jsonl: Path,
    passes: int = typer.Option(5, help="Alternating passes per encoder"),
    batch_size: int = typer.Option(256, help="Docs per batch, as nlp.pipe's batch_size"),
    width: int = typer.Option(96, help="Encoder width (the shipped configs' 96)"),
):
    torch.set_num_threads(1)
    registry.ensure_populated()
    lines = jsonl.read_text(encoding="utf8").splitlines()
    lengths = [len(json.loads(line)["tokens"]) for line in lines if line.strip()]
    rng = numpy.random.default_rng(0)
    vectors = [rng.normal(size=(length, width)).astype("float32") for length in lengths]
    n_tokens = sum(lengths)
    # Same weights in both: each builds one torch.nn.LSTM of the same shape
    # when it is made, the first draw from torch's generator after the seed.
    torch.manual_seed(0)
    padded = registry.architectures.get("spacy.TorchBiLSTMEncoder.v1")(width=width, depth=1, dropout=0.0)
    torch.manual_seed(0)
    ours = registry.architectures.get("spacy-globalner.BiLSTMEncoder.v1")(width=width, depth=1, dropout=0.0)
    padded.initialize(X=vectors[:4])
    ours.initialize(X=vectors[:4])
    # A doc alone gets the same vectors from both (docs/shipping.md): the check that the weights are shared.
    gap = float(numpy.abs(padded.predict(vectors[:1])[0] - ours.predict(vectors[:1])[0]).max())
    if gap > 1e-5:
        raise SystemExit(f"The two encoders differ by {gap:.2e} on a doc alone: their weights are not the same")
    batches = [vectors[i : i + batch_size] for i in range(0, len(vectors), batch_size)]
    encoders = {"spacy.TorchBiLSTMEncoder.v1": padded, "spacy-globalner.BiLSTMEncoder.v1": ours}
    timings = {name: [[], []] for name in encoders}
    for _ in range(passes):
        for name, encoder in encoders.items():
            start = time.perf_counter()
            for batch in batches:
                encoder.predict(batch)
            timings[name][0].append(n_tokens / (time.perf_counter() - start))
            start = time.perf_counter()
            for batch in batches:
                outputs, backprop = encoder.begin_update(batch)
                backprop([numpy.ones_like(output) for output in outputs])
            timings[name][1].append(n_tokens / (time.perf_counter() - start))
    print(f"{len(lengths)} docs, {n_tokens} tokens, batches of {batch_size}, one torch thread, {passes} passes")
    for name, (predict, train) in timings.items():
        print(f"{name:42s} predict {min(predict):9,.0f}-{max(predict):9,.0f} tokens/s"
              f"   train {min(train):9,.0f}-{max(train):9,.0f} tokens/s")
    batch = vectors[:64]
    for name, encoder in encoders.items():
        together = encoder.predict(batch)
        alone = [encoder.predict([vector])[0] for vector in batch]
        gap = max(float(numpy.abs(a - b).max()) for a, b in zip(alone, together))
        print(f"{name:42s} largest change of a vector, alone vs in a batch of 64: {gap:.2e}")


if __name__ == "__main__":
    typer.run(main)
