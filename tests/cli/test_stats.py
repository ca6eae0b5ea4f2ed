"""`spacy globalner stats`: the entity statistics `spacy debug data` gives only
for spaCy's own components, on hand-made corpora whose counts are known."""
import re
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_globalner.corpora import corpus_stats
from tests.helpers.spacy_commands import user_env


def make_doc(nlp, text, spans):
    doc = nlp.make_doc(text)
    doc.spans["sc"] = [doc.char_span(*span) for span in spans]
    return doc


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    nlp = spacy.blank("en")
    path = tmp_path_factory.mktemp("stats")
    train = [
        # three entities, one inside the next: depth 3
        make_doc(nlp, "IL-2 gene expression in T cells", [
            (0, 4, "protein"), (0, 9, "DNA"), (0, 20, "DNA"), (24, 31, "cell_type")]),
        make_doc(nlp, "No entity here", []),
    ]
    dev = [
        make_doc(nlp, "IL-2 in T cells and B cells", [
            (0, 4, "protein"), (8, 15, "cell_type"), (20, 27, "cell_type")]),
        make_doc(nlp, "NF-kB mRNA", [(0, 10, "RNA")]),
    ]
    DocBin(docs=train).to_disk(path / "train.spacy")
    DocBin(docs=dev).to_disk(path / "dev.spacy")
    return path


def run_stats(*args, cwd):
    env = user_env()
    result = subprocess.run([sys.executable, "-m", "spacy", "globalner", "stats", *args],
                            capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
    output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    return result.returncode, " ".join(output.split())


def test_stats_command_prints_labels_nesting_lengths_and_seen_share(corpora):
    code, output = run_stats("train.spacy", "dev.spacy", "--max-span-width", "2", cwd=corpora)
    assert code == 0, output
    assert "docs 2 tokens 9 entities in spans['sc'] 4" in output
    assert "nested entities 2 (50.0%) nesting depth 3" in output
    assert "DNA 2 50.0% protein 1 25.0% cell_type 1 25.0%" in output
    assert "tokens entities share 1 1 25.0% 2 2 50.0% 3 1 25.0%" in output
    assert "1 of 4 entities (25.0%) are longer than --max-span-width 2 (longest: 3 tokens)" in output
    assert "2 of 4 entities (50.0%) have a text and label that occur in train.spacy" in output
    assert "cell_type 2 50.0%" in output  # "T cells" seen, "B cells" not
    assert "Labels of dev.spacy that train.spacy does not have: RNA" in output


def test_stats_command_without_a_second_corpus_or_width(corpora):
    code, output = run_stats("dev.spacy", cwd=corpora)
    assert code == 0, output
    assert "nesting depth 1" in output and "max-span-width" not in output and "seen" not in output


def test_stats_command_refuses_what_is_not_a_docbin(corpora, tmp_path):
    (tmp_path / "train.conll").write_text("IL-2 B-protein\n", encoding="utf8")
    for path in ("missing.spacy", "train.conll"):
        code, output = run_stats(path, cwd=tmp_path)
        assert code == 1 and "E310" in output and "spacy globalner convert" in output, output
        assert "Traceback" not in output


def test_corpus_stats_depth_and_lengths(corpora):
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(corpora / "train.spacy").get_docs(nlp.vocab))
    stats = corpus_stats(docs)
    assert (stats.max_depth, stats.lengths) == (3, {1: 1, 2: 2, 3: 1})
    assert corpus_stats([]).max_depth == 0
