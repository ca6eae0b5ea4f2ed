"""The records writer and reader shared by the annotate command and the Ray
path, and the annotate command as users run it."""
import subprocess
import sys

import pytest
import spacy
from typer.testing import CliRunner

from spacy_globalner.cli import globalner_cli
from spacy_globalner.scale import annotate, doc_to_record, read_records, read_texts, write_jsonl
from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import records_equal, sample_texts, trained_dir


def test_records_round_trip_jsonl(tmp_path):
    nlp = spacy.load(trained_dir("global_pointer"))
    texts = sample_texts(8)
    corpus = tmp_path / "corpus.jsonl"
    write_jsonl(corpus, ({"id": f"d{i}", "text": t} for i, t in enumerate(texts)))
    assert [t for _, t in read_texts(corpus)] == texts
    count = write_jsonl(tmp_path / "out.jsonl", annotate(nlp, read_texts(corpus), batch_size=3))
    assert count == len(texts)
    records = read_records(tmp_path / "out.jsonl")
    assert [r["id"] for r in records] == [f"d{i}" for i in range(len(texts))]
    direct = [doc_to_record(doc, doc_id=f"d{i}") for i, doc in enumerate(nlp.pipe(texts))]
    records_equal(records, direct)
    for record in records:
        for span in record["spans"]:
            assert record["text"][span["start_char"]:span["end_char"]]
            assert isinstance(span["score"], float)


def test_read_texts_plain_and_errors(tmp_path):
    plain = tmp_path / "corpus.txt"
    plain.write_text("one\n\nthree\n", encoding="utf8")
    assert list(read_texts(plain)) == [("1", "one"), ("2", ""), ("3", "three")]
    with pytest.raises(ValueError, match=r"\[E400\]"):
        list(read_texts(tmp_path / "missing.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"txt": "no"}\n', encoding="utf8")
    with pytest.raises(ValueError, match=r"\[E401\].*line 2"):
        list(read_texts(bad))


def test_annotate_command_in_a_subprocess(tmp_path):
    """The user's command line: `spacy globalner annotate` (spaCy's spacy_cli
    entry point), with a user's environment."""
    texts = sample_texts(4)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf8")
    out = tmp_path / "out.jsonl"
    env = user_env()
    run = [sys.executable, "-m", "spacy", "globalner", "annotate", str(trained_dir("global_pointer"))]
    done = subprocess.run([*run, str(corpus), str(out)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert f"Annotated {len(texts)} document(s)" in " ".join(done.stdout.split())
    nlp = spacy.load(trained_dir("global_pointer"))
    records_equal(read_records(out), [doc_to_record(doc, doc_id=str(i)) for i, doc in enumerate(nlp.pipe(texts), 1)])
    # Bad input: the catalogue's error, exit code 1, no traceback
    done = subprocess.run([*run, str(tmp_path / "missing.jsonl"), str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1 and "E400" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_scale_cli_matches_pipe(tmp_path):
    texts = sample_texts(6)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(globalner_cli, ["annotate", str(trained_dir("global_pointer")), str(corpus), str(out)])
    assert result.exit_code == 0, result.output
    nlp = spacy.load(trained_dir("global_pointer"))
    records_equal(read_records(out), [doc_to_record(doc, doc_id=str(i)) for i, doc in enumerate(nlp.pipe(texts), 1)])
