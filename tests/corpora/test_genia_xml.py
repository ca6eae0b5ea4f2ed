"""GENIA's XML (spacy_globalner.corpora.genia_xml) against this project's GENIA.

tests/corpora/data holds three real sentences of GENIA 3.02 (a title with
terms of dropped types around kept ones, a sentence with nested terms and a
coordination, one with a coordination of cell types), marked up as the
GENIA project publishes them: GENIAcorpus3.02.merged.slice.xml with the <w>
tokens of GENIAcorpus3.02p, GENIAcorpus3.02.slice.xml the term-only
release's text. Converting either gives the tokens and entities of the same
sentences in ../shared/data/genia/train.jsonl.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_globalner.corpora import convert, infer_format, read_genia_xml
from spacy_globalner.corpora.genia_xml import SPLITS, split_words
from tests.helpers.spacy_commands import invoke_spacy

DATA = Path(__file__).parent / "data"
SLICES = ["GENIAcorpus3.02.merged.slice.xml", "GENIAcorpus3.02.slice.xml"]
# The slice's sentences: lines of genia/train.jsonl.
LINES = [1, 50, 108]


def jsonl_sentences(shared_data):
    lines = (shared_data / "genia" / "train.jsonl").read_text().splitlines()
    records = [json.loads(lines[n - 1]) for n in LINES]
    return [(r["tokens"], sorted(tuple(e) for e in r["entities"])) for r in records]


def sentences_of(docs):
    return [([t.text for t in d], sorted((s.start, s.end, s.label_) for s in d.spans["sc"])) for d in docs]


@pytest.mark.parametrize("name,as_user", [(SLICES[0], True), (SLICES[1], False)])
def test_cli_converts_the_xml_to_the_projects_genia(name, as_user, tmp_path, shared_data):
    """`spacy globalner convert` (format told from the .xml name) gives the
    jsonl's tokens and entities: nested terms kept, terms of other types and
    the fragments of a coordination dropped, a coordination one entity. The
    first slice is converted as the user types the command, a process of its
    own; the second by spaCy's CLI in the test process."""
    output = tmp_path / "slice.spacy"
    args = ["globalner", "convert", str(DATA / name), str(output)]
    if as_user:
        done = subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        code, printed = done.returncode, " ".join(done.stdout.split())
    else:
        code, printed = invoke_spacy(args)
        printed = " ".join(printed.split())
    assert code == 0, printed
    assert "format genia_xml" in printed
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(output).get_docs(nlp.vocab))
    assert sentences_of(docs) == jsonl_sentences(shared_data)
    nested = [(s.start, s.end) for s in docs[1].spans["sc"]]
    assert (13, 15) in nested and (13, 16) in nested


def test_a_coordination_of_two_types_is_left_out_and_counted(tmp_path):
    source = tmp_path / "mixed.xml"
    source.write_text(
        '<set><article><abstract><sentence>in <cons lex="(AND T_cell IL-2_gene)" '
        'sem="(AND G#cell_type G#DNA_domain_or_region)"><cons lex="T*">T</cons> and '
        '<cons lex="IL-2" sem="G#protein_molecule">IL-2</cons></cons> cells.</sentence></abstract></article></set>'
    )
    with pytest.warns(UserWarning, match="W300") as caught:
        docs = list(read_genia_xml(source, spacy.blank("en").vocab))
    assert "different types" in str(caught[0].message)
    assert [t.text for t in docs[0]] == ["in", "T", "and", "IL-2", "cells", "."]
    assert [(s.start, s.end, s.label_) for s in docs[0].spans["sc"]] == [(3, 4, "protein")]


def make_corpus(path: Path, n: int) -> None:
    sentence = '<sentence>s{} <cons lex="p" sem="G#protein_molecule">p</cons>.</sentence>'
    path.write_text("<set><article><abstract>" + "".join(sentence.format(i) for i in range(n))
                    + "</abstract></article></set>")


@pytest.fixture(scope="module")
def whole_corpus(tmp_path_factory):
    source = tmp_path_factory.mktemp("genia") / "GENIAcorpus3.02.xml"
    make_corpus(source, SPLITS["test"][1])
    return source


@pytest.mark.parametrize("split", list(SPLITS))
def test_split_is_the_literatures_in_corpus_order(split, whole_corpus, tmp_path):
    source = whole_corpus
    stats = convert(source, tmp_path / f"{split}.spacy", format="auto", split=split)
    first, last = SPLITS[split]
    assert stats.n_docs == last - first
    docs = DocBin().from_disk(tmp_path / f"{split}.spacy").get_docs(spacy.blank("en").vocab)
    assert next(docs).text == f"s{first} p ."


def test_a_split_needs_the_whole_corpus(tmp_path):
    with pytest.raises(ValueError, match="E313"):
        convert(DATA / SLICES[0], tmp_path / "x.spacy", format="genia_xml", split="dev")
    with pytest.raises(ValueError, match="E311"):
        convert(DATA / SLICES[0], tmp_path / "x.spacy", format="genia_xml", split="valid")
    with pytest.raises(ValueError, match="E316"):
        convert(DATA / SLICES[0], tmp_path / "x.spacy", format="genia", split="dev")


def test_bad_xml_is_a_catalogue_error(tmp_path):
    source = tmp_path / "bad.xml"
    source.write_text("<set><sentence>unclosed</set>")
    with pytest.raises(ValueError, match="E312"):
        list(read_genia_xml(source, spacy.blank("en").vocab))


@pytest.mark.parametrize(
    "text,last,tokens",
    [("2,250 nucleotides (nt) of", False, ["2,250", "nucleotides", "(", "nt", ")", "of"]),
     ("cells (IL-2(+)).", True, ["cells", "(", "IL-2(+)", ")", "."]),
     ("4.1, and", False, ["4.1", ",", "and"])],
)
def test_term_only_text_is_split_as_genia_tokenizes(text, last, tokens):
    assert split_words(text, ends_sentence=last) == tokens


def test_auto_tells_the_xml():
    assert infer_format(DATA / SLICES[0]) == "genia_xml"
