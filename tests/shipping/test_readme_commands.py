"""The README's commands as a user runs them after the two set-up commands:
in the environment `make` built, activated (its bin folder first on PATH,
which is all `. .venv/bin/activate` does for a command), from the
repository root. Two changes keep the test short: `spacy train` gets a
budget of a few updates, and project/assets/genia holds the first sentences
of the bundled slice's train and dev files, in the same layout."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf8")
# sentences of the bundled GENIA slice's files that the commands read
SLICE_LINES = {"train.jsonl": 200, "dev.jsonl": 60}
SHORT_BUDGET = ["--training.max_steps", "6", "--training.optimizer.learn_rate.total_steps", "6",
                "--training.optimizer.learn_rate.warmup_steps", "2", "--training.eval_frequency", "3"]


def fenced_blocks(language: str):
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def activated_env():
    """The environment of a shell after `. .venv/bin/activate`."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(Path(sys.executable).parent.parent)
    return env


def test_the_readme_says_to_activate_the_environment_before_its_first_python_command():
    activate = README.index(". .venv/bin/activate")
    first_python = min(README.index(marker) for marker in ("\npython ", "import spacy"))
    assert activate < first_python
    assert any(block.strip() == ". .venv/bin/activate" for block in fenced_blocks("bash"))


@pytest.mark.slow
def test_the_readme_commands_run_as_written(tmp_path):
    (commands,) = [block for block in fenced_blocks("bash") if "globalner convert project/assets" in block]
    root = tmp_path / "repo"
    (root / "project").mkdir(parents=True)
    (root / "configs").symlink_to(REPO_ROOT / "configs")
    assets = root / "project" / "assets" / "genia"
    assets.mkdir(parents=True)
    for name, count in SLICE_LINES.items():
        lines = (REPO_ROOT / "project" / "assets" / "genia" / name).read_text(encoding="utf8").splitlines(True)
        (assets / name).write_text("".join(lines[:count]), encoding="utf8")
    for line in commands.strip().splitlines():
        args = line.split()
        assert args[0] == "python", line
        if args[1:4] == ["-m", "spacy", "train"]:
            args += SHORT_BUDGET
        done = subprocess.run(args, cwd=root, env=activated_env(), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (root / "training" / "gp" / "model-calibrated").exists()
    # the quick start's Python, on the pipeline the commands trained
    # (the trained pipeline's example loads the committed package: tests/shipping/test_trained_pipeline.py)
    (quick_start,) = [block for block in fenced_blocks("python")
                      if "spacy.load(" in block and "en_globalner_genia" not in block]
    model = re.search(r'spacy\.load\("([^"]+)"\)', quick_start).group(1)
    (root / Path(model)).parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / "training" / "gp" / "model-best", root / model)
    done = subprocess.run(["python", "-c", quick_start], cwd=root, env=activated_env(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(" in done.stdout.splitlines()[-1]  # print(doc.ents): a tuple


def test_what_the_readme_commands_write_is_ignored_by_git():
    """A user who runs the commands from a clone sees no new files in `git
    status`: every path they write (an output, --output) is ignored."""
    (commands,) = [block for block in fenced_blocks("bash") if "globalner convert project/assets" in block]
    written = set()
    for line in commands.strip().splitlines():
        args = line.split()
        if "--output" in args:
            written.add(args[args.index("--output") + 1])
        elif args[3:5] == ["globalner", "convert"]:
            written.add(args[6])
    assert {"corpus/train.spacy", "training/gp"} <= written
    result = subprocess.run(["git", "check-ignore", "--no-index", *sorted(written)], cwd=REPO_ROOT,
                            capture_output=True, text=True)
    assert set(result.stdout.split()) == written, result.stdout
