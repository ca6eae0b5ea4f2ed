"""The project's `train` step sets its budget through scripts/train_budget.py,
which must give every shipped config the overrides it accepts: the schedule's
total_steps where there is one (else E440), a warm-up shorter than the run
(else E442), none where the rate is constant (else a config error)."""
import subprocess
import sys

import pytest

from tests.helpers import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

import train_budget  # noqa: E402

CPU_CONFIGS = sorted(path for path in (REPO_ROOT / "configs").glob("*.cfg") if "trf" not in path.stem)


@pytest.mark.parametrize("steps", [800, 3])
@pytest.mark.parametrize("config", CPU_CONFIGS, ids=lambda path: path.stem)
def test_budget_overrides_pass_spacy_debug_config(config, steps):
    overrides = train_budget.budget_overrides(config, steps)
    scheduled = "total_steps = " in config.read_text()
    assert ("--training.optimizer.learn_rate.total_steps" in overrides) == scheduled
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "debug", "config", str(config), *overrides,
         "--paths.train", "train.spacy", "--paths.dev", "dev.spacy"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


def test_without_a_budget_it_prints_its_usage(capsys):
    assert train_budget.main(["../configs/global_pointer.cfg"]) == 2
    assert "STEPS" in capsys.readouterr().err


def test_the_warm_up_keeps_its_share_of_the_budget():
    """global_pointer.cfg warms up over 250 of its 4,000 updates: 50 of 800."""
    overrides = train_budget.budget_overrides(REPO_ROOT / "configs" / "global_pointer.cfg", 800)
    assert overrides[overrides.index("--training.optimizer.learn_rate.warmup_steps") + 1] == "50"
    overrides = train_budget.budget_overrides(REPO_ROOT / "configs" / "global_pointer.cfg", 4000)
    assert overrides[overrides.index("--training.optimizer.learn_rate.warmup_steps") + 1] == "250"
    overrides = train_budget.budget_overrides(REPO_ROOT / "configs" / "global_pointer_trf.cfg", 1000, warmup=100)
    assert overrides[overrides.index("--training.optimizer.learn_rate.warmup_steps") + 1] == "100"
