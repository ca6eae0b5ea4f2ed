"""Unpack the corpora's downloaded archives where the workflows read them.

python scripts/extract_assets.py CORPORA_DIR [--license assets/genia/GENIA_LICENSE.txt]

`spacy project assets` downloads files; two corpora come as archives:
CLUENER's train.json and dev.json are taken out of cluener/cluener_public.zip,
and GENIA's GENIAcorpus3.02.merged.xml out of genia/GENIAcorpus3.02p.tgz,
converted by the package's genia_xml reader (the literature's five types and
corpus-order split) to genia/{train,dev,test}.jsonl, the format the workflows
read, with GENIA's license, which must travel with the corpus, beside them.
"""
import json
import shutil
import tarfile
import zipfile
from pathlib import Path

import spacy
import typer

from spacy_globalner.corpora import read_genia_xml

from common import Arg, Opt

GENIA_XML = "GENIAcorpus3.02.merged.xml"


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


def main(
    # fmt: off
    corpora_dir: Path = Arg(..., help="The folder `spacy project assets` downloaded the corpora to"),
    license_path: Path = Opt(Path("assets/genia/GENIA_LICENSE.txt"), "--license", help="GENIA's license text"),
    # fmt: on
):
    extract_cluener(corpora_dir / "cluener")
    extract_genia(corpora_dir / "genia", license_path)


if __name__ == "__main__":
    typer.run(main)
