"""annotate_file, the job behind `spacy globalner annotate`: malformed lines
reported with their numbers, set aside or stopping the job, and a stopped job
resumed from its progress file."""
import warnings

import pytest
import spacy
import srsly

from spacy_globalner.scale import doc_to_record, read_records
from spacy_globalner.scale.job import annotate_file, progress_path
from tests.helpers.trained_pipelines import records_equal, sample_texts, trained_dir

# Each kind of malformed line, with the code its error carries.
MALFORMED = {
    "bad JSON": (b'{"id": "x1", "text": "unterminated}', "E501"),
    "no text": (b'{"id": "x2", "txt": "a typo in the key"}', "E401"),
    "not an object": (b'["a", "list"]', "E401"),
    "text not a string": (b'{"id": "x3", "text": 42}', "E502"),
    "invalid UTF-8": (b'{"id": "x4", "text": "caf\xe9 latin-1"}', "E500"),
}


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(trained_dir("lcrf_ner"))


def write_corpus(path, texts, bad=None, bad_at=()):
    """A .jsonl corpus of texts (ids d0, d1, ...), with the bad line inserted
    before the given indices. RETURNS the 1-based line numbers of the bad lines."""
    lines, bad_lines = [], []
    for i, text in enumerate(texts):
        if i in bad_at:
            lines.append(bad)
            bad_lines.append(len(lines))
        lines.append(srsly.json_dumps({"id": f"d{i}", "text": text}).encode("utf8"))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return bad_lines


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_line_set_aside(nlp, tmp_path, kind):
    bad, code = MALFORMED[kind]
    texts = sample_texts(6)
    corpus = tmp_path / "corpus.jsonl"
    bad_lines = write_corpus(corpus, texts, bad, bad_at=(0, 3, len(texts) - 1))
    out, errors = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
    summary = annotate_file(nlp, corpus, out, errors_path=errors, batch_size=4)
    assert summary["records"] == len(texts) and summary["errors"] == len(bad_lines)
    # Every good line, in order; each bad one in the error file with its number.
    expected = [doc_to_record(doc, doc_id=f"d{i}") for i, doc in enumerate(nlp.pipe(texts))]
    records_equal(read_records(out), expected)
    entries = read_records(errors)
    assert [e["line"] for e in entries] == bad_lines
    for entry, line_no in zip(entries, bad_lines):
        assert entry["error"].startswith(f"[{code}] {corpus}, line {line_no}:")
        assert entry["text"] == bad.decode("utf8", errors="replace")


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_malformed_line_stops_then_resumes(nlp, tmp_path, kind):
    bad, code = MALFORMED[kind]
    texts = sample_texts(6)
    corpus = tmp_path / "corpus.jsonl"
    (bad_line,) = write_corpus(corpus, texts, bad, bad_at=(4,))
    out = tmp_path / "out.jsonl"
    with pytest.raises(ValueError, match=rf"\[E506\].*\[{code}\] .*line {bad_line}:.* 4 record"):
        annotate_file(nlp, corpus, out, batch_size=3)
    assert [r["id"] for r in read_records(out)] == ["d0", "d1", "d2", "d3"]
    # The user fixes the line; --resume goes on from it.
    write_corpus(corpus, texts, b'{"id": "fixed", "text": "IL-2 mRNA"}', bad_at=(4,))
    summary = annotate_file(nlp, corpus, out, resume=True, batch_size=3)
    n = len(texts) + 1
    assert summary == {"records": n, "errors": 0, "new_records": n - 4, "new_errors": 0, "start_line": 4}
    ids = [r["id"] for r in read_records(out)]
    assert ids == ["d0", "d1", "d2", "d3", "fixed"] + [f"d{i}" for i in range(4, len(texts))]


def test_plain_text_invalid_utf8(nlp, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"IL-2 mRNA\n\xff\xfe broken\n\nNF-kappa B\n")
    out, errors = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
    summary = annotate_file(nlp, corpus, out, errors_path=errors)
    assert [r["text"] for r in read_records(out)] == ["IL-2 mRNA", "", "NF-kappa B"]
    assert summary["errors"] == 1
    (entry,) = read_records(errors)
    assert entry["line"] == 2 and entry["error"].startswith("[E500]")


def test_resume_checks_its_input(nlp, tmp_path):
    texts = sample_texts(4)
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, texts)
    out = tmp_path / "out.jsonl"
    annotate_file(nlp, corpus, out)
    assert progress_path(out).is_file()
    # Lines appended to a finished corpus: --resume annotates just those.
    with corpus.open("ab") as file_:
        file_.write(b'{"id": "new", "text": "IL-2"}\n')
    summary = annotate_file(nlp, corpus, out, resume=True)
    assert (summary["new_records"], summary["records"]) == (1, len(texts) + 1)
    # Another input, or an output changed behind the job's back: an error.
    corpus.write_bytes(b'{"text": "something else entirely"}\n' * 40)
    with pytest.raises(ValueError, match=r"\[E503\]"):
        annotate_file(nlp, corpus, out, resume=True)
    write_corpus(corpus, texts)
    annotate_file(nlp, corpus, out)
    out.write_bytes(b"")
    with pytest.raises(ValueError, match=r"\[E504\]"):
        annotate_file(nlp, corpus, out, resume=True)
    with pytest.raises(ValueError, match=r"\[E505\]"):
        annotate_file(nlp, corpus, out, errors_path=out)


@pytest.mark.parametrize("option", [["--resume"], ["--errors", "bad.jsonl"], ["--max-length", "2000000"]])
def test_ray_rejects_resume_errors_and_max_length(tmp_path, option):
    from typer.testing import CliRunner

    from spacy_globalner.cli import globalner_cli

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "IL-2"}\n', encoding="utf8")
    args = ["annotate", "model", str(corpus), str(tmp_path / "out.jsonl"), "--ray", *option]
    result = CliRunner().invoke(globalner_cli, args)
    assert result.exit_code == 1
    assert "E507" in result.output and option[0] in result.output


@pytest.mark.parametrize("name", ["lcrf_ner", "global_pointer"])
def test_memory_zones_keep_the_records(tmp_path, name):
    """Docs run in memory zones of 3 lines: strings freed after each zone must
    not change what later zones predict or write."""
    nlp = spacy.load(trained_dir(name))
    texts = [f"Sample {i} : {text}" for i, text in enumerate(sample_texts(12))]
    corpus = tmp_path / "corpus.jsonl"
    srsly.write_jsonl(corpus, ({"id": f"d{i}", "text": t} for i, t in enumerate(texts)))
    out = tmp_path / "out.jsonl"
    annotate_file(nlp, corpus, out, zone_size=3, batch_size=2)
    fresh = spacy.load(trained_dir(name))
    expected = [doc_to_record(doc, doc_id=f"d{i}") for i, doc in enumerate(fresh.pipe(texts, batch_size=2))]
    records_equal(read_records(out), expected)
    # Strings met only inside the zones are gone from the vocab afterwards.
    assert "Sample" in fresh.vocab.strings and "Sample" not in nlp.vocab.strings


def test_resume_after_an_unterminated_last_line(nlp, tmp_path):
    """A corpus whose last line had no newline, then grew: the newline that ends
    that line is not an empty document."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"IL-2 mRNA\nNF-kappa B")
    out = tmp_path / "out.jsonl"
    annotate_file(nlp, corpus, out)
    with corpus.open("ab") as file_:
        file_.write(b"\r\nCD28\n")
    summary = annotate_file(nlp, corpus, out, resume=True)
    assert [r["text"] for r in read_records(out)] == ["IL-2 mRNA", "NF-kappa B", "CD28"]
    assert summary["start_line"] == 2


def test_bad_options(nlp, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("IL-2\n", encoding="utf8")
    for option in ({"batch_size": 0}, {"n_process": 0}, {"zone_size": -1}, {"checkpoint_every": 1.5}):
        with pytest.raises(ValueError, match=rf"\[E403\] {list(option)[0]}"):
            annotate_file(nlp, corpus, tmp_path / "out.jsonl", **option)
    with pytest.raises(ValueError, match=r"\[E400\]"):
        annotate_file(nlp, tmp_path / "missing.txt", tmp_path / "out.jsonl")


def test_annotate_cli_gives_a_line_without_id_its_line_number(tmp_path):
    """The output joins back to the input: a record whose line has no "id"
    carries the line's number (from 1, blank lines counted), also after --resume."""
    from typer.testing import CliRunner

    from spacy_globalner.cli import globalner_cli

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "IL-2 gene"}\n\n{"id": "x", "text": "NF-kappa B"}\n{"text": "T cells"}\n',
                      encoding="utf8")
    out = tmp_path / "out.jsonl"
    args = ["annotate", str(trained_dir("lcrf_ner")), str(corpus), str(out), "--no-progress"]
    result = CliRunner().invoke(globalner_cli, args)
    assert result.exit_code == 0, result.output
    assert [(r["id"], r["text"]) for r in read_records(out)] == [
        ("1", "IL-2 gene"), ("x", "NF-kappa B"), ("4", "T cells")]
    with corpus.open("a", encoding="utf8") as file_:
        file_.write('{"text": "IL-2"}\n{"id": null, "text": "CD4"}\n')
    result = CliRunner().invoke(globalner_cli, args + ["--resume"])
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in read_records(out)] == ["1", "x", "4", "5", "6"]


def test_an_input_without_documents_warns_once_a_run_finds_none(nlp, tmp_path):
    corpus = tmp_path / "blank.jsonl"
    corpus.write_bytes(b"\n\n")
    out = tmp_path / "out.jsonl"
    with pytest.warns(UserWarning, match=r"\[W500\] No documents were read from"):
        summary = annotate_file(nlp, corpus, out)
    assert summary["records"] == 0 and out.read_bytes() == b""
    # A finished job resumed with nothing new wrote its records before: no warning.
    write_corpus(corpus, sample_texts(2))
    annotate_file(nlp, corpus, out)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert annotate_file(nlp, corpus, out, resume=True)["new_records"] == 0
    assert not [w for w in caught if "[W500]" in str(w.message)]
