"""`crener`'s prediction on the band of its grid against the code it replaces
and against `global_pointer`, side by side in one process on one thread.

    python project/probes/crener_band_speed.py OUT.json [--base REV]
        [--docs ../shared/data/genia/dev.jsonl] [--updates 100] [--rounds 5]
        [--max-span-width 18] [--train-updates 30] [--long-doc 50000]

`crener` (configs/crener.cfg) and `global_pointer` (configs/global_pointer.cfg)
are initialised on the bundled GENIA slice and trained `--updates` updates on
the same batches of about 1,000 words (seed 0), so that decoding meets a
trained model's share of candidate cells. `crener` then predicts the GENIA
sentences of `--docs` (`nlp.pipe`, batch 256) in three ways, in turns of one
pass over the docs each (rotating which goes first each round):

- old: the torch modules of ml/torch/crener at REV (default: the commit before
  the band, `git archive`d into a temporary package and loaded with the same
  weights), scoring the whole grid, decoded by decode_grid;
- new: this tree, scoring the band of `--max-span-width` (GENIA's longest
  train entity has 18 tokens; the slice's 14), decoded by decode_band;
- global_pointer, with its own tok2vec.

Words/s are CPU-time rates (time.process_time) and each ratio is the median
of the rounds' ratios. It also checks that old and new find the same spans,
with the same scores (5 decimals), among those the band can hold.

Training scores the whole grid either way; `--train-updates` updates of each
(old, new, global_pointer; each its own optimizer) alternate on the same
batches after prediction, and give the train words/s ratios the same way.

With --long-doc N, one doc of N GENIA dev tokens without sentence boundaries
is predicted by an untrained `crener` (factory defaults, initialised on 200
train sentences, as project/probes/long_doc_memory.py does) in a fresh
subprocess per path: CPU seconds, and the peak RSS during the call (VmHWM,
reset before it) less the RSS before it.
"""
import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from io import BytesIO
from pathlib import Path

import torch
from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.batchers import minibatch_by_words
from spacy.util import load_config, load_model_from_config
from thinc.api import fix_random_seed

from spacy_globalner.corpora import read_nested_jsonl
from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module

TRAIN = "project/assets/genia/train.jsonl"
DEFAULT_BASE = "dd5778e"  # the last commit before the band


def old_modules(rev: str):
    """The scorer module of ml/torch/crener as it was at rev, importable on
    its own: ml/torch holds plain torch modules with relative imports only."""
    data = subprocess.run(
        ["git", "archive", rev, "spacy_globalner/ml/torch"], capture_output=True, check=True
    ).stdout
    root = Path(tempfile.mkdtemp())
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(root)
    (root / "spacy_globalner/ml/torch").rename(root / "old_torch")
    sys.path.insert(0, str(root))
    return importlib.import_module("old_torch.crener.scorer")


def swap_in_old_scorer(nlp, old_scorer_module) -> None:
    """Run nlp's crener head on the old module, with the same weights."""
    wrapper = nlp.get_pipe("crener").model.get_ref("head").layers[0]
    new = wrapped_module(wrapper)
    old = old_scorer_module.CRENERScorer(new.n_tags, new.settings)
    old.load_state_dict(new.state_dict())
    # nn.Module.__call__ runs the instance's forward: the old module's, on its
    # copy of the same weights, without reaching into the shim.
    new.forward = old.forward


def trained(config: str, examples, updates: int, seed: int = 0):
    fix_random_seed(seed)
    nlp = load_model_from_config(load_config(config), auto_fill=True)
    # GENIA's own tokens, as the docs predicted later have them.
    train = [Example(Doc(nlp.vocab, words=[t.text for t in eg.reference]), eg.reference) for eg in examples]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        optimizer = nlp.initialize(lambda: train)
    batches = list(minibatch_by_words(train, size=1000, tolerance=0.2))
    for i in range(updates):
        nlp.update(batches[i % len(batches)], sgd=optimizer, drop=0.1)
    return nlp, optimizer, batches


def predict_seconds(nlp, texts):
    docs = [Doc(nlp.vocab, words=words) for words in texts]
    start = time.process_time()
    docs = list(nlp.pipe(docs, batch_size=256))
    return time.process_time() - start, docs


def spans(doc, longest=None):
    return [
        (span.start, span.end, span.label_, round(float(score), 5))
        for span, score in zip(doc.spans["sc"], doc.spans["sc"].attrs["scores"])
        if longest is None or len(span) <= longest
    ]


def long_doc(path: str, n_tokens: int, max_span_width, base: str) -> dict:
    """One path on one long doc, in this (fresh) process."""
    import spacy

    torch.set_num_threads(1)
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("crener")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train = [Example(nlp.make_doc(doc.text), doc) for doc in read_nested_jsonl(TRAIN, nlp.vocab, limit=200)]
        nlp.initialize(lambda: train)
    pipe = nlp.get_pipe("crener")
    if path == "old":
        swap_in_old_scorer(nlp, old_modules(base))
        pipe.max_span_width = None
    elif max_span_width is not None:
        pipe.max_span_width = max_span_width
    # GENIA dev has 42,766 tokens: its text again where N is more.
    dev = [token.text for doc in read_nested_jsonl("../shared/data/genia/dev.jsonl", nlp.vocab) for token in doc]
    doc = Doc(nlp.vocab, words=(dev * (n_tokens // len(dev) + 1))[:n_tokens])
    before = rss_mb("VmRSS")
    # The peak so far (building the pipeline) would hide prediction's: reset it.
    Path("/proc/self/clear_refs").write_text("5")
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = nlp(doc)
    seconds = time.process_time() - start
    return {
        "path": path, "tokens": len(doc), "max_span_width": pipe.cfg.get("max_span_width"),
        "cpu_seconds": round(seconds, 2), "peak_growth_mb": round(rss_mb("VmHWM") - before),
        "spans": len(doc.spans["sc"]),
    }


def rss_mb(field: str) -> float:
    """VmRSS (resident now) or VmHWM (peak since the last reset) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise ValueError(field)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--docs", default="../shared/data/genia/dev.jsonl")
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-span-width", type=int, default=18)
    parser.add_argument("--train-updates", type=int, default=30)
    parser.add_argument("--long-doc", type=int, default=0)
    parser.add_argument("--long-doc-path", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.long_doc_path:
        print(json.dumps(long_doc(args.long_doc_path, args.long_doc, args.max_span_width, args.base)))
        return
    torch.set_num_threads(1)
    import spacy

    vocab_nlp = spacy.blank("en")
    examples = [Example(doc, doc) for doc in read_nested_jsonl(TRAIN, vocab_nlp.vocab)]
    texts = [[token.text for token in doc] for doc in read_nested_jsonl(args.docs, vocab_nlp.vocab)]
    words = sum(len(text) for text in texts)
    new, new_optimizer, batches = trained("configs/crener.cfg", examples, args.updates)
    learned = new.get_pipe("crener").cfg["max_span_width"]
    new.get_pipe("crener").max_span_width = args.max_span_width
    old = load_model_from_config(load_config("configs/crener.cfg"), auto_fill=True)
    old.from_bytes(new.to_bytes())
    swap_in_old_scorer(old, old_modules(args.base))
    old.get_pipe("crener").max_span_width = None
    gp, gp_optimizer, _ = trained("configs/global_pointer.cfg", examples, args.updates)
    runners = {"old": old, "new": new, "global_pointer": gp}
    optimizers = {"old": old.resume_training(), "new": new_optimizer, "global_pointer": gp_optimizer}
    seconds = {name: [] for name in runners}
    found = {}
    for r in range(args.rounds):
        names = list(runners)
        for name in names[r % 3 :] + names[: r % 3]:
            spent, docs = predict_seconds(runners[name], texts)
            seconds[name].append(spent)
            found[name] = docs
    same = all(
        spans(a, args.max_span_width) == spans(b) for a, b in zip(found["old"], found["new"])
    )
    n_found = sum(len(spans(doc)) for doc in found["new"])
    wps = {name: [words / s for s in spent] for name, spent in seconds.items()}
    train_wps = {name: [] for name in runners}
    for i in range(args.train_updates):
        batch = [Example(Doc(vocab_nlp.vocab, words=[t.text for t in eg.reference]), eg.reference)
                 for eg in batches[(args.updates + i) % len(batches)]]
        batch_words = sum(len(eg.reference) for eg in batch)
        names = list(runners)
        for name in names[i % 3 :] + names[: i % 3]:
            start = time.process_time()
            runners[name].update(batch, sgd=optimizers[name], drop=0.1)
            train_wps[name].append(batch_words / (time.process_time() - start))

    def ratio(a, b, rates=wps):
        return round(statistics.median(x / y for x, y in zip(rates[a], rates[b])), 3)

    result = {
        "command": "python " + " ".join(sys.argv),
        "docs": args.docs, "n_docs": len(texts), "words": words, "updates": args.updates,
        "max_span_width": args.max_span_width, "max_span_width_learned_on_slice": learned,
        "threads": torch.get_num_threads(),
        "predict_words_per_cpu_second": {name: [round(x) for x in values] for name, values in wps.items()},
        "ratio_new_over_old": ratio("new", "old"),
        "ratio_new_over_global_pointer": ratio("new", "global_pointer"),
        "ratio_old_over_global_pointer": ratio("old", "global_pointer"),
        "same_spans_within_band": same, "spans_found_new": n_found,
        "train_updates": args.train_updates,
        "train_words_per_cpu_second_median": {
            name: round(statistics.median(values)) for name, values in train_wps.items()
        },
        "train_ratio_new_over_old": ratio("new", "old", train_wps),
        "train_ratio_new_over_global_pointer": ratio("new", "global_pointer", train_wps),
    }
    if args.long_doc:
        result["long_doc"] = []
        for path in ("old", "new"):
            output = subprocess.run(
                [sys.executable, __file__, args.out, "--long-doc", str(args.long_doc), "--long-doc-path", path,
                 "--max-span-width", str(args.max_span_width), "--base", args.base],
                capture_output=True, text=True, check=True,
            ).stdout
            result["long_doc"].append(json.loads(output.strip().splitlines()[-1]))
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
