"""scripts/run.py: the project's `all` workflow runs every command that trains
or predicts on ${vars.threads} torch threads (1), spacy train and spacy
evaluate included, which have no threads option of their own; its `train`
step sets its budget through `run.py THREADS train`, which must give every
shipped config the overrides it accepts: the schedule's total_steps where
there is one (else E440), a warm-up shorter than the run (else E442), none
where the rate is constant (else a config error)."""
import subprocess
import sys

import pytest
import srsly

from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import one_in_a_subprocess, user_env

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

import run  # noqa: E402

from common import budget_overrides  # noqa: E402

PROJECT = srsly.read_yaml(REPO_ROOT / "project" / "project.yml")
# Commands of `all` that load no model.
NO_MODEL = {"convert"}
CPU_CONFIGS = sorted(path for path in (REPO_ROOT / "configs").glob("*.cfg") if "trf" not in path.stem)
WARMUP = "--training.optimizer.learn_rate.warmup_steps"


def test_every_command_of_all_that_runs_a_model_passes_the_threads():
    assert PROJECT["vars"]["threads"] == 1
    commands = {command["name"]: command for command in PROJECT["commands"]}
    for name in PROJECT["workflows"]["all"]:
        if name in NO_MODEL:
            continue
        for line in commands[name]["script"]:
            assert "${vars.threads}" in line, (name, line)


def test_a_command_starts_on_that_many_threads():
    code = "import torch; print(torch.get_num_threads())"
    script = REPO_ROOT / "project" / "scripts" / "run.py"

    def threads(n):
        result = subprocess.run([sys.executable, str(script), str(n), "python", "-c", code],
                                capture_output=True, text=True, env=user_env(), timeout=120)
        return int(result.stdout)

    default = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=user_env())
    assert threads(1) == 1
    assert threads(0) == int(default.stdout)


def test_train_runs_spacy_train_on_the_threads_given(monkeypatch):
    calls = []
    monkeypatch.setattr(run.subprocess, "call", lambda command, env: calls.append((command, env)) or 0)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    config = str(REPO_ROOT / "configs" / "global_pointer.cfg")
    assert run.main(["1", "train", config, "20", "--output", "out"]) == 0
    assert run.main(["0", "train", config, "20", "--output", "out"]) == 0
    (first, one), (second, default) = calls
    assert one["OMP_NUM_THREADS"] == "1" and "OMP_NUM_THREADS" not in default
    assert first[:5] == [sys.executable, "-m", "spacy", "train", config] == second[:5]
    assert first[first.index("--training.max_steps") + 1] == "20"
    assert first[-2:] == ["--output", "out"] == second[-2:]


def test_without_threads_or_a_budget_it_prints_its_usage(capsys):
    assert run.main(["python", "-c", "pass"]) == 2
    assert run.main(["1", "train", "../configs/global_pointer.cfg"]) == 2
    assert "STEPS" in capsys.readouterr().err


# Every shipped CPU config at two budgets: the first case as a user types it.
BUDGET_CASES = one_in_a_subprocess(
    [(config, steps) for config in CPU_CONFIGS for steps in (800, 3)],
    [f"{config.stem}-{steps}" for config in CPU_CONFIGS for steps in (800, 3)],
)


@pytest.mark.parametrize(("case", "run_command"), BUDGET_CASES)
def test_budget_overrides_pass_spacy_debug_config(case, run_command):
    config, steps = case
    overrides = budget_overrides(config, steps)
    scheduled = "total_steps = " in config.read_text()
    assert ("--training.optimizer.learn_rate.total_steps" in overrides) == scheduled
    returncode, output = run_command(["debug", "config", config, *overrides,
                                      "--paths.train", "train.spacy", "--paths.dev", "dev.spacy"])
    assert returncode == 0, output[-4000:]


def test_the_warm_up_keeps_its_share_of_the_budget():
    """global_pointer.cfg warms up over 250 of its 4,000 updates: 50 of 800."""
    overrides = budget_overrides(REPO_ROOT / "configs" / "global_pointer.cfg", 800)
    assert overrides[overrides.index(WARMUP) + 1] == "50"
    overrides = budget_overrides(REPO_ROOT / "configs" / "global_pointer.cfg", 4000)
    assert overrides[overrides.index(WARMUP) + 1] == "250"
    overrides = budget_overrides(REPO_ROOT / "configs" / "global_pointer_trf.cfg", 1000, warmup=100)
    assert overrides[overrides.index(WARMUP) + 1] == "100"
