"""Would `crener` score the same on a band of its grid if the relation
enhancement read only that band? One process, one thread.

    python project/probes/crener_band_pooling.py OUT.json [--updates 100]
        [--docs ../shared/data/genia/dev.jsonl] [--long-doc 10000]
        [--pool-bands 17 29] [--max-span-width 18]

Banding the grid before the co-predictor (the CLN grid, its MLP and the
dilated convolutions, stored as cells (i, j - i) within the band plus the
convolutions' reach) is exact for every cell it keeps, but the pooled relation
enhancement max-pools the tag-aware features over whole rows and columns. A
banded grid could only pool over the cells it holds. This probe takes
`crener` (configs/crener.cfg) trained `--updates` updates on the bundled GENIA
slice (seed 0, as project/probes/crener_band_speed.py trains it) and predicts
the sentences of `--docs` and one doc of `--long-doc` of their tokens without
sentence boundaries twice: as shipped, and with the enhancement's max-pooling
restricted to the cells within each of `--pool-bands` of the diagonal (a
banded grid's pooling). For each it writes how many pooled values (token x
tag channel, rows and columns, counted in the first round) differ, the
largest difference of a band cell's logit, and the spans found by one and not
the other. It also counts the cells the grid stage runs on as shipped
(padded chunks, `grid_cells`) against those a banded grid would hold
(`grid_cells_within_reach_band`: within max_span_width - 1 plus the
convolutions' reach of the diagonal), the most that banding it could save
even where it were exact.
"""
import argparse
import json
import os
import sys
import warnings
from pathlib import Path

import torch
from crener_band_speed import TRAIN, spans, trained
from spacy.tokens import Doc
from spacy.training import Example

from spacy_globalner.corpora import read_nested_jsonl
from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.torch.crener import relation_enhancement

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from common import code_state, versions  # noqa: E402

SHIPPED = relation_enhancement.RelationEnhancement.biases


class BandPooling:
    """RelationEnhancement.biases with its pooling read from a band only
    (pool_band None: the whole grid), counting the pooled values that
    differ from the whole grid's."""

    def __init__(self, reach_band: int):
        self.pool_band = None
        self.differing = 0
        self.pooled = 0
        self.reach_band = reach_band
        self.cells = 0
        self.reach_cells = 0

    def __call__(self, module, grid, tokens, cell_mask, token_mask, rows=None, columns=None, tags=None):
        if self.pool_band is None:
            batch, n = token_mask.shape
            self.cells += batch * n * n
            self.reach_cells += batch * n * min(n, 2 * self.reach_band + 1)
            return SHIPPED(module, grid, tokens, cell_mask, token_mask, rows, columns, tags)
        n = cell_mask.shape[1]
        positions = torch.arange(n, device=cell_mask.device)
        near = (positions[None, :] - positions[:, None]).abs() <= self.pool_band
        if tags is None:
            tags = module.to_tags(grid)
        lowest = torch.finfo(tags.dtype).min
        whole = tags.masked_fill(~cell_mask[..., None], lowest)
        banded = tags.masked_fill(~(cell_mask & near)[..., None], lowest)
        real = token_mask[..., None].expand(-1, -1, tags.shape[-1])
        for dim in (2, 1):
            self.differing += int(((whole.amax(dim=dim) != banded.amax(dim=dim)) & real).sum())
            self.pooled += int(real.sum())
        return SHIPPED(module, grid, tokens, cell_mask & near, token_mask, rows, columns, tags)


def predict(nlp, docs):
    """The head's logits per window (band form where banded), and the docs
    with their spans."""
    pipe = nlp.get_pipe("crener")
    grids = []
    shipped = pipe.predict

    def recording(batch):
        scores = shipped(batch)
        grids.extend(grid.copy() for grid in scores[0])
        return scores

    pipe.predict = recording
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = list(nlp.pipe([Doc(nlp.vocab, words=[t.text for t in doc]) for doc in docs], batch_size=256))
    del pipe.predict
    return grids, found


def compare(nlp, docs, pooling, pool_band) -> dict:
    pooling.pool_band, pooling.cells, pooling.reach_cells = None, 0, 0
    base_grids, base_docs = predict(nlp, docs)
    pooling.pool_band, pooling.differing, pooling.pooled = pool_band, 0, 0
    grids, found = predict(nlp, docs)
    pooling.pool_band = None
    largest = max(float(abs(a - b).max()) for a, b in zip(base_grids, grids))
    a = {(i, s[:3]) for i, doc in enumerate(base_docs) for s in spans(doc)}
    b = {(i, s[:3]) for i, doc in enumerate(found) for s in spans(doc)}
    return {
        "pool_band": pool_band,
        "grid_cells": pooling.cells,
        "grid_cells_within_reach_band": pooling.reach_cells,
        "pooled_values": pooling.pooled,
        "pooled_values_differing": pooling.differing,
        "largest_band_logit_difference": round(largest, 4),
        "spans_whole_grid": len(a),
        "spans_banded_pooling": len(b),
        "spans_lost": len(a - b),
        "spans_added": len(b - a),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--docs", default="../shared/data/genia/dev.jsonl")
    parser.add_argument("--long-doc", type=int, default=10000)
    parser.add_argument("--pool-bands", type=int, nargs="+", default=[17, 29])
    parser.add_argument("--max-span-width", type=int, default=18)
    args = parser.parse_args()
    torch.set_num_threads(1)
    import spacy

    vocab = spacy.blank("en").vocab
    examples = [Example(doc, doc) for doc in read_nested_jsonl(TRAIN, vocab)]
    nlp, _, _ = trained("configs/crener.cfg", examples, args.updates)
    nlp.get_pipe("crener").max_span_width = args.max_span_width
    # The cells a banded grid would store: the band and the convolutions'
    # reach off the diagonal, 2 x (1 + 2 + 3) in sequence.
    settings = wrapped_module(nlp.get_pipe("crener").model.get_ref("head").layers[0]).settings
    reach = max(settings.dilations) if settings.parallel_dilations else sum(settings.dilations)
    reach_band = args.max_span_width - 1 + 2 * reach
    pooling = BandPooling(reach_band)
    relation_enhancement.RelationEnhancement.biases = lambda module, *a, **k: pooling(module, *a, **k)
    sentences = list(read_nested_jsonl(args.docs, nlp.vocab))
    words = [t.text for doc in sentences for t in doc]
    long_doc = [Doc(nlp.vocab, words=(words * (args.long_doc // len(words) + 1))[: args.long_doc])]
    result = {
        "command": "python " + " ".join(sys.argv),
        "config": "configs/crener.cfg",
        "updates": args.updates,
        "threads": torch.get_num_threads(),
        "code": code_state(),
        "versions": versions(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "max_span_width": args.max_span_width,
        "reach_band": reach_band,
        "sentences": {"docs": args.docs, "n_docs": len(sentences), "runs": []},
        "long_doc": {"tokens": args.long_doc, "runs": []},
    }
    for pool_band in args.pool_bands:
        result["sentences"]["runs"].append(compare(nlp, sentences, pooling, pool_band))
        result["long_doc"]["runs"].append(compare(nlp, long_doc, pooling, pool_band))
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
