"""Convert one benchmark corpus (train slice, dev, test) and record its statistics.

python scripts/corpus.py CORPUS DATA_DIR OUTPUT_DIR [--train-limit N] [--dev-limit N]

Writes OUTPUT_DIR/train.spacy, dev.spacy, test.spacy (the official test split,
where the corpus publishes one) and stats.json (language, nesting, longest
entity in train, the slices used), which compare.py reads.
compare.py chooses every threshold on the whole of dev and reads test only in
a run's final scoring step, as the papers the tables stand beside do. Each
file is written under a temporary name and renamed into place, so two runs of
the `compare` workflow started together (two seeds in two shells) never read a
half-written corpus.
"""
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import typer
from spacy.tokens import DocBin
from spacy.util import get_lang_class

from spacy_globalner.corpora import corpus_stats

from common import Arg, Opt, get_corpus, write_json


def convert(input_path: Path, output_path: Path, format: str, limit: int) -> None:
    partial = output_path.with_name(f".{os.getpid()}.{output_path.name}")
    cmd = [sys.executable, "-m", "spacy", "globalner", "convert",
           str(input_path), str(partial), "--format", format]
    if limit:
        cmd += ["--limit", str(limit)]
    subprocess.run(cmd, check=True)
    os.replace(partial, output_path)


def stats_of(path: Path, lang: str) -> dict:
    vocab = get_lang_class(lang)().vocab
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    stats = asdict(corpus_stats(docs))
    stats["nested_share"] = stats["n_nested"] / stats["n_entities"] if stats["n_entities"] else 0.0
    return stats


def main(
    # fmt: off
    corpus_name: str = Arg(..., help="A corpus of common.CORPORA", metavar="CORPUS"),
    data_dir: Path = Arg(..., help="The folder that holds the corpora's folders"),
    output_dir: Path = Arg(..., help="Where train.spacy, dev.spacy, test.spacy and stats.json go"),
    train_limit: int = Opt(-1, "--train-limit",
                           help="First N training sentences (0 = all; default: the corpus budget)"),
    dev_limit: int = Opt(0, "--dev-limit", help="First N dev sentences (0 = all)"),
    # fmt: on
):
    corpus = get_corpus(corpus_name)
    limit = corpus.train_limit if train_limit < 0 else train_limit
    source = data_dir / corpus.folder
    output_dir.mkdir(parents=True, exist_ok=True)
    convert(source / corpus.train, output_dir / "train.spacy", corpus.format, limit)
    convert(source / corpus.dev, output_dir / "dev.spacy", corpus.format, dev_limit)
    if corpus.test is None:
        raise SystemExit(f"{corpus_name} publishes no test labels: compare reports on a test split")
    convert(source / corpus.test, output_dir / "test.spacy", corpus.format, 0)
    summary = {
        "corpus": corpus_name,
        "lang": corpus.lang,
        "nested": corpus.nested,
        "train_limit": limit,
        "dev_limit": dev_limit,
        "steps": corpus.steps,
        "train": stats_of(output_dir / "train.spacy", corpus.lang),
        "dev": stats_of(output_dir / "dev.spacy", corpus.lang),
        "test": stats_of(output_dir / "test.spacy", corpus.lang),
    }
    partial = output_dir / f".{os.getpid()}.stats.json"
    write_json(partial, summary)
    os.replace(partial, output_dir / "stats.json")
    print(f"max entity length in train: {summary['train']['max_length']} tokens")


if __name__ == "__main__":
    typer.run(main)
