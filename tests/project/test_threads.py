"""The project's `all` workflow runs every command that trains or predicts on
${vars.threads} torch threads (1), spacy train and spacy evaluate included,
which have no threads option of their own."""
import os
import subprocess
import sys

import srsly

from tests.helpers import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

import train_budget  # noqa: E402

PROJECT = srsly.read_yaml(REPO_ROOT / "project" / "project.yml")
# Commands of `all` that load no model.
NO_MODEL = {"convert"}


def user_env():
    return {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}


def test_every_command_of_all_that_runs_a_model_passes_the_threads():
    assert PROJECT["vars"]["threads"] == 1
    commands = {command["name"]: command for command in PROJECT["commands"]}
    for name in PROJECT["workflows"]["all"]:
        if name in NO_MODEL:
            continue
        for line in commands[name]["script"]:
            assert "${vars.threads}" in line, (name, line)


def test_run_threads_starts_the_command_on_that_many_threads():
    code = "import torch; print(torch.get_num_threads())"
    script = REPO_ROOT / "project" / "scripts" / "run_threads.py"

    def threads(n):
        result = subprocess.run([sys.executable, str(script), str(n), "python", "-c", code],
                                capture_output=True, text=True, env=user_env(), timeout=120)
        return int(result.stdout)

    default = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=user_env())
    assert threads(1) == 1
    assert threads(0) == int(default.stdout)


def test_train_budget_trains_on_one_thread_unless_told(monkeypatch):
    calls = []
    monkeypatch.setattr(train_budget.subprocess, "call", lambda command, env: calls.append((command, env)) or 0)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    config = str(REPO_ROOT / "configs" / "global_pointer.cfg")
    assert train_budget.main([config, "20", "--output", "out"]) == 0
    assert train_budget.main([config, "20", "--threads", "0", "--output", "out"]) == 0
    (first, one), (second, default) = calls
    assert one["OMP_NUM_THREADS"] == "1" and "OMP_NUM_THREADS" not in default
    assert "--threads" not in first + second and first[-2:] == ["--output", "out"] == second[-2:]
