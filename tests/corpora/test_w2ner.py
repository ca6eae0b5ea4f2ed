"""W2NER-style JSON (spacy_globalner.corpora.w2ner) on real GENIA sentences.

The file is written as W2NER's GENIA files are (one JSON list, entities as
token-index lists) from sentences of ../shared/data/genia/train.jsonl, with
one discontinuous entity that GENIA's coordinations hold: "IFN-gamma ...
mRNAs" in "the IFN-gamma and GM-CSF mRNAs" (train.jsonl line 98, tokens 30
and 33), as W2NER's files list it.
"""
import json
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_globalner.corpora import convert, infer_format, read_w2ner
from tests.helpers import SHARED_DATA

N = 120
IFN_GAMMA_MRNA = {"index": [30, 33], "type": "RNA"}


@pytest.fixture()
def genia(shared_data):
    lines = (shared_data / "genia" / "train.jsonl").read_text().splitlines()[:N]
    return [json.loads(line) for line in lines]


def write_w2ner(path, records, extra=None):
    data = [{"sentence": r["tokens"], "ner": [{"index": list(range(s, e)), "type": t} for s, e, t in r["entities"]]}
            for r in records]
    for number, entity in (extra or {}).items():
        data[number]["ner"].append(entity)
    path.write_text(json.dumps(data))
    return path


def test_cli_converts_w2ner_json_and_reports_the_discontinuous_entity(genia, tmp_path):
    source = write_w2ner(tmp_path / "train.json", genia, {97: IFN_GAMMA_MRNA})
    output = tmp_path / "train.spacy"
    done = subprocess.run([sys.executable, "-m", "spacy", "globalner", "convert", str(source), str(output)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    printed = " ".join(done.stdout.split())
    assert "format w2ner" in printed and "discontinuous entity" in printed
    assert "W303" in done.stderr and "left out of" in done.stderr and "1." in done.stderr
    docs = list(DocBin().from_disk(output).get_docs(spacy.blank("en").vocab))
    assert [[t.text for t in d] for d in docs] == [r["tokens"] for r in genia]
    got = [sorted((s.start, s.end, s.label_) for s in d.spans["sc"]) for d in docs]
    assert got == [sorted(tuple(e) for e in r["entities"]) for r in genia]
    # never merged into the contiguous span 30..34 it lies in
    assert got[97].count((30, 34, "RNA")) == 1


def test_discontinuous_entities_are_counted(genia, tmp_path):
    source = write_w2ner(tmp_path / "x.json", genia, {97: IFN_GAMMA_MRNA, 3: {"index": [0, 2, 3], "type": "DNA"}})
    with pytest.warns(UserWarning, match="W303") as caught:
        stats = convert(source, tmp_path / "x.spacy", format="w2ner")
    assert stats.repairs == {"discontinuous entity (left out: a span holds contiguous tokens only)": 2}
    w303 = next(str(w.message) for w in caught if "W303" in str(w.message))
    assert ": 2." in w303 and "sentence 4" in w303


@pytest.mark.parametrize(
    "value,problem",
    [({"sentence": "IL-2 gene"}, "'sentence'"), ({"sentence": ["IL-2"], "ner": [{"index": [], "type": "DNA"}]},
                                                 "entity"), ("text", "not an object")],
)
def test_bad_sentences_are_catalogue_errors(value, problem, tmp_path):
    source = tmp_path / "bad.json"
    source.write_text(json.dumps([{"sentence": ["ok"], "ner": []}, value]))
    with pytest.raises(ValueError, match="E315") as caught:
        list(read_w2ner(source, spacy.blank("en").vocab))
    assert "sentence 2" in str(caught.value) and problem in str(caught.value)


def test_auto_tells_w2ner_from_cluener(tmp_path):
    assert infer_format(write_w2ner(tmp_path / "dev.json", [])) == "w2ner"
    cluener = SHARED_DATA / "cluener" / "dev.json"
    if cluener.exists():
        assert infer_format(cluener) == "cluener"
