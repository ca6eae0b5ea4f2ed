"""The commands that run a pipeline (`annotate`, `calibrate`) use one torch
thread unless --threads says otherwise (0: torch's default), in the
environment a user has: no thread variables set."""
import os
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from tests.helpers.trained_pipelines import GENIA_DEV, genia_docs, trained_dir


def user_env():
    return {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}


def run(*args):
    result = subprocess.run([sys.executable, "-m", "spacy", "globalner", *map(str, args)],
                            capture_output=True, text=True, timeout=300, env=user_env())
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout + result.stderr


def torch_default_threads() -> int:
    code = "import torch; print(torch.get_num_threads())"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=user_env())
    return int(result.stdout)


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    path = tmp_path_factory.mktemp("threads") / "dev.spacy"
    DocBin(docs=genia_docs(spacy.blank("en"), limit=10, path=GENIA_DEV), store_user_data=True).to_disk(path)
    return path


@pytest.mark.parametrize("threads", [None, "0", "2"])
def test_annotate_uses_one_torch_thread_unless_told(tmp_path, threads):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("IL-2 gene expression requires NF-kappa B.\n", encoding="utf8")
    option = [] if threads is None else ["--threads", threads]
    output = run("annotate", trained_dir("global_pointer"), corpus, tmp_path / "out.jsonl", *option)
    expected = {None: 1, "0": torch_default_threads(), "2": 2}[threads]
    assert f"torch threads: {expected} (--threads)" in output


@pytest.mark.parametrize("threads", [None, "0"])
def test_calibrate_uses_one_torch_thread_unless_told(tmp_path, dev, threads):
    option = [] if threads is None else ["--threads", threads]
    output = run("calibrate", trained_dir("global_pointer"), dev, "--output", tmp_path / "out", *option)
    expected = 1 if threads is None else torch_default_threads()
    assert f"torch threads: {expected} (--threads)" in output
