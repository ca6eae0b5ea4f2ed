"""The `compare` workflow as a user runs it (`spacy project run compare`), on a
few dozen sentences of the bundled GENIA slice and a few updates: one JSON per
seed, spaCy's baseline on the compared config's encoder, and `tables` writing
the pages' tables from what the runs wrote."""
import functools
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from thinc.api import Config

from tests.helpers import REPO_ROOT

PROJECT = REPO_ROOT / "project"
sys.path.insert(0, str(PROJECT / "scripts"))

import compare  # noqa: E402

# a few dozen sentences, a few updates, and spacy find-threshold trying 0, 0.5 and 1
SMALL = ["--vars.compare_train_limit", "40", "--vars.compare_dev_limit", "30", "--vars.compare_steps", "3",
         "--vars.threshold_trials", "3"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of project/ beside a link to the package's configs, and a data
    folder holding the GENIA slice in the upstream layout."""
    root = tmp_path_factory.mktemp("compare")
    shutil.copytree(PROJECT, root / "project",
                    ignore=shutil.ignore_patterns("assets", "corpus", "training", "metrics", "runs",
                                                  "project.lock", "__pycache__"))
    (root / "configs").symlink_to(REPO_ROOT / "configs")
    (root / "data" / "genia").mkdir(parents=True)
    for split in ("train", "dev"):
        (root / "data" / "genia" / f"{split}.jsonl").symlink_to(PROJECT / "assets" / "genia" / f"{split}.jsonl")
    # The bundled slice has no test split: the last 30 sentences of its dev
    # split stand in, read by the workflow as GENIA's test.jsonl.
    dev_lines = (PROJECT / "assets" / "genia" / "dev.jsonl").read_text(encoding="utf8").splitlines()
    (root / "data" / "genia" / "test.jsonl").write_text("\n".join(dev_lines[-30:]) + "\n", encoding="utf8")
    return root / "project"


def run_project(project, workflow, *args):
    done = subprocess.run(
        [sys.executable, "-m", "spacy", "project", "run", workflow, str(project), *args,
         "--vars.data_dir", str(project.parent / "data")],
        capture_output=True, text=True, timeout=600, cwd=project.parent,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def run_project_step(project, capfd, command, *args, force=False):
    """A command of project.yml by spaCy's own `project run` function, in this
    process: the command's script still runs as its own process, as project.yml
    writes it, without the start-up of one more `python -m spacy`."""
    from spacy.cli.project.run import project_run
    from weasel.util import parse_config_overrides

    capfd.readouterr()
    overrides = parse_config_overrides([*args, "--vars.data_dir", str(project.parent / "data")])
    project_run(project, command, overrides=overrides, force=force)
    return capfd.readouterr().out


RUN = "steps3-train40-dev30"


@pytest.mark.slow
def test_compare_writes_one_json_per_seed(project, capfd):
    run_project(project, "compare", "--vars.corpus", "genia", "--vars.config", "global_pointer",
                "--vars.seeds", "0,1", *SMALL)
    # the same workflow again, by the same function in this process
    run_project_step(project, capfd, "compare", "--vars.corpus", "genia", "--vars.config", "spancat",
                     "--vars.seeds", "2", *SMALL)
    runs = project / "benchmarks" / "runs" / "genia" / "global_pointer"
    training = project / "training" / "compare" / "genia" / "global_pointer"
    assert sorted(path.name for path in (runs / "global_pointer" / RUN).iterdir()) == ["seed0.json", "seed1.json"]
    assert sorted(path.name for path in (runs / "spancat" / RUN).iterdir()) == ["seed2.json"]
    config_hash = hashlib.sha256((REPO_ROOT / "configs" / "global_pointer.cfg").read_bytes()).hexdigest()
    for seed in (0, 1):
        run = json.loads((runs / "global_pointer" / RUN / f"seed{seed}.json").read_text())
        assert run["seed"] == seed and run["corpus"] == "genia" and run["config"] == "global_pointer"
        assert run["settings"] == {}
        assert run["config_sha256"] == config_hash and len(run["code"]["commit"]) == 40
        assert set(run["versions"]) >= {"spacy", "thinc", "torch"} and run["machine"]["cpu_count"] >= 1
        assert run["budget"]["max_steps"] == run["budget"]["eval_frequency"] == 3
        assert run["budget"]["updates"] >= 3
        assert run["data"] == {
            "lang": "en", "nested": True, "train_sentences": 40, "train_tokens": run["data"]["train_tokens"],
            "dev_sentences": 30, "test_sentences": 30, "tuned_on": "dev.spacy (the whole dev split)",
            "scored_on": "test.spacy (the official test split)", "train_limit": 40, "dev_limit": 30}
        assert run["data"]["train_tokens"] > 40
        # scored on test at the config's threshold and at one chosen on dev for each score the run is
        # judged on
        assert set(run["scores"]) == set(run["scores_at_default"]) == {"spans", "ents", "outer"}
        for scores in (run["scores"], run["scores_at_default"]):
            for view in scores.values():
                assert 0.0 <= view["f"] <= 1.0 and 0.0 <= view["p"] <= 1.0
        assert set(run["tuning"]) == {"spans_sc_f", "ents_f"}
        assert all(tuning["threshold"] in (0.0, 0.5, 1.0) for tuning in run["tuning"].values())
        assert all(tuning["tool"] == "spacy find-threshold's scan (3 thresholds from 0 to 1) on one prediction of dev"
                   for tuning in run["tuning"].values())
        assert run["train"]["wall_seconds"] > 0 and run["train"]["words"] > 0
        assert 100 < run["train"]["peak_rss_mb"] < 100_000
        assert run["command"] == ("spacy project run compare project/ --vars.corpus genia --vars.config "
                                  f"global_pointer --vars.seeds {seed} --vars.compare_steps 3 "
                                  "--vars.compare_train_limit 40 --vars.compare_dev_limit 30 "
                                  "--vars.threshold_trials 3")
        assert f"--system.seed {seed}" in run["train_command"]
        assert "--training.patience 0" in run["train_command"] and "dev.spacy" in run["train_command"]
        assert (training / "global_pointer" / RUN / f"seed{seed}" / "model-last").exists()
    # spaCy's spancat trained on global_pointer's encoder, optimizer, batcher and budget
    baseline = json.loads((runs / "spancat" / RUN / "seed2.json").read_text())
    assert baseline["head"] == "spancat" and baseline["encoder_of"] == "global_pointer"
    assert baseline["config_sha256"] == config_hash and set(baseline["tuning"]) == {"spans_sc_f"}
    trained = {name: Config().from_disk(training / name / RUN / seed / "config.cfg", interpolate=False)
               for name, seed in (("global_pointer", "seed0"), ("spancat", "seed2"))}
    for section in ("optimizer", "batcher"):
        assert trained["spancat"]["training"][section] == trained["global_pointer"]["training"][section]
    assert trained["spancat"]["components"]["tok2vec"] == trained["global_pointer"]["components"]["tok2vec"]
    assert trained["spancat"]["nlp"]["pipeline"] == ["tok2vec", "spancat"]
    assert trained["spancat"]["components"]["spancat"]["suggester"]["sizes"][0] == 1
    # the same run again (forced: the project would skip it) is scored again, not trained again
    before = (runs / "spancat" / RUN / "seed2.json").read_text()
    out = run_project_step(project, capfd, "compare-runs", "--vars.corpus", "genia", "--vars.config", "spancat",
                           "--vars.seeds", "2", *SMALL, force=True)
    assert "scoring it again" in out
    assert json.loads(before)["started"] == json.loads((runs / "spancat" / RUN / "seed2.json").read_text())["started"]
    # the trained pipelines' predict speed side by side, and peak memory of training on the same batches
    run_project_step(project, capfd, "compare-speed", "--vars.corpus", "genia", "--vars.speed_configs",
                     f"global_pointer/global_pointer/{RUN}", *SMALL)
    speed = json.loads((project / "benchmarks" / "speed" / "genia.json").read_text())
    figures = speed["pipelines"][f"global_pointer/global_pointer/{RUN}"]
    assert figures["encoder_words_per_second"] > figures["words_per_second"] > 0
    assert 0 < figures["encoder_share"] < 1 and "pipeline-speed genia" in speed["command"]
    memory = subprocess.run(
        [sys.executable, "scripts/measure.py", "train-memory", "genia", "corpus/compare/genia-train40-dev30",
         f"global_pointer/global_pointer/{RUN}", f"global_pointer/spancat/{RUN}", "--updates", "2"],
        capture_output=True, text=True, timeout=600, cwd=project)
    assert memory.returncode == 0, memory.stderr[-3000:]
    assert [line.split(":")[0] for line in memory.stdout.splitlines() if "peak RSS" in line] == [
        f"global_pointer/global_pointer/{RUN}", f"global_pointer/spancat/{RUN}"]
    # `tables` writes BENCHMARKS.md's block and the README's comparison from these files
    readme = project.parent / "README.md"
    readme.write_text("# Title\n\n<!-- results:start -->\nold\n<!-- results:end -->\n\nafter\n")
    run_project_step(project, capfd, "tables")
    page = (project / "BENCHMARKS.md").read_text()
    f = [100 * json.loads((runs / "global_pointer" / RUN / f"seed{seed}.json").read_text())["scores"]["spans"]["f"]
         for seed in (0, 1)]
    spancat_f = 100 * baseline["scores"]["spans"]["f"]
    mean_f = f"{sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f})"
    assert f"| 3 on 40 train sentences | `global_pointer` | 2 | test | all spans | {mean_f} |" in page
    assert "--vars.config global_pointer --vars.seeds 0,1 --vars.compare_steps 3" in page
    assert "| `global_pointer` | 3 on 40 train sentences | spaCy `spancat` | 1 | test | all spans |" in page
    text = readme.read_text()
    assert text.startswith("# Title\n\n<!-- results:start -->\nEach package head") and text.endswith("\nafter\n")
    assert "\nold\n" not in text
    assert (f"| GENIA | all spans | `global_pointer.cfg` | 3 on 40 train sentences | `global_pointer` "
            f"| {sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f}) | spaCy `spancat` | {spancat_f:.1f} |") in text


def test_config_names_and_the_corpus_language():
    assert compare.parse_config_name("crener") == ("crener", None)
    assert compare.parse_config_name("ner") == ("global_pointer", "ner")
    assert compare.parse_config_name("spancat@crener") == ("crener", "spancat")
    with pytest.raises(SystemExit):
        compare.parse_config_name("crener@global_pointer")
    assert compare.parse_seeds("0,1,2") == [0, 1, 2] and compare.parse_seeds("1") == [1]
    with pytest.raises(SystemExit):
        compare.parse_seeds("a,b")
    stats = {"lang": "zh", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / "global_pointer.cfg", "ner", stats, PROJECT / "x.json")
    assert config["nlp"]["lang"] == "zh"
    assert config["nlp"]["tokenizer"] == {"@tokenizers": "spacy.zh.ChineseTokenizer", "segmenter": "char"}
    stats = {"lang": "en", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / "crener_zh.cfg", "spancat", stats, PROJECT / "x.json")
    assert config["nlp"]["tokenizer"] == {"@tokenizers": "spacy.Tokenizer.v1"}
    assert config["components"]["spancat"]["suggester"]["sizes"] == [1, 2, 3, 4, 5]
    assert "crener" not in config["components"]


def test_a_variant_changes_the_head_settings_it_names(tmp_path):
    """`lcrf_ner_trf,transitions=crf` trains lcrf_ner_trf with the model's
    transitions changed; numbers are read as numbers; a setting the head does
    not have, or one given to spaCy's head, stops the run before training."""
    assert compare.parse_variant("lcrf_ner_trf,transitions=crf") == ("lcrf_ner_trf", {"transitions": "crf"})
    assert compare.parse_variant("global_pointer_trf,head_lr_scale=10") == (
        "global_pointer_trf", {"head_lr_scale": 10})
    assert compare.parse_variant("crener") == ("crener", {})
    stats = {"lang": "en", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / "lcrf_ner_trf.cfg", None, stats, tmp_path / "s.json",
                             "/models/tiny-bert", {"transitions": "crf", "head_lr_scale": 5})
    assert config["components"]["lcrf_ner"]["model"]["transitions"] == "crf"
    assert config["components"]["lcrf_ner"]["head_lr_scale"] == 5
    with pytest.raises(SystemExit, match="not a setting"):
        compare.compose(REPO_ROOT / "configs" / "lcrf_ner_trf.cfg", None, stats, tmp_path / "s.json",
                        "auto", {"transition": "crf"})
    for name in ("lcrf_ner_trf,transitions", "ner@global_pointer,threshold=0.2"):
        with pytest.raises(SystemExit):
            compare.run_seed("genia", name, 0, tmp_path, REPO_ROOT / "configs", tmp_path, tmp_path, 1, 1, -1)


def test_learn_rate_scale_raises_the_whole_optimizers_rate_for_any_head(tmp_path):
    """`ner@global_pointer_trf,learn_rate_scale=5` gives spaCy's head the
    chance a spaCy user has, the whole optimizer's rate raised, and names it in
    the run's path; a package head takes it beside its own settings."""
    stats = {"lang": "en", "train": {"max_length": 5}}
    trf = REPO_ROOT / "configs" / "global_pointer_trf.cfg"
    shipped = Config().from_disk(trf, interpolate=False)["training"]["optimizer"]["learn_rate"]["initial_rate"]
    name = "ner@global_pointer_trf,learn_rate_scale=5"
    base, settings = compare.parse_variant(name)
    config = compare.compose(trf, compare.parse_config_name(base)[1], stats, tmp_path / "s.json", "/m", settings)
    assert config["training"]["optimizer"]["learn_rate"]["initial_rate"] == pytest.approx(5 * shipped)
    assert config["nlp"]["pipeline"] == ["transformer", "ner"]
    assert compare.run_id("wnut17", name, 1000, {}, warmup=100) == Path(
        "wnut17/global_pointer_trf/ner,learn_rate_scale=5/steps1000-warmup100")
    both = compare.compose(trf, None, stats, tmp_path / "s.json", "/m", {"learn_rate_scale": 2, "head_lr_scale": 1})
    assert both["training"]["optimizer"]["learn_rate"]["initial_rate"] == pytest.approx(2 * shipped)
    assert both["components"]["global_pointer"]["head_lr_scale"] == 1
    # a constant rate scales too; nonsense stops the run before training
    cpu = compare.compose(REPO_ROOT / "configs" / "lcrf_ner.cfg", "ner", stats, tmp_path / "s.json",
                          settings={"learn_rate_scale": 0.5})
    assert cpu["training"]["optimizer"]["learn_rate"] == pytest.approx(0.0005)
    for bad in (0, "fast", True):
        with pytest.raises(SystemExit, match="learn_rate_scale takes a positive number"):
            compare.compose(trf, "ner", stats, tmp_path / "s.json", "/m", {"learn_rate_scale": bad})


@pytest.mark.parametrize("name", ["global_pointer_trf", "ner@global_pointer_trf"])
def test_transformer_configs_get_the_transformer_asked_for(name, tmp_path):
    """A _trf config's placeholder model (bert-base-cased, which would be
    downloaded) gives way to the workflow's `transformer` var."""
    package_config, spacy_head = compare.parse_config_name(name)
    stats = {"lang": "en", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / f"{package_config}.cfg", spacy_head, stats,
                             tmp_path / "stats.json", "/models/tiny-bert")
    assert config["paths"]["transformer"] == "/models/tiny-bert"
    assert config["components"]["transformer"]["model"]["name"] == "${paths.transformer}"


def test_the_step_timer_times_the_configs_own_before_update_too(tmp_path):
    """The _trf configs release memory before each update: the run's timer
    wraps that callback instead of leaving the training time unmeasured."""
    import measure

    stats = {"lang": "en", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / "global_pointer_trf.cfg", "spancat", stats,
                             tmp_path / "stats.json", "/models/tiny-bert")
    timer = config["training"]["before_update"]
    assert timer["@callbacks"] == "benchmark.step_timer.v1"
    assert timer["then"]["@callbacks"] == "spacy-globalner.release_memory.v1"
    plain = compare.compose(REPO_ROOT / "configs" / "global_pointer.cfg", None, stats, tmp_path / "stats.json")
    assert plain["training"]["before_update"] == {"@callbacks": "benchmark.step_timer.v1"}
    seen = []
    measure.make_step_timer(then=lambda nlp, args: seen.append(args["step"]))(None, {"step": 7})
    assert seen == [7] and 7 in measure._step_starts


def test_training_seconds_replaces_evaluation_steps_by_a_median_update():
    """A run's train words/s leave out spaCy's evaluations at the steps that ran one."""
    import measure

    starts = {0: 0.0, 1: 10.0, 2: 11.0, 3: 12.0}
    ends = {0: 9.0, 1: 11.0, 2: 12.0, 3: 20.0}  # steps 0 and 3 include an evaluation
    # four 1 s updates and the 1 s of batching between steps 0 and 1
    assert measure.training_seconds(starts, ends, [0, 3]) == pytest.approx(5.0)
    assert measure.training_seconds({}, {}, []) == 0.0


def test_spacy_heads_are_the_blocks_spacy_init_config_writes():
    """spaCy's ner and spancat come from `spacy init config`, so on a transformer
    ner's upper layer is off as spaCy's -G template sets it, and on the CPU on."""
    from common import spacy_head_block

    assert spacy_head_block("ner")["components"]["ner"]["model"]["use_upper"] is True
    on_transformer = spacy_head_block("ner", transformer=True)["components"]["ner"]["model"]
    assert on_transformer["use_upper"] is False and "tok2vec" not in on_transformer
    spancat = spacy_head_block("spancat")
    assert spancat["components"]["spancat"]["threshold"] == 0.5
    assert spancat["training"]["score_weights"]["spans_sc_f"] == 1.0


def test_project_commands_declare_deps_and_outputs():
    """`spacy project run` skips a step whose deps are unchanged and whose
    outputs exist: every step that writes files declares both, and a script it
    runs is among its deps, so editing the script reruns the step. Every dep
    is in the repository or written by a command before it (the corpora
    excepted: they live in ${vars.data_dir}), and every workflow step is a command."""
    import re

    import srsly

    project = srsly.read_yaml(PROJECT / "project.yml")
    variables = {name: str(value) for name, value in project["vars"].items()}

    def resolved(path):
        return re.sub(r"\$\{vars\.(\w+)\}", lambda match: variables[match.group(1)], path)

    written = []
    for command in project["commands"]:
        name = command["name"]
        assert command.get("deps"), name
        if name != "show":  # prints only
            assert command.get("outputs"), name
        for line in command["script"]:
            for script in re.findall(r"scripts/\w+\.py", line):
                assert script in command["deps"], (name, script)
        for dep in map(resolved, command["deps"]):
            if dep.startswith(variables["data_dir"]) or any(dep.startswith(out) for out in written):
                continue
            assert (PROJECT / dep).exists(), (name, dep)
        written += map(resolved, command.get("outputs", []))
    names = {command["name"] for command in project["commands"]}
    for workflow, steps in project["workflows"].items():
        assert set(steps) <= names, workflow


def fake_run(corpus, encoder, head, seed, f, nested=True, steps=4000):
    """A run JSON as compare.py writes it, with F (a fraction) on every view."""
    return {"corpus": corpus, "config": head if head not in ("ner", "spancat") else f"{head}@{encoder}",
            "seed": seed, "head": head, "encoder_of": encoder, "config_file": f"configs/{encoder}.cfg",
            "config_sha256": "ab" * 32, "code": {"commit": "c" * 40, "uncommitted_changes": False},
            "machine": {"cpu": "cpu", "cpu_count": 2, "threads": 1, "gpu": None},
            "budget": {"max_steps": steps},
            "data": {"nested": nested, "train_sentences": 100, "scored_on": "test.spacy (the official test split)"},
            "train": {"words_per_second": 1000.0, "wall_seconds": 60.0, "peak_rss_mb": 900},
            "scores": {view: {"p": f, "r": f, "f": f} for view in ("spans", "ents")},
            "scores_at_default": {view: {"p": f, "r": f, "f": f - 0.01} for view in ("spans", "ents")},
            "tuning": None, "command": f"spacy project run compare project/ --vars.config {head} --vars.seeds {seed}"}


def write_runs(root, runs):
    for run in runs:
        path = (root / run["corpus"] / run["encoder_of"] / run["head"] / f"steps{run['budget']['max_steps']}"
                / f"seed{run['seed']}.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(run))


def test_the_fair_table_pairs_heads_on_one_encoder_and_budget_and_claims_with_care(tmp_path):
    """A package head is set beside spaCy's spancat (all spans, nested corpora)
    and ner (doc.ents) trained on its own encoder at its own budget, never a
    run of another encoder or budget; a gap is claimed only at 1 F or more on
    3 seeds each."""
    import tables

    write_runs(tmp_path, [
        *(fake_run("genia", "global_pointer", "global_pointer", seed, f) for seed, f in enumerate((0.75, 0.76, 0.77))),
        *(fake_run("genia", "global_pointer", "spancat", seed, f) for seed, f in enumerate((0.72, 0.73, 0.74))),
        fake_run("genia", "global_pointer", "ner", 0, 0.70),
        fake_run("genia", "crener", "spancat", 0, 0.99),  # another encoder: not global_pointer's baseline
        fake_run("genia", "global_pointer", "spancat", 0, 0.99, steps=400),  # another budget
        fake_run("wnut17", "global_pointer", "global_pointer", 0, 0.30, nested=False),
        fake_run("wnut17", "global_pointer", "ner", 0, 0.35, nested=False),
        fake_run("wnut17", "global_pointer", "spancat", 0, 0.35, nested=False),  # spancat: nested corpora only
        fake_run("germeval2014", "lcrf_ner", "lcrf_ner", 0, 0.600, nested=True),
        fake_run("germeval2014", "lcrf_ner", "ner", 0, 0.595, nested=True),
    ])
    speed = tmp_path.parent / "speed"
    speed.mkdir()
    (speed / "genia.json").write_text(json.dumps({
        "corpus": "genia", "command": "python scripts/measure.py pipeline-speed genia test.spacy", "pipelines": {
            "global_pointer/global_pointer/steps4000": {"words_per_second": 30000.0},
            "global_pointer/spancat/steps4000": {"words_per_second": 5000.0}}}))
    (speed / "wnut17_trf.json").write_text(json.dumps({  # pipelines of no row of this table
        "corpus": "wnut17", "command": "python scripts/measure.py pipeline-speed wnut17 trf", "pipelines": {
            "global_pointer_trf/global_pointer_trf/steps1000": {"words_per_second": 1000.0}}}))
    lines = tables.fair_table(tables.read_runs(tmp_path), transformer=False, link="B.md",
                              speed=tables.read_speed(speed))
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| corpus")]
    assert rows == [
        "| GENIA | all spans | `global_pointer.cfg` | 4,000 | `global_pointer` | 76.0 (75.0-77.0) "
        "| spaCy `spancat` | 73.0 (72.0-74.0) | +3.00 | `global_pointer` ahead (seeds 3 / 3) | test "
        "| 30,000 / 5,000 |",
        "| GENIA | `doc.ents` | `global_pointer.cfg` | 4,000 | `global_pointer` | 76.0 (75.0-77.0) "
        "| spaCy `ner` | 70.0 | +6.00 | one seed: not a claim (seeds 3 / 1) | test | - |",
        "| GermEval 2014 | `doc.ents` | `lcrf_ner.cfg` | 4,000 | `lcrf_ner` | 60.0 "
        "| spaCy `ner` | 59.5 | +0.50 | one seed: not a claim (seeds 1 / 1) | test | - |",
        "| WNUT-17 | `doc.ents` | `global_pointer.cfg` | 4,000 | `global_pointer` | 30.0 "
        "| spaCy `ner` | 35.0 | -5.00 | one seed: not a claim (seeds 1 / 1) | test | - |"]
    assert "Predict words/s: `python scripts/measure.py pipeline-speed genia test.spacy` (in project/)." in lines
    assert not any("pipeline-speed wnut17 trf" in line for line in lines)
    short = tables.fair_table(tables.read_runs(tmp_path), transformer=False, link="B.md",
                              speed=tables.read_speed(speed), explain=False)
    assert [line for line in short if line.startswith("| ") and not line.startswith("| corpus")] == rows
    assert tables.fair_table(tables.read_runs(tmp_path), transformer=True, link="B.md")[0].startswith("No pair")


def test_a_claim_needs_the_seeds_ranges_apart_to_say_so(tmp_path):
    import tables

    write_runs(tmp_path, [
        *(fake_run("genia", "crener", "crener", seed, f) for seed, f in enumerate((0.70, 0.74, 0.75))),
        *(fake_run("genia", "crener", "spancat", seed, f) for seed, f in enumerate((0.71, 0.72, 0.72))),
    ])
    groups = tables.read_runs(tmp_path)
    (row,) = [line for line in tables.fair_table(groups, False, "B.md") if line.startswith("| GENIA")]
    assert "`crener.cfg` (crener adds a BiLSTM of its own in the head)" in row
    assert "| +1.33 | `crener` ahead (the seeds' ranges overlap) (seeds 3 / 3) |" in row
    page = "\n".join(tables.compare_tables(groups))
    assert ("| `crener` | 4,000 | `crener` | 3 | test | all spans | 73.0 (70.0-75.0) | 73.0 | 73.0 "
            "| 72.0 (69.0-74.0) |") in page
    assert "`runs/genia/crener/spancat/steps4000/seed{0,1,2}.json`" in page


def test_seeds_trained_from_two_versions_of_a_config_name_both(tmp_path):
    import tables

    edited = {**fake_run("genia", "crener", "crener", 1, 0.71), "config_sha256": "cd" * 32}
    write_runs(tmp_path, [fake_run("genia", "crener", "crener", 0, 0.70), edited])
    page = "\n".join(tables.compare_tables(tables.read_runs(tmp_path)))
    assert "`configs/crener.cfg` (sha256 ababababab, cdcdcdcdcd)" in page


def test_a_row_on_a_cut_corpus_says_how_many_train_sentences(tmp_path):
    """A run on the first 3,000 train sentences is never read as one on all of them."""
    import tables

    runs = [fake_run("genia", "global_pointer_trf", head, 0, f, steps=1000)
            for head, f in (("global_pointer_trf", 0.70), ("spancat", 0.66))]
    for run in runs:
        run["data"]["train_limit"] = 3000
    write_runs(tmp_path, runs)
    groups = tables.read_runs(tmp_path)
    (row,) = [line for line in tables.fair_table(groups, True, "B.md") if line.startswith("| GENIA")]
    assert "| 100 | 1,000 (-) | `global_pointer_trf` |" in row
    assert "| 1,000 on 3,000 train sentences |" in "\n".join(tables.compare_tables(groups))


def test_a_run_shared_by_two_encoders_names_the_training_it_is(tmp_path):
    """spancat@crener_trf taken from spancat@global_pointer_trf's training pairs
    with crener_trf, is timed as that training's pipeline, and BENCHMARKS.md
    says whose training it was."""
    import tables

    twin = "genia/global_pointer_trf/spancat/steps1000/seed0.json"
    runs = [fake_run("genia", "crener_trf", "crener_trf", 0, 0.70, steps=1000),
            {**fake_run("genia", "crener_trf", "spancat", 0, 0.66, steps=1000), "trained_as": twin}]
    write_runs(tmp_path, runs)
    speed = tmp_path.parent / f"{tmp_path.name}-speed"  # beside the runs, not among them
    speed.mkdir()
    (speed / "genia_trf.json").write_text(json.dumps({"corpus": "genia", "command": "measure test.spacy", "pipelines": {
        "crener_trf/crener_trf/steps1000": {"words_per_second": 900.0},
        "global_pointer_trf/spancat/steps1000": {"words_per_second": 600.0}}}))
    groups = tables.read_runs(tmp_path)
    (row,) = [line for line in tables.fair_table(groups, True, "B.md", tables.read_speed(speed))
              if line.startswith("| GENIA")]
    assert "| `crener_trf` | 20x | 70.0 | spaCy `spancat` | 66.0 | +4.00 |" in row and row.endswith("| 900 / 600 |")
    assert f"(the same training as `runs/{twin}`)" in "\n".join(tables.compare_tables(groups))


def test_a_run_path_names_the_head_encoder_and_budget():
    stats = {"train_limit": 3000, "dev_limit": 0}
    assert compare.run_id("genia", "spancat@crener", 4000, {}) == Path("genia/crener/spancat/steps4000")
    assert compare.run_id("genia", "global_pointer_trf,head_lr_scale=5", 1000, stats, warmup=100) == Path(
        "genia/global_pointer_trf/global_pointer_trf,head_lr_scale=5/steps1000-warmup100-train3000")
    assert compare.reproduce_command("genia", "ner", 1, 1000, stats, warmup=100) == (
        "spacy project run compare project/ --vars.corpus genia --vars.config ner --vars.seeds 1 "
        "--vars.compare_steps 1000 --vars.compare_warmup 100 --vars.compare_train_limit 3000")


def test_every_compared_corpus_with_test_labels_names_its_test_split():
    """compare reports on the official test split; CLUENER publishes none and
    is refused rather than scored on dev."""
    from common import CORPORA

    data = REPO_ROOT.parent / "shared" / "data"
    assert {name for name, corpus in CORPORA.items() if corpus.test is None} == {"cluener"}
    for name, corpus in CORPORA.items():
        if corpus.test is not None and data.exists():
            assert (data / corpus.folder / corpus.test).exists(), name


def test_a_row_scored_on_test_is_never_set_beside_one_scored_on_dev(tmp_path):
    """Seeds rerun on test replace the folder's seeds scored on the reporting
    half of dev, and a pair needs both sides on one split."""
    import tables

    old = {"nested": True, "train_sentences": 100, "scored_on": "report.spacy (odd-numbered dev docs)"}
    write_runs(tmp_path, [
        fake_run("genia", "crener", "crener", 0, 0.75),
        {**fake_run("genia", "crener", "crener", 1, 0.99), "data": old},
        {**fake_run("genia", "crener", "spancat", 0, 0.70), "data": old},
    ])
    groups = tables.read_runs(tmp_path)
    assert groups[tables.Key("genia", "crener", "crener", "steps4000")].seeds == [0]
    assert tables.pairs(groups, transformer=False) == []
    # the table names the pair it leaves out, so a row never vanishes unsaid
    table = "\n".join(tables.fair_table(groups, transformer=False, link="BENCHMARKS.md"))
    assert "Left out until both sides are scored on one split: GENIA all spans `crener` (test, 1 seed)" in table
    assert "spaCy `spancat` (dev half, 1 seed)" in table


def test_a_row_rerun_on_test_replaces_its_dev_half_row_and_no_other(tmp_path):
    """global_pointer_trf rerun on test on all of train (at its shipped head
    rate, named plainly) replaces its row on the dev half of a cut corpus
    (rate named); crener_trf, not rerun yet, keeps its dev-half row and pair."""
    import tables

    old = {"nested": True, "train_sentences": 3000, "train_limit": 3000,
           "scored_on": "report.spacy (odd-numbered dev docs)"}
    cut = [{**fake_run("genia", encoder, head, 0, f, steps=1000), "data": old}
           for encoder, head, f in (("global_pointer_trf", "global_pointer_trf,head_lr_scale=5", 0.70),
                                    ("global_pointer_trf", "spancat", 0.69),
                                    ("crener_trf", "crener_trf", 0.71), ("crener_trf", "spancat", 0.69))]
    for run in cut[:1]:
        run["settings"] = {"head_lr_scale": 5}
    rerun = [fake_run("genia", "global_pointer_trf", head, 0, f, steps=1000)
             for head, f in (("global_pointer_trf", 0.74), ("spancat", 0.72))]
    for runs, budget in ((cut, "steps1000-train3000"), (rerun, "steps1000")):
        for run in runs:
            path = tmp_path / "genia" / run["encoder_of"] / run["head"] / budget / "seed0.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(run))
    groups = tables.read_runs(tmp_path)
    rows = [(head.key.head, head.key.budget, baseline.split) for head, baseline, _ in tables.pairs(groups, True)]
    assert rows == [("crener_trf", "steps1000-train3000", "dev half"), ("global_pointer_trf", "steps1000", "test")]
    # a rerun whose spaCy side has not landed on test yet leaves the old row in place
    (tmp_path / "genia" / "global_pointer_trf" / "spancat" / "steps1000" / "seed0.json").unlink()
    groups = tables.read_runs(tmp_path)
    rows = [(head.key.head, head.key.budget) for head, _, _ in tables.pairs(groups, True)]
    assert ("global_pointer_trf,head_lr_scale=5", "steps1000-train3000") in rows
    # BENCHMARKS.md still shows the replaced row's runs
    assert "global_pointer_trf,head_lr_scale=5" in "\n".join(tables.compare_tables(groups))


def test_a_dev_half_pair_kept_under_devhalf_keeps_its_row_and_timing_beside_a_test_rerun(tmp_path):
    """WNUT-17's dev-half runs trained in the folder their test reruns take;
    they live on under BUDGET-devhalf. spaCy's ner rerun on test first: the
    dev-half pair keeps its row and its timing (found by the folder its train
    command names), and a dev-half timing never serves a test row."""
    import tables

    old = {"nested": False, "train_sentences": 3394, "scored_on": "report.spacy (odd-numbered dev docs)"}
    training = "--output training/compare/wnut17/global_pointer_trf/{head}/steps1000/seed0"
    for head, f, budget, split in (("global_pointer_trf", 0.61, "steps1000-devhalf", old),
                                   ("ner", 0.55, "steps1000-devhalf", old), ("ner", 0.36, "steps1000", None)):
        run = fake_run("wnut17", "global_pointer_trf", head, 0, f, nested=False, steps=1000)
        run.update({"data": split or run["data"], "train_command": "spacy train " + training.format(head=head)})
        path = tmp_path / "runs" / "wnut17" / "global_pointer_trf" / head / budget / "seed0.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(run))
    speed = tmp_path / "speed"
    speed.mkdir()
    for name, split in (("wnut17_trf", "report.spacy"), ("wnut17_trf_test", "test.spacy")):
        (speed / f"{name}.json").write_text(json.dumps({
            "corpus": "wnut17", "command": f"python scripts/measure.py pipeline-speed wnut17 {split}", "pipelines": {
                "global_pointer_trf/global_pointer_trf/steps1000": {"words_per_second": 1236.0},
                "global_pointer_trf/ner/steps1000": {"words_per_second": 1230.0 if split == "report.spacy" else 9.0}}}))
    groups = tables.read_runs(tmp_path / "runs")
    (row,) = [line for line in tables.fair_table(groups, True, "B.md", tables.read_speed(speed), explain=False)
              if line.startswith("| WNUT-17")]
    assert "| 61.0 | spaCy `ner` | 55.0 |" in row and row.endswith("| dev half | 1,236 / 1,230 |")
    # BENCHMARKS.md lists both of ner's runs, each under its own folder
    listed = "\n".join(tables.compare_tables(groups))
    assert "ner/steps1000/seed{0}.json" in listed and "ner/steps1000-devhalf/seed{0}.json" in listed


def test_spacys_head_at_a_raised_rate_is_set_beside_at_the_rate_dev_chose(tmp_path):
    """spaCy's ner run at 1x, 2x and 5x the whole optimizer's rate: the table
    sets the shipped head beside 1x and beside the scale with the best dev F
    (2x), never the best on test (5x), and says what was tried; where 1x wins
    on dev no raised row appears."""
    import tables

    def run(head, test_f, dev_f, scale=None, corpus="wnut17"):
        record = fake_run(corpus, "global_pointer_trf", head, 0, test_f, nested=False, steps=1000)
        record["train"]["final_dev_score"] = dev_f
        record["settings"] = {"learn_rate_scale": scale} if scale else {}
        return record

    write_runs(tmp_path, [
        run("global_pointer_trf", 0.60, 0.58), run("ner", 0.55, 0.50),
        run("ner,learn_rate_scale=2", 0.57, 0.53, 2), run("ner,learn_rate_scale=5", 0.58, 0.52, 5),
        run("global_pointer_trf", 0.70, 0.68, corpus="genia"), run("ner", 0.66, 0.64, corpus="genia"),
        run("ner,learn_rate_scale=5", 0.69, 0.60, 5, corpus="genia"),
    ])
    groups = tables.read_runs(tmp_path)
    table = tables.fair_table(groups, True, "B.md")
    wnut = [line for line in table if line.startswith("| WNUT-17")]
    assert [row.split(" | ")[8] for row in wnut] == ["spaCy `ner`", "spaCy `ner`, `learn_rate_scale=2`"]
    assert "| +3.00 | one seed: not a claim" in wnut[1]
    genia = [line for line in table if line.startswith("| GENIA")]
    assert len(genia) == 1 and "| spaCy `ner` | 66.0 |" in genia[0]
    (note,) = [line for line in table if line.startswith("spaCy's head at a raised rate")]
    assert "WNUT-17 spaCy `ner` on `global_pointer_trf.cfg`, whole optimizer's rate by dev F: 1x (50.0), " \
           "2x (53.0), 5x (52.0); chosen: spaCy `ner`, `learn_rate_scale=2`." in note
    assert "GENIA spaCy `ner` on `global_pointer_trf.cfg`, whole optimizer's rate by dev F: 1x (64.0), " \
           "5x (60.0); chosen: the config's own rate (1x)." in note
    # BENCHMARKS.md lists every rate's runs under spaCy's head
    assert "spaCy `ner`, `learn_rate_scale=5`" in "\n".join(tables.compare_tables(groups))


def test_per_label_calibration_runs_once_and_serves_every_view(monkeypatch, tmp_path):
    """crener's `calibrate` has no target: one calibration on the tuning half
    is reported on every view; a find-threshold head is tuned per target."""
    import evaluate
    import spacy

    class Pipeline:
        pipe_names = ["tok2vec", "head"]

        def __init__(self, factory):
            self.factory = factory

        def get_pipe_meta(self, name):
            return type("Meta", (), {"factory": self.factory})

    calls = []

    def fake_tune(nlp, tune_path, target, trials):
        calls.append(target)
        if nlp.factory == "crener":
            return {"tool": "spacy globalner calibrate", "thresholds": {"DNA": 1.0}}
        return {"tool": "find-threshold", "scores_key": target, "threshold": 0.3}

    views_seen = {"spans": {"f": 0.5}, "ents": {"f": 0.4}, "outer": {"f": 0.4}}
    monkeypatch.setattr(compare, "tune", fake_tune)
    monkeypatch.setattr(compare, "views", lambda scores: dict(views_seen))
    monkeypatch.setattr(evaluate, "evaluate_pipeline", lambda *args: {})
    for factory, expected_calls in (("crener", ["spans_sc_f"]), ("global_pointer", ["spans_sc_f", "ents_f"])):
        monkeypatch.setattr(spacy, "load", lambda model, factory=factory: Pipeline(factory))
        calls.clear()
        scored = compare.score(tmp_path, tmp_path, nested=True)
        assert calls == expected_calls
        assert set(scored["tuning"]) == {"spans_sc_f", "ents_f"}
        assert set(scored["scores"]) == set(views_seen)


def test_a_papers_claim_sets_two_package_heads_side_by_side_only_on_one_transformer(tmp_path):
    """A claim pairs two package configs' runs on one corpus and budget, and
    only where they fine-tuned the same transformer on the same data; a claim
    with no pair says which runs it needs."""
    import tables

    def trf_run(encoder, head, seed, f, transformer="minilm"):
        return {**fake_run("wnut17", encoder, head, seed, f, nested=False, steps=1000), "transformer": transformer}

    write_runs(tmp_path, [
        *(trf_run("global_pointer_trf", "global_pointer_trf,head_lr_scale=20", seed, f)
          for seed, f in enumerate((0.60, 0.61, 0.62))),
        *(trf_run("lcrf_ner_trf", "lcrf_ner_trf,transitions=crf", seed, f)
          for seed, f in enumerate((0.55, 0.56, 0.57))),
        trf_run("lcrf_ner_trf", "lcrf_ner_trf", 0, 0.99, transformer="another-bert"),
    ])
    lines = tables.claims_table(tables.read_runs(tmp_path))
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| paper")]
    assert rows == [
        "| GlobalPointer (Su et al.) | a span pointer beats a CRF over the same encoder | WNUT-17 | `doc.ents` "
        "| 1,000 | `global_pointer_trf`, `head_lr_scale=20` | 61.0 (60.0-62.0) | 61.0 / 61.0 "
        "| `lcrf_ner_trf`, `transitions=crf` | 56.0 (55.0-57.0) | 56.0 / 56.0 | +5.00 "
        "| `global_pointer_trf`, `head_lr_scale=20` ahead (seeds 3 / 3; test) |"]
    missing = [line for line in lines if line.startswith("- Not run yet")]
    assert len(missing) == 2 and "--vars.config cse_ner_trf` and `--vars.config lcrf_ner_trf`" in missing[1]


@pytest.mark.parametrize("name,chosen", [("global_pointer", True), ("cse_ner", True), ("lcrf_ner", False)])
def test_every_head_with_a_threshold_has_it_chosen_on_dev(name, chosen, tmp_path):
    """compare tunes each head's threshold with the tool docs/thresholds.md
    names for it (find-threshold for global_pointer and cse_ner); lcrf_ner
    has none. The chosen threshold is set on the pipeline that is scored."""
    import spacy

    from tests.helpers.trained_pipelines import trained_dir, write_genia_dev

    model = trained_dir(name)
    tune_path = write_genia_dev(tmp_path / "tune.spacy", limit=30)
    nlp = spacy.load(model)
    tuning = compare.tune(nlp, tune_path, "ents_f", trials=5)
    if not chosen:
        assert tuning is None
        return
    assert tuning["tool"] == "spacy find-threshold's scan (5 thresholds from 0 to 1) on one prediction of dev"
    assert tuning["scores_key"] == "ents_f"
    assert tuning["threshold"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    assert nlp.get_pipe(name).cfg["threshold"] == tuning["threshold"]


def test_the_fair_table_sets_only_the_configs_as_shipped_beside_spacy(tmp_path):
    """A sweep's runs of other settings stay in BENCHMARKS.md: the fair table
    shows a variant only where its settings are what the config ships now."""
    import tables

    def trf_run(head, settings, f):
        return {**fake_run("wnut17", "global_pointer_trf", head, 0, f, nested=False, steps=1000), "settings": settings}

    shipped = Config().from_disk(REPO_ROOT / "configs" / "global_pointer_trf.cfg")["components"]["global_pointer"]
    scale = shipped["head_lr_scale"]
    write_runs(tmp_path, [
        trf_run(f"global_pointer_trf,head_lr_scale={scale:g}", {"head_lr_scale": scale}, 0.62),
        trf_run("global_pointer_trf,head_lr_scale=1000", {"head_lr_scale": 1000}, 0.99),
        trf_run("ner", {}, 0.55),
    ])
    groups = tables.read_runs(tmp_path)
    rows = [line for line in tables.fair_table(groups, True, "B.md") if line.startswith("| WNUT-17")]
    assert len(rows) == 1 and f"`head_lr_scale={scale:g}` | {scale:g}x | 62.0 |" in rows[0]
    assert "head_lr_scale=1000" in "\n".join(tables.compare_tables(groups))


def test_spacys_head_on_two_configs_that_train_it_alike_is_trained_once(monkeypatch, tmp_path):
    """crener_trf and global_pointer_trf share the transformer block, optimizer,
    schedule and batcher, so spancat on either is one training: the second
    name takes the first one's run, marked `trained_as`; spancat on crener's
    CPU encoder (another tok2vec) trains on its own."""
    corpus_dir, training_dir, runs_dir = tmp_path / "corpus", tmp_path / "training", tmp_path / "runs"
    corpus_dir.mkdir()
    split = {"n_docs": 4, "max_length": 3}
    (corpus_dir / "stats.json").write_text(json.dumps(
        {"lang": "en", "nested": True, "train_limit": 3000, **{part: {**split, "n_tokens": 12} for part in
                                                               ("train", "dev", "test")}}))
    trained = []

    def fake_training(command, env):
        output = Path(command[command.index("--output") + 1])
        trained.append(output)
        (output / "model-last").mkdir()
        (output / "train_stats.json").write_text(json.dumps({"steps": 2}))
        return 100.0

    monkeypatch.setattr(compare, "train_and_measure", fake_training)
    monkeypatch.setattr(compare, "score", lambda model, corpus_dir, nested, trials: {
        "scores": {"spans": {"p": 0.5, "r": 0.5, "f": 0.5}}, "scores_at_default": {}, "tuning": None})
    run = functools.partial(compare.run_seed, "genia", seed=0, corpus_dir=corpus_dir,
                            configs_dir=REPO_ROOT / "configs", training_dir=training_dir, runs_dir=runs_dir,
                            steps=2, threads=1, gpu_id=-1, transformer="/models/tiny-bert", warmup=1)
    first = json.loads(run(name="spancat@global_pointer_trf").read_text())
    second = json.loads(run(name="spancat@crener_trf").read_text())
    assert len(trained) == 1 and "trained_as" not in first
    assert second["trained_as"] == "genia/global_pointer_trf/spancat/steps2-warmup1-train3000/seed0.json"
    assert second["encoder_of"] == "crener_trf" and second["config_file"] == "configs/crener_trf.cfg"
    assert "--vars.config spancat@crener_trf" in second["command"]
    assert second["scores"] == first["scores"] and second["train"] == first["train"]
    run(name="spancat@global_pointer")
    run(name="spancat@crener")
    assert len(trained) == 3 and trained[-1].parts[-4:-1] == ("crener", "spancat", "steps2-warmup1-train3000")


def test_the_head_chooser_says_where_each_head_leads_and_where_nowhere(tmp_path):
    """A lead is claimed only at 3 seeds a side and 1 F or more; a head with
    no claim says 'nowhere yet', and every head's costs come from its runs."""
    import tables

    write_runs(tmp_path, [
        *(fake_run("genia", "global_pointer", "global_pointer", seed, f) for seed, f in enumerate((0.75, 0.76, 0.77))),
        *(fake_run("genia", "global_pointer", "spancat", seed, f) for seed, f in enumerate((0.72, 0.73, 0.74))),
        *(fake_run("genia", "crener", "crener", seed, f) for seed, f in enumerate((0.735, 0.74, 0.745))),
        *(fake_run("genia", "crener", "spancat", seed, f) for seed, f in enumerate((0.73, 0.735, 0.74))),
        fake_run("resume", "crener", "crener", 0, 0.90, nested=False),
        fake_run("resume", "crener", "ner", 0, 0.92, nested=False),
        *(fake_run("weibo", "crener", "crener", seed, 0.40, nested=False) for seed in range(3)),
        *(fake_run("weibo", "crener", "ner", seed, 0.45, nested=False) for seed in range(3)),
    ])
    speed = tmp_path.parent / f"{tmp_path.name}-speed"  # beside the runs, not among them
    speed.mkdir()
    (speed / "genia.json").write_text(json.dumps({"corpus": "genia", "command": "measure test.spacy", "pipelines": {
        "global_pointer/global_pointer/steps4000": {"words_per_second": 60000.0},
        "global_pointer/spancat/steps4000": {"words_per_second": 5000.0}}}))
    lines = tables.chooser(tables.read_runs(tmp_path), tables.read_speed(speed))
    rows = {line.split(" | ")[0]: line for line in lines[2:]}
    # predict words/s where both sides of a pair were timed in one run, per corpus
    assert rows["| `global_pointer`"].endswith("| GENIA 60,000 / 5,000 (`spancat`) |")
    assert rows["| `crener`"].endswith("| - |") and lines[0].count("|") == lines[2].count("|")
    assert ("| GENIA all spans +3.00 on spaCy `spancat` (3 seeds, test) | GENIA `doc.ents`"
            not in rows["| `global_pointer`"])
    assert "| GENIA all spans +3.00 on spaCy `spancat` (3 seeds, test) |" in rows["| `global_pointer`"]
    crener = rows["| `crener`"]
    assert "| nowhere yet | GENIA all spans +0.50 on spaCy `spancat` (3 seeds, test) |" in crener
    assert "Resume `doc.ents` -2.00 on spaCy `ner` (1 seed, test)" in crener
    # a claim against the head is a claim, in its column
    assert "Weibo `doc.ents` -5.00 on spaCy `ner` (3 seeds, test): spaCy `ner` ahead, a claim" in crener
    assert "| nowhere yet |" in crener
    assert "| no run beside spaCy's head yet |" in rows["| `cse_ner`"]
    assert crener.endswith("| 1,000-1,000 | 900 | - |")
