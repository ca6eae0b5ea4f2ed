"""Get a benchmark corpus ready: unpack the downloaded archives, convert a
corpus (train slice, dev, test) and record its statistics.

    python scripts/corpus.py extract CORPORA_DIR [--license assets/genia/GENIA_LICENSE.txt]
    python scripts/corpus.py convert CORPUS DATA_DIR OUTPUT_DIR [--train-limit N] [--dev-limit N]

`extract`: `spacy project assets` downloads files; two corpora come as
archives. CLUENER's train.json and dev.json are taken out of
cluener/cluener_public.zip, and GENIA's GENIAcorpus3.02.merged.xml out of
genia/GENIAcorpus3.02p.tgz, converted by the package's genia_xml reader (the
literature's five types and corpus-order split) to genia/{train,dev,test}.jsonl,
the format the workflows read, with GENIA's license, which must travel with
the corpus, beside them.

`convert` writes OUTPUT_DIR/train.spacy, dev.spacy, test.spacy (the official
test split, where the corpus publishes one) and stats.json (language, nesting,
longest entity in train, the slices used), which compare.py reads. compare.py
chooses every threshold on the whole of dev and reads test only in a run's
final scoring step, as the papers the tables stand beside do. Each file is
written under a temporary name and renamed into place, so two runs of the
`compare` workflow started together (two seeds in two shells) never read a
half-written corpus. The splits are converted in this process by the
package's own convert (what `spacy globalner convert` runs), so a corpus costs
one start-up of spaCy and torch, not one per split.
"""
import json
import os
import shutil
import tarfile
import zipfile
from dataclasses import asdict
from pathlib import Path

import spacy
import typer
from spacy.tokens import DocBin
from spacy.util import get_lang_class

from spacy_globalner.cli.convert import print_stats
from spacy_globalner.corpora import convert as convert_file
from spacy_globalner.corpora import corpus_stats, read_genia_xml

from common import Arg, Opt, get_corpus, write_json

GENIA_XML = "GENIAcorpus3.02.merged.xml"

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)


def extract_cluener(folder: Path) -> None:
    with zipfile.ZipFile(folder / "cluener_public.zip") as archive:
        for name in ("train.json", "dev.json"):
            member = next(m for m in archive.namelist() if Path(m).name == name)
            (folder / name).write_bytes(archive.read(member))


def extract_genia(folder: Path, license_path: Path) -> None:
    with tarfile.open(folder / "GENIAcorpus3.02p.tgz") as archive:
        member = next(m for m in archive.getmembers() if Path(m.name).name == GENIA_XML)
        (folder / GENIA_XML).write_bytes(archive.extractfile(member).read())
    vocab = spacy.blank("en").vocab
    for split in ("train", "dev", "test"):
        with (folder / f"{split}.jsonl").open("w", encoding="utf-8") as file_:
            for doc in read_genia_xml(folder / GENIA_XML, vocab, split=split):
                entities = [[span.start, span.end, span.label_] for span in doc.spans["sc"]]
                file_.write(json.dumps({"tokens": [t.text for t in doc], "entities": entities}) + "\n")
    shutil.copy(license_path, folder / "GENIA_LICENSE.txt")


def derive_germeval(folder: Path) -> None:
    """germ.SPLIT.iob2 (token<TAB>outer<TAB>inner, a blank line between
    sentences), which the workflows read, from the official NER-de-SPLIT.tsv
    (a `#` source line, then index<TAB>token<TAB>outer<TAB>inner). Checked
    against the copies the runs read: dev byte for byte; test differs in one
    token order (its sentence with `Sonst` and a quote, both outside entities);
    train was not at hand to check."""
    for split in ("train", "dev", "test"):
        source = folder / f"NER-de-{split}.tsv"
        if not source.exists():
            continue
        rows = ["\t".join(line.split("\t")[1:4]) if line.strip() else ""
                for line in source.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
        (folder / f"germ.{split}.iob2").write_text("\n".join(rows) + "\n\n", encoding="utf-8")


def convert_split(input_path: Path, output_path: Path, format: str, limit: int) -> None:
    partial = output_path.with_name(f".{os.getpid()}.{output_path.name}")
    try:
        stats = convert_file(input_path, partial, format=format, limit=limit or None)
    except ValueError as err:
        raise SystemExit(f"Conversion of {input_path} failed: {err}") from None
    print_stats(stats)
    os.replace(partial, output_path)


def stats_of(path: Path, lang: str) -> dict:
    vocab = get_lang_class(lang)().vocab
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    stats = asdict(corpus_stats(docs))
    stats["nested_share"] = stats["n_nested"] / stats["n_entities"] if stats["n_entities"] else 0.0
    return stats


@app.command("extract")
def extract(
    # fmt: off
    corpora_dir: Path = Arg(..., help="The folder `spacy project assets` downloaded the corpora to"),
    license_path: Path = Opt(Path("assets/genia/GENIA_LICENSE.txt"), "--license", help="GENIA's license text"),
    # fmt: on
):
    """Unpack the corpora's downloaded archives where the workflows read them,
    and derive GermEval 2014's three-column files from its official ones."""
    extract_cluener(corpora_dir / "cluener")
    extract_genia(corpora_dir / "genia", license_path)
    derive_germeval(corpora_dir / "germeval2014")


@app.command("convert")
def convert(
    # fmt: off
    corpus_name: str = Arg(..., help="A corpus of common.CORPORA", metavar="CORPUS"),
    data_dir: Path = Arg(..., help="The folder that holds the corpora's folders"),
    output_dir: Path = Arg(..., help="Where train.spacy, dev.spacy, test.spacy and stats.json go"),
    train_limit: int = Opt(-1, "--train-limit",
                           help="First N training sentences (0 = all; default: the corpus budget)"),
    dev_limit: int = Opt(0, "--dev-limit", help="First N dev sentences (0 = all)"),
    # fmt: on
):
    """Convert one corpus' train slice, dev and test, and record its statistics."""
    corpus = get_corpus(corpus_name)
    limit = corpus.train_limit if train_limit < 0 else train_limit
    source = data_dir / corpus.folder
    output_dir.mkdir(parents=True, exist_ok=True)
    convert_split(source / corpus.train, output_dir / "train.spacy", corpus.format, limit)
    convert_split(source / corpus.dev, output_dir / "dev.spacy", corpus.format, dev_limit)
    if corpus.test is None:
        raise SystemExit(f"{corpus_name} publishes no test labels: compare reports on a test split")
    convert_split(source / corpus.test, output_dir / "test.spacy", corpus.format, 0)
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
    app()
