"""`spacy globalner annotate` killed (SIGKILL) at random points and restarted
with --resume, as a user's batch job is: every input line ends up in the output
exactly once, in input order, with the records an uninterrupted run writes.
Also the progress bar: shown on a terminal with docs/s, hidden otherwise and
with --no-progress."""
import os
import random
import struct
import subprocess
import sys
import threading
import time

import pytest

if sys.platform == "win32":
    pytest.skip("SIGKILL and pseudo-terminals are POSIX", allow_module_level=True)

import fcntl  # noqa: E402
import pty  # noqa: E402
import termios  # noqa: E402

import spacy
import srsly

from spacy_globalner.scale import read_records
from spacy_globalner.scale.job import annotate_file, progress_path
from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import records_equal, sample_texts, trained_dir

N_DOCS = 5000
N_KILLS = 3
SEED = 0


def start(command, *, tty=False):
    """Start the command as a user would, on a terminal when `tty`.
    RETURNS the process and a function that returns what it printed (stderr only without `tty`)."""
    env = user_env()
    if not tty:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        return proc, lambda: proc.communicate(timeout=300)[1].decode("utf8", errors="replace")
    master, slave = pty.openpty()
    # A fresh pseudo-terminal is 0 columns wide; a user's is wider.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(command, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []

    def drain():  # a terminal's buffer is small: read it as the job writes
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()

    def output():
        proc.wait(timeout=300)
        reader.join(timeout=10)
        os.close(master)
        return b"".join(chunks).decode("utf8", errors="replace")

    return proc, output


def kill_when(proc, path, size, timeout=300):
    """SIGKILL the process once `path` holds `size` bytes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and path.stat().st_size >= size:
            proc.kill()
            break
        time.sleep(0.002)
    proc.wait(timeout=60)


def test_killed_and_resumed_run_writes_each_record_once(tmp_path):
    model = trained_dir("lcrf_ner")
    texts = sample_texts(40)
    corpus = tmp_path / "corpus.jsonl"
    srsly.write_jsonl(corpus, ({"id": f"d{i}", "text": texts[i % len(texts)]} for i in range(N_DOCS)))
    expected_path = tmp_path / "expected.jsonl"
    annotate_file(spacy.load(model), corpus, expected_path)
    total = expected_path.stat().st_size
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "spacy", "globalner", "annotate", str(model), str(corpus), str(out), "--resume"]
    rng = random.Random(SEED)
    # Kill points as shares of the full output; after a resume the output is cut
    # back to the last checkpoint, so each point lies beyond the previous one.
    for i, share in enumerate(sorted(rng.uniform(0.1, 0.9) for _ in range(N_KILLS))):
        proc, stderr = start(command + (["--no-progress"] if i == 0 else []), tty=i == 0)
        kill_when(proc, out, int(share * total))
        assert proc.returncode == -9, (proc.returncode, stderr())
        printed = stderr()
        assert "docs/s" not in printed  # --no-progress on a terminal; no terminal
    saved = srsly.read_json(progress_path(out))
    assert out.stat().st_size > saved["output_bytes"]  # work past the checkpoint, to be redone
    proc, stderr = start(command, tty=True)
    printed = stderr()
    assert proc.returncode == 0, printed
    assert "docs/s" in printed and f"Resumed after input line {saved['input_line']}" in printed
    got = read_records(out)
    assert [r["id"] for r in got] == [f"d{i}" for i in range(N_DOCS)]
    records_equal(got, read_records(expected_path))
