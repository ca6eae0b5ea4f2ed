"""Convert one benchmark corpus (train slice + dev) and record its statistics.

python scripts/bench_corpus.py CORPUS DATA_DIR OUTPUT_DIR [--train-limit N]

Writes OUTPUT_DIR/train.spacy, dev.spacy and stats.json (language, nesting,
longest entity in train, the slice used), which make_configs.py reads.
"""
import argparse
import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from spacy.tokens import DocBin
from spacy.util import get_lang_class

from spacy_globalner.corpora import corpus_stats

from benchmark_corpora import get_corpus


def convert(input_path: Path, output_path: Path, format: str, limit: int) -> None:
    cmd = [sys.executable, "-m", "spacy_globalner.corpora", "convert",
           str(input_path), str(output_path), "--format", format]
    if limit:
        cmd += ["--limit", str(limit)]
    subprocess.run(cmd, check=True)


def stats_of(path: Path, lang: str) -> dict:
    vocab = get_lang_class(lang)().vocab
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    stats = asdict(corpus_stats(docs))
    stats["nested_share"] = stats["n_nested"] / stats["n_entities"] if stats["n_entities"] else 0.0
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--train-limit", type=int, default=-1,
                        help="first N training sentences (0 = all; default: the corpus budget)")
    args = parser.parse_args()
    corpus = get_corpus(args.corpus)
    limit = corpus.train_limit if args.train_limit < 0 else args.train_limit
    source = args.data_dir / corpus.folder
    args.output_dir.mkdir(parents=True, exist_ok=True)
    convert(source / corpus.train, args.output_dir / "train.spacy", corpus.format, limit)
    convert(source / corpus.dev, args.output_dir / "dev.spacy", corpus.format, 0)
    summary = {
        "corpus": args.corpus,
        "lang": corpus.lang,
        "nested": corpus.nested,
        "train_limit": limit,
        "steps": corpus.steps,
        "train": stats_of(args.output_dir / "train.spacy", corpus.lang),
        "dev": stats_of(args.output_dir / "dev.spacy", corpus.lang),
    }
    (args.output_dir / "stats.json").write_text(json.dumps(summary, indent=2))
    print(f"max entity length in train: {summary['train']['max_length']} tokens")


if __name__ == "__main__":
    main()
