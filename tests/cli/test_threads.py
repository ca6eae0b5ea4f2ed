"""The commands that run a pipeline (`annotate`, `calibrate`) use one torch
thread unless --threads says otherwise (0: torch's default), in the
environment a user has: no thread variables set.

Each command runs once as the user types it, without --threads. The cases
with --threads run one after another in a single fresh process of their own,
started in the user's environment, which reads torch's default threads
before any command sets them."""
import json
import subprocess
import sys

import pytest

from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import trained_dir, write_genia_dev


def run(*args):
    result = subprocess.run([sys.executable, "-m", "spacy", "globalner", *map(str, args)],
                            capture_output=True, text=True, timeout=300, env=user_env())
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout + result.stderr


# spaCy's CLI as `python -m spacy` runs it, once per case, in this one process.
# --threads 0 leaves the threads a command finds, so those cases come first.
TOLD_SCRIPT = """
import json, sys
import torch
from spacy.cli import app
from spacy.cli._util import COMMAND
from spacy.util import registry
from typer.testing import CliRunner

default = torch.get_num_threads()
registry.cli.get_all()
printed = {}
for case, args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(app, args, prog_name=COMMAND)
    printed[case] = [result.exit_code, result.output, repr(result.exception)]
print(json.dumps({"default": default, "printed": printed}))
"""
TOLD = [("annotate", "0"), ("calibrate", "0"), ("annotate", "2")]


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    return write_genia_dev(tmp_path_factory.mktemp("threads") / "dev.spacy", limit=10)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("threads") / "corpus.txt"
    path.write_text("IL-2 gene expression requires NF-kappa B.\n", encoding="utf8")
    return path


@pytest.fixture(scope="module")
def told(tmp_path_factory, dev, corpus):
    """{"default": torch's default threads, "printed": {"annotate 0": [exit
    code, output, exception], ...}} of the TOLD cases."""
    folder = tmp_path_factory.mktemp("told")
    model = str(trained_dir("global_pointer"))
    cases = []
    for i, (command, threads) in enumerate(TOLD):
        if command == "annotate":
            args = ["globalner", "annotate", model, str(corpus), str(folder / f"out{i}.jsonl")]
        else:
            args = ["globalner", "calibrate", model, str(dev), "--output", str(folder / f"out{i}")]
        cases.append((f"{command} {threads}", [*args, "--threads", threads]))
    result = subprocess.run([sys.executable, "-c", TOLD_SCRIPT, json.dumps(cases)],
                            capture_output=True, text=True, timeout=300, env=user_env())
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_annotate_uses_one_torch_thread_unless_told(tmp_path, corpus):
    output = run("annotate", trained_dir("global_pointer"), corpus, tmp_path / "out.jsonl")
    assert "torch threads: 1 (--threads)" in output


def test_calibrate_uses_one_torch_thread_unless_told(tmp_path, dev):
    output = run("calibrate", trained_dir("global_pointer"), dev, "--output", tmp_path / "out")
    assert "torch threads: 1 (--threads)" in output


@pytest.mark.parametrize("command,threads", TOLD)
def test_threads_as_told(told, command, threads):
    exit_code, output, exception = told["printed"][f"{command} {threads}"]
    assert exit_code == 0, output + exception
    expected = told["default"] if threads == "0" else int(threads)
    assert f"torch threads: {expected} (--threads)" in output
