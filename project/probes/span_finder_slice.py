"""spaCy's `span_finder` in front of `spancat`, as compare.py composes it, on a
slice of a corpus: does it learn, and what does it propose? One thread.

    python project/probes/span_finder_slice.py slice CORPUS_DIR OUT_DIR [--train 2000] [--dev 600]
    python project/probes/span_finder_slice.py train HEAD SLICE_DIR OUT_DIR [--updates 400]
    python project/probes/span_finder_slice.py score OUT_DIR SLICE_DIR
    python project/probes/span_finder_slice.py candidates MODEL DEV.spacy [--docs 600]

CORPUS_DIR is what `spacy project run compare-corpus` writes (train, dev and
test .spacy and stats.json); `slice` keeps the first sentences of each split
(test: as many as dev). `train` composes HEAD@global_pointer (span_finder or
spancat) or global_pointer exactly as compare.py does and runs `spacy train`
with compare's budget overrides, evaluating four times. `score` is
compare.py's scoring: test at the config's thresholds, and at those chosen on
dev (span_finder's first, then spancat's). `candidates` prints span_finder's
start and end probabilities on gold and other tokens, and the share of gold
spans it proposes at thresholds 0.5 to 0.05.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy
import spacy
from spacy.tokens import DocBin

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "project" / "scripts"))

import compare  # noqa: E402

from common import budget_overrides  # noqa: E402

CONFIG = REPO / "configs" / "global_pointer.cfg"


def make_slice(corpus: Path, out: Path, n_train: int, n_dev: int) -> None:
    stats = json.loads((corpus / "stats.json").read_text())
    nlp = spacy.blank(stats["lang"])
    out.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_dev)):
        docs = list(DocBin().from_disk(corpus / f"{split}.spacy").get_docs(nlp.vocab))[:n]
        DocBin(docs=docs, store_user_data=True).to_disk(out / f"{split}.spacy")
        spans = [span for doc in docs for span in doc.spans["sc"]]
        stats[split] = {**stats[split], "n_docs": len(docs), "n_tokens": sum(len(doc) for doc in docs),
                        "n_entities": len(spans), "max_length": max(len(span) for span in spans)}
    stats["train_limit"], stats["dev_limit"] = n_train, n_dev
    (out / "stats.json").write_text(json.dumps(stats, indent=1))


def train(head: str, corpus: Path, out: Path, updates: int) -> None:
    stats = json.loads((corpus / "stats.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    spacy_head = None if head == "global_pointer" else head
    config = compare.compose(CONFIG, spacy_head, stats, out / "train_stats.json")
    (out / "config.cfg").write_text(config.to_str(interpolate=False))
    subprocess.run([
        sys.executable, "-m", "spacy", "train", str(out / "config.cfg"), "--output", str(out),
        "--code", str(REPO / "project" / "scripts" / "measure.py"),
        "--paths.train", str(corpus / "train.spacy"), "--paths.dev", str(corpus / "dev.spacy"),
        "--system.seed", "0", *budget_overrides(CONFIG, updates),
        "--training.eval_frequency", str(max(updates // 4, 1)), "--training.patience", "0",
    ], check=True)


def score(out: Path, corpus: Path) -> None:
    scored = compare.score(out / "model-last", corpus, True)
    print(json.dumps({"tuning": scored["tuning"], "default": scored["scores_at_default"]["spans"],
                      "tuned": scored["scores"]["spans"]}, default=str))


def candidates(model: str, dev: Path, n_docs: int) -> None:
    nlp = spacy.load(model)
    golds = list(DocBin().from_disk(dev).get_docs(nlp.vocab))[:n_docs]
    finder = nlp.get_pipe("span_finder")
    # the shared encoder's output, for a span_finder that listens to it
    docs = list(nlp.get_pipe("tok2vec").pipe(nlp.make_doc(gold.text) for gold in golds))
    probs = numpy.asarray(finder.predict(docs))
    is_gold = numpy.zeros((len(probs), 2), dtype=bool)
    gold_spans, offset = [], 0
    for gold, doc in zip(golds, docs):
        for span in gold.spans["sc"]:
            aligned = doc.char_span(span.start_char, span.end_char)
            if aligned is not None:
                is_gold[offset + aligned.start, 0] = is_gold[offset + aligned.end - 1, 1] = True
                gold_spans.append((offset + aligned.start, offset + aligned.end - 1, len(aligned)))
        offset += len(doc)
    for column, name in ((0, "start"), (1, "end")):
        print(f"{name}: gold mean {probs[is_gold[:, column], column].mean():.3f}, "
              f"other mean {probs[~is_gold[:, column], column].mean():.3f}")
    longest = finder.cfg["max_length"]
    for threshold in (0.5, 0.3, 0.2, 0.1, 0.05):
        kept = probs >= threshold
        found = sum(kept[start, 0] and kept[end, 1] and width <= longest for start, end, width in gold_spans)
        print(f"threshold {threshold}: {found / len(gold_spans):.3f} of {len(gold_spans)} gold spans proposed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sliced = commands.add_parser("slice")
    sliced.add_argument("corpus", type=Path)
    sliced.add_argument("out", type=Path)
    sliced.add_argument("--train", type=int, default=2000)
    sliced.add_argument("--dev", type=int, default=600)
    trained = commands.add_parser("train")
    trained.add_argument("head", choices=["span_finder", "spancat", "global_pointer"])
    trained.add_argument("corpus", type=Path)
    trained.add_argument("out", type=Path)
    trained.add_argument("--updates", type=int, default=400)
    scored = commands.add_parser("score")
    scored.add_argument("out", type=Path)
    scored.add_argument("corpus", type=Path)
    proposed = commands.add_parser("candidates")
    proposed.add_argument("model")
    proposed.add_argument("dev", type=Path)
    proposed.add_argument("--docs", type=int, default=600)
    args = parser.parse_args()
    if args.command == "slice":
        make_slice(args.corpus, args.out, args.train, args.dev)
    elif args.command == "train":
        train(args.head, args.corpus, args.out, args.updates)
    elif args.command == "score":
        score(args.out, args.corpus)
    else:
        candidates(args.model, args.dev, args.docs)


if __name__ == "__main__":
    main()
