"""project.yml's `assets`: every corpus the workflows read is declared with its
upstream address, license and, where ../shared/data holds the bytes as
published, an MD5 checksum that matches them; `corpora-extract` unpacks the
two archives into what the workflows read."""
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile

import srsly

from tests.helpers import REPO_ROOT

PROJECT = REPO_ROOT / "project"
sys.path.insert(0, str(PROJECT / "scripts"))

from common import CORPORA  # noqa: E402

CORPORA_DIR = "assets/corpora/"
# ../shared/data holds GENIA converted from the XML, not as published.
CONVERTED = ("genia",)


def project_yml():
    return srsly.read_yaml(PROJECT / "project.yml")


def assets():
    return {asset["dest"]: asset for asset in project_yml()["assets"]}


def extracted():
    command = next(c for c in project_yml()["commands"] if c["name"] == "corpora-extract")
    return set(command["outputs"])


def test_workflows_read_the_assets_by_default():
    assert project_yml()["vars"]["data_dir"] + "/" == CORPORA_DIR


def test_every_file_the_workflows_read_is_an_asset_or_unpacked_from_one():
    declared = set(assets()) | extracted()
    for corpus in CORPORA.values():
        for name in (corpus.train, corpus.dev, corpus.test):
            if name is not None:
                assert f"{CORPORA_DIR}{corpus.folder}/{name}" in declared, (corpus.folder, name)


def test_every_asset_says_its_license_and_where_it_comes_from():
    for dest, asset in assets().items():
        assert dest.startswith(CORPORA_DIR), dest
        assert "License: " in asset["description"], dest
        assert asset.get("url") or "checksum" in asset, dest
        if "url" not in asset:
            assert any(word in asset["description"] for word in ("no public address", "unpacks")), dest


def test_checksums_match_the_bytes_in_shared_data(shared_data):
    checked = 0
    for dest, asset in assets().items():
        relative = dest[len(CORPORA_DIR):]
        local = shared_data / relative
        if relative.split("/")[0] in CONVERTED or not local.exists():
            assert "checksum" not in asset or not local.exists(), dest
            continue
        # Where shared/data has the file as published, the asset must pin it.
        assert asset.get("checksum") == hashlib.md5(local.read_bytes()).hexdigest(), dest
        checked += 1
    # 13: GermEval's three-column files are derived by corpora-extract, not assets
    assert checked >= 13


def test_corpora_extract_unpacks_genia_and_cluener_and_derives_germeval(tmp_path, shared_data):
    """The archives, built here from a real GENIA XML slice and CLUENER lines,
    unpacked by `spacy project run corpora-extract` as a user runs it, and
    GermEval 2014's three-column files derived from its official ones."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns(
        "corpus", "training", "metrics", "benchmarks", "probes", "project.lock", "__pycache__"))
    genia, cluener = project / "assets" / "corpora" / "genia", project / "assets" / "corpora" / "cluener"
    genia.mkdir(parents=True)
    cluener.mkdir(parents=True)
    xml = (REPO_ROOT / "tests" / "corpora" / "data" / "GENIAcorpus3.02.merged.slice.xml").read_bytes()
    # The literature's split needs the whole corpus: the slice's articles, repeated to its size.
    head, _, rest = xml.partition(b"<article>")
    articles, _, tail = rest.rpartition(b"</set>")
    whole = head + (b"<article>" + articles) * 6182 + tail + b"</set>"
    with tarfile.open(genia / "GENIAcorpus3.02p.tgz", "w:gz") as archive:
        info = tarfile.TarInfo("GENIAcorpus3.02p/GENIAcorpus3.02.merged.xml")
        info.size = len(whole)
        archive.addfile(info, io.BytesIO(whole))
    lines = (shared_data / "cluener" / "dev.json").read_bytes().splitlines(keepends=True)[:5]
    with zipfile.ZipFile(cluener / "cluener_public.zip", "w") as archive:
        archive.writestr("train.json", b"".join(lines))
        archive.writestr("dev.json", b"".join(lines[:2]))
        archive.writestr("test.json", b"")
    germeval = project / "assets" / "corpora" / "germeval2014"
    germeval.mkdir(parents=True)
    # ../shared/data lacks the official train file: dev stands in for it
    for split, source in (("train", "dev"), ("dev", "dev"), ("test", "test")):
        shutil.copy(shared_data / "germeval2014" / f"NER-de-{source}.tsv", germeval / f"NER-de-{split}.tsv")
    done = subprocess.run([sys.executable, "-m", "spacy", "project", "run", "corpora-extract", str(project)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (cluener / "train.json").read_bytes() == b"".join(lines)
    sizes = {split: len((genia / f"{split}.jsonl").read_text().splitlines()) for split in ("train", "dev", "test")}
    assert sizes == {"train": 15022, "dev": 1669, "test": 1855}
    expected = json.loads((shared_data / "genia" / "train.jsonl").read_text().splitlines()[0])
    assert json.loads((genia / "train.jsonl").read_text().splitlines()[0]) == {
        "tokens": expected["tokens"], "entities": expected["entities"]}
    assert (genia / "GENIA_LICENSE.txt").read_text() == (shared_data / "genia" / "GENIA_LICENSE.txt").read_text()
    assert (germeval / "germ.dev.iob2").read_bytes() == (shared_data / "germeval2014" / "germ.dev.iob2").read_bytes()


def test_germeval_three_column_files_derive_from_the_official_ones(tmp_path, shared_data):
    """germ.*.iob2, which the workflows read and no public address serves, are
    derived from the official NER-de-*.tsv: dev byte for byte as the runs read
    it, test but for one token order outside any entity."""
    from corpus import derive_germeval

    folder = tmp_path / "germeval2014"
    folder.mkdir()
    for split in ("dev", "test"):
        shutil.copy(shared_data / "germeval2014" / f"NER-de-{split}.tsv", folder)
    derive_germeval(folder)
    assert (folder / "germ.dev.iob2").read_bytes() == (shared_data / "germeval2014" / "germ.dev.iob2").read_bytes()
    derived = (folder / "germ.test.iob2").read_text(encoding="utf-8").split("\n")
    read = (shared_data / "germeval2014" / "germ.test.iob2").read_text(encoding="utf-8").split("\n")
    assert len(derived) == len(read) and sorted(derived) == sorted(read)
    assert [i for i, (a, b) in enumerate(zip(derived, read)) if a != b] == [18780, 18781]
