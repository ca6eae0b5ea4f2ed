"""GermEval's two levels under keys of their own (read_germeval level_keys,
convert --level-keys)."""
import pytest
import spacy
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_globalner.cli import globalner_cli
from spacy_globalner.corpora import convert, read_germeval

LINES = """Die\tO\tO
ADAC\tB-ORG\tB-ORG
GT\tI-ORG\tO
Masters\tI-ORG\tO
in\tO\tO
Berlin\tB-LOC\tO
.\tO\tO

Bonner\tB-LOCderiv\tO
Uni\tB-ORG\tO
Bonn\tI-ORG\tB-LOC
"""


@pytest.fixture
def germeval_file(tmp_path):
    path = tmp_path / "germ.dev.iob2"
    path.write_text(LINES, encoding="utf8")
    return path


def entities(spans):
    return [(span.start, span.end, span.label_) for span in spans]


def test_each_level_goes_to_its_own_key(germeval_file):
    docs = list(read_germeval(germeval_file, spacy.blank("de").vocab, level_keys=["outer", "inner"]))
    assert entities(docs[0].spans["outer"]) == [(1, 4, "ORG"), (5, 6, "LOC")]
    assert entities(docs[0].spans["inner"]) == [(1, 2, "ORG")]
    assert entities(docs[1].spans["outer"]) == [(0, 1, "LOCderiv"), (1, 3, "ORG")]
    assert entities(docs[1].spans["inner"]) == [(2, 3, "LOC")]
    for doc in docs:  # both levels stay under spans_key, the outer layer in doc.ents
        assert sorted(entities(doc.spans["sc"])) == sorted(entities(doc.spans["outer"]) + entities(doc.spans["inner"]))
        assert entities(doc.ents) == entities(doc.spans["outer"])
    plain = list(read_germeval(germeval_file, spacy.blank("de").vocab))
    assert "outer" not in plain[0].spans


def test_limit_applies_to_the_levels(germeval_file):
    docs = list(read_germeval(germeval_file, spacy.blank("de").vocab, limit=1, level_keys=("o", "i")))
    assert len(docs) == 1 and entities(docs[0].spans["i"]) == [(1, 2, "ORG")]


@pytest.mark.parametrize("keys", [["outer"], ["same", "same"], "oi", ["outer", ""]])
def test_bad_level_keys_raise(germeval_file, keys):
    with pytest.raises(ValueError, match="E330"):
        list(read_germeval(germeval_file, spacy.blank("de").vocab, level_keys=keys))


def test_convert_and_command_line(germeval_file, tmp_path):
    convert(germeval_file, tmp_path / "a.spacy", format="germeval", level_keys=["outer", "inner"])
    argv = ["convert", str(germeval_file), str(tmp_path / "b.spacy"), "--format", "germeval",
            "--level-keys", "outer", "inner"]
    result = CliRunner().invoke(globalner_cli, argv)
    assert result.exit_code == 0, result.output
    for name in ("a.spacy", "b.spacy"):
        docs = list(DocBin().from_disk(tmp_path / name).get_docs(spacy.blank("de").vocab))
        assert entities(docs[1].spans["inner"]) == [(2, 3, "LOC")]
    with pytest.raises(ValueError, match="E331"):
        convert(germeval_file, tmp_path / "c.spacy", format="conll", level_keys=["outer", "inner"])
