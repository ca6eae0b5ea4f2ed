"""Convert one benchmark corpus (train slice + dev) and record its statistics.

python scripts/corpus.py CORPUS DATA_DIR OUTPUT_DIR [--train-limit N] [--dev-limit N]

Writes OUTPUT_DIR/train.spacy, dev.spacy and stats.json (language, nesting,
longest entity in train, the slices used), which configs.py and compare.py
read, and the two halves of dev: tune.spacy (even-numbered dev docs) and
report.spacy (odd-numbered). Every threshold a compared run uses is chosen on
the tuning half; tables report the other half, where nothing was tuned.
Alternating docs keep both halves drawn from all of dev, as a dev set ordered
by source or topic would not be by a cut in the middle. Each file is written
under a temporary name and renamed into place, so two runs of the `compare`
workflow started together (two seeds in two shells) never read a half-written
corpus.
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


def split_dev(dev_path: Path, output_dir: Path, lang: str) -> None:
    """Write dev's even-numbered docs to tune.spacy and odd-numbered to report.spacy."""
    vocab = get_lang_class(lang)().vocab
    docs = list(DocBin(store_user_data=True).from_disk(dev_path).get_docs(vocab))
    for name, half in (("tune", docs[0::2]), ("report", docs[1::2])):
        partial = output_dir / f".{os.getpid()}.{name}.spacy"
        DocBin(docs=half, store_user_data=True).to_disk(partial)
        os.replace(partial, output_dir / f"{name}.spacy")


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
    output_dir: Path = Arg(..., help="Where train.spacy, dev.spacy, its halves and stats.json go"),
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
    split_dev(output_dir / "dev.spacy", output_dir, corpus.lang)
    summary = {
        "corpus": corpus_name,
        "lang": corpus.lang,
        "nested": corpus.nested,
        "train_limit": limit,
        "dev_limit": dev_limit,
        "steps": corpus.steps,
        "train": stats_of(output_dir / "train.spacy", corpus.lang),
        "dev": stats_of(output_dir / "dev.spacy", corpus.lang),
        "tune": stats_of(output_dir / "tune.spacy", corpus.lang),
        "report": stats_of(output_dir / "report.spacy", corpus.lang),
    }
    partial = output_dir / f".{os.getpid()}.stats.json"
    write_json(partial, summary)
    os.replace(partial, output_dir / "stats.json")
    print(f"max entity length in train: {summary['train']['max_length']} tokens")


if __name__ == "__main__":
    typer.run(main)
