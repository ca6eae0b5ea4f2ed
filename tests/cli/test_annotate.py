"""`spacy globalner annotate` as a user runs it: a UTF-16 or UTF-32 corpus is
refused before anything is written, one output takes one run at a time, a
malformed line is reported in plain words, a document over max_length names
--max-length, an empty input warns, and --resume goes on in a file re-encoded
as E500 advises.

Each behaviour runs the command as the user types it, a process of its own;
the further cases of a behaviour run spaCy's CLI in the test process."""
import subprocess
import sys
import time

import pytest
import srsly

from tests.helpers.spacy_commands import invoke_spacy, user_env
from tests.helpers.trained_pipelines import trained_dir

TEXTS = ["IL-2 gene expression requires NF-kappa B.", "Human T cells were stimulated."]



def annotate(*args, timeout=300, as_user=True):
    """(exit code, output) of `python -m spacy globalner annotate MODEL *args`:
    a process of its own `as_user`, else in the test process."""
    args = ["globalner", "annotate", str(trained_dir("global_pointer")), *map(str, args), "--no-progress"]
    if not as_user:
        code, printed = invoke_spacy(args)
        return code, " ".join(printed.split())
    result = subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True,
                            timeout=timeout, env=user_env())
    return result.returncode, " ".join((result.stdout + result.stderr).split())


def jsonl(texts):
    return "".join(srsly.json_dumps({"text": text}) + "\n" for text in texts)


@pytest.mark.parametrize(
    "encoding,named,iconv,as_user",
    [("utf-16", "UTF-16-LE", "UTF-16", True), ("utf-16-le", "UTF-16-LE", "UTF-16-LE", False),
     ("utf-16-be", "UTF-16-BE", "UTF-16-BE", False), ("utf-32", "UTF-32-LE", "UTF-32", False),
     ("utf-32-be", "UTF-32-BE", "UTF-32-BE", False)],
)
def test_a_wide_encoding_is_refused_before_anything_is_written(tmp_path, encoding, named, iconv, as_user):
    """With and without a byte order mark (then by its NUL bytes); with
    --errors too, where a reader that decoded the file as UTF-8 would set
    line 1 aside as malformed and write the rest as text full of NULs."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(jsonl(TEXTS).encode(encoding))
    rc, output = annotate(corpus, tmp_path / "out.jsonl", "--errors", tmp_path / "bad.jsonl", as_user=as_user)
    assert rc == 1
    assert f"[E508] {corpus} is encoded as {named}, not UTF-8" in output, output
    assert f"iconv -f {iconv} -t UTF-8" in output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.jsonl"]


def test_a_second_run_on_one_output_is_refused_while_the_first_holds_it(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(jsonl(TEXTS * 20000), encoding="utf8")
    output = tmp_path / "out.jsonl"
    lock = tmp_path / "out.jsonl.lock"
    command = [sys.executable, "-m", "spacy", "globalner", "annotate", str(trained_dir("global_pointer")),
               str(corpus), str(output), "--no-progress"]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=user_env())
    try:
        deadline = time.monotonic() + 240
        while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert lock.exists() and first.poll() is None, "the first run never held the lock"
        rc, said = annotate(corpus, output)
        assert rc == 1
        assert f"[E509] {output} is being written by another annotate run (process {first.pid} on" in said, said
        assert first.poll() is None  # still writing, untouched
    finally:
        first.kill()  # as a crash would: the lock stays behind
        first.wait()
    assert lock.exists()
    # The lock's process is gone: the next run takes the output over, and
    # leaves no lock behind.
    small = tmp_path / "small.jsonl"
    small.write_text(jsonl(TEXTS), encoding="utf8")
    rc, said = annotate(small, output, as_user=False)
    assert rc == 0, said
    assert len(output.read_text(encoding="utf8").splitlines()) == len(TEXTS)
    assert not lock.exists()


def test_a_malformed_line_is_described_once_in_plain_words(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(jsonl(TEXTS[:1]) + '{"text": "unterminated\n', encoding="utf8")
    rc, output = annotate(corpus, tmp_path / "out.jsonl")
    assert rc == 1
    assert "line 2: not valid JSON (Unterminated string starting at: line 1 column 10 (char 9))" in output, output
    assert "when when" not in output


def test_a_document_over_max_length_stops_with_the_option_that_takes_it(tmp_path):
    """A 1.2M-character document, over spaCy's default nlp.max_length: without
    --max-length the run stops at its line and names the option; --resume with
    it annotates the document whole and goes on."""
    long_text = (" ".join(TEXTS) + " ") * (1_200_000 // (len(" ".join(TEXTS)) + 1) + 1)
    long_text = long_text[:1_200_000]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join([TEXTS[0], long_text, TEXTS[1]]) + "\n", encoding="utf8")
    output = tmp_path / "out.jsonl"
    rc, said = annotate(corpus, output, as_user=False)
    assert rc == 1
    assert f"[E510] {corpus}, line 2: the document has 1200000 characters, more than the pipeline's " \
           "max_length of 1000000. Pass --max-length 1200000" in said, said
    assert len(output.read_text(encoding="utf8").splitlines()) == 1
    rc, said = annotate(corpus, output, "--max-length", 1_200_000, "--resume")
    assert rc == 0, said
    records = [srsly.json_loads(line) for line in output.read_text(encoding="utf8").splitlines()]
    assert [record["id"] for record in records] == ["1", "2", "3"]
    assert len(records[1]["text"]) == 1_200_000


def test_an_empty_input_warns(tmp_path):
    """As the user sees it; a .jsonl of blank lines, and a resumed run that
    adds nothing to a corpus of documents, in tests/scale/test_job.py."""
    corpus = tmp_path / "empty.txt"
    corpus.write_bytes(b"")
    output = tmp_path / "out.jsonl"
    rc, said = annotate(corpus, output)
    assert rc == 0, said
    assert f"[W500] No documents were read from {corpus}" in said, said
    assert output.read_bytes() == b""


def test_resume_goes_on_in_the_file_re_encoded_as_the_error_advises(tmp_path):
    """A Windows-1252 line stops the run (E500), which names a re-encoded copy;
    --resume on that copy goes on from the line, and the output is what one
    run over the copy writes."""
    lines = [*TEXTS, "Café-au-lait spots and IL-2 .", "T cells ."]
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes("\n".join(lines).encode("cp1252") + b"\n")
    output = tmp_path / "out.jsonl"
    rc, said = annotate(corpus, output, as_user=False)
    assert rc == 1
    recoded = tmp_path / "corpus.utf8.txt"
    assert f"[E500] {corpus}, line 3: not valid UTF-8" in said, said
    assert f"`iconv -f CP1252 -t UTF-8 {corpus} > {recoded}`, and annotate that file with --resume" in said
    # What `iconv -f CP1252 -t UTF-8 corpus.txt > corpus.utf8.txt` writes.
    recoded.write_bytes(corpus.read_bytes().decode("cp1252").encode("utf8"))
    rc, said = annotate(recoded, output, "--resume")
    assert rc == 0, said
    assert "Resumed after input line 2: 2 new record(s)" in said, said
    whole = tmp_path / "whole.jsonl"
    assert annotate(recoded, whole, as_user=False)[0] == 0
    assert output.read_bytes() == whole.read_bytes()
    # A file whose bytes before the resume point differ is still refused.
    other = tmp_path / "other.txt"
    other.write_text("\n".join(["Something else .", *lines[1:]]) + "\n", encoding="utf8")
    rc, said = annotate(other, output, "--resume", as_user=False)
    assert rc == 1 and "[E503]" in said, said
