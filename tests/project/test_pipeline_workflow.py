"""The `pipeline` workflow's commands as a user runs them (`spacy project run`),
on a few dozen GENIA sentences: the corpus, then a pipeline trained for a few
updates in place of pipeline-train's 4,000, then the threshold on dev, the
test split's scores, and the package: a wheel in packages/ beside the JSON its
model card quotes, with GENIA's license inside and a head that holds its own
tok2vec."""
import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.helpers import REPO_ROOT

PROJECT = REPO_ROOT / "project"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipeline")
    shutil.copytree(PROJECT, root / "project", ignore=shutil.ignore_patterns(
        "corpus", "training", "metrics", "benchmarks", "probes", "project.lock", "__pycache__"))
    (root / "configs").symlink_to(REPO_ROOT / "configs")
    genia = root / "data" / "genia"
    genia.mkdir(parents=True)
    bundled = PROJECT / "assets" / "genia"
    lines = (bundled / "dev.jsonl").read_text().splitlines(keepends=True)
    (genia / "train.jsonl").write_text("".join((bundled / "train.jsonl").read_text().splitlines(True)[:40]))
    (genia / "dev.jsonl").write_text("".join(lines[:30]))
    (genia / "test.jsonl").write_text("".join(lines[30:60]))
    shutil.copy(bundled / "GENIA_LICENSE.txt", genia / "GENIA_LICENSE.txt")
    return root / "project"


def spacy_run(project, *args):
    done = subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True, timeout=600,
                          cwd=project)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def project_step(project, command, *args):
    """A command of project.yml by spaCy's own `project run` function, in this
    process: its scripts still run as their own processes, as project.yml
    writes them, without the start-up of one more `python -m spacy`."""
    from spacy.cli.project.run import project_run
    from weasel.util import parse_config_overrides

    project_run(project, command, overrides=parse_config_overrides(list(args)))


def test_pipeline_commands_build_the_package(project):
    # spacy find-threshold tries 0, 0.5 and 1 here, 21 thresholds in the workflow's own runs
    data = ["--vars.data_dir", str(project.parent / "data"), "--vars.threshold_trials", "3"]
    # the first command as a user types it; the later ones by the same function in this process
    spacy_run(project, "project", "run", "pipeline-corpus", ".", *data)
    # pipeline-train's own budget is the config's 4,000 updates: a few here.
    spacy_run(project, "train", "../configs/global_pointer.cfg", "--output", "training/pipeline/genia",
              "--paths.train", "corpus/pipeline/genia/train.spacy", "--paths.dev", "corpus/pipeline/genia/dev.spacy",
              "--training.max_steps", "4", "--training.optimizer.learn_rate.total_steps", "4",
              "--training.optimizer.learn_rate.warmup_steps", "1", "--training.eval_frequency", "4")
    for command in ("pipeline-threshold", "pipeline-evaluate", "pipeline-package"):
        project_step(project, command, *data)
    packages = project.parent / "packages"
    (wheel,) = packages.glob("en_globalner_genia-0.1.0-py3-none-any.whl")
    evidence = packages / "en_globalner_genia"
    meta = json.loads((evidence / "meta.json").read_text())
    test = json.loads((evidence / "test.json").read_text())
    assert meta["performance"]["spans_sc_f"] == test["spans_sc_f"]
    assert meta["performance"]["source"] == "packages/en_globalner_genia/test.json"
    chosen = json.loads((evidence / "threshold.json").read_text())
    assert chosen["tool"] == "spacy find-threshold (3 thresholds from 0 to 1)"
    threshold = chosen["threshold"]
    card = (evidence / "README.md").read_text()
    assert f"its threshold, {threshold:.2f}, was chosen on the dev split" in card
    assert "test_gold_tokens.json" in card and "GENIA_LICENSE.txt" in card and "CC BY 3.0" in card
    assert "[spacy-globalner]()" not in card
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.endswith("/GENIA_LICENSE.txt") for name in names)
    config = zipfile.ZipFile(wheel).read(next(name for name in names if name.endswith("/config.cfg"))).decode()
    assert f"threshold = {threshold}" in config
    # The head holds its own tok2vec, so it can be sourced alone into another pipeline.
    assert "[components.tok2vec]" not in config and "Tok2VecListener" not in config
    assert 'pipeline = ["global_pointer"]' in config
