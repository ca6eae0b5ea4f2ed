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
    data_dir = project.parent / "data"
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
                                  f"global_pointer --vars.seeds {seed} --vars.data_dir {data_dir} "
                                  "--vars.compare_steps 3 "
                                  "--vars.compare_train_limit 40 --vars.compare_dev_limit 30 "
                                  "--vars.threshold_trials 3")
        assert f"--system.seed {seed}" in run["train_command"]
        assert "--training.patience 0" in run["train_command"] and "dev.spacy" in run["train_command"]
        assert (training / "global_pointer" / RUN / f"seed{seed}" / "model-last").exists()
        # its own training's record beside the model, which a re-score reads
        trained_record = json.loads((training / "global_pointer" / RUN / f"seed{seed}" / "trained.json").read_text())
        assert trained_record["code"] == run["code"] and trained_record["started"] == run["started"]
        # each test sentence's counts, for the paired test
        assert set(run["test_sentences"]) == {"spans", "ents", "outer"}
        assert all(len(counts.split(",")) == 30 for counts in run["test_sentences"].values())
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
    # `tables` writes BENCHMARKS.md's blocks and the README's summary from these files
    readme = project.parent / "README.md"
    readme.write_text("# Title\n\n<!-- summary:start -->\nold\n<!-- summary:end -->\n\nafter\n")
    run_project_step(project, capfd, "tables")
    page = (project / "BENCHMARKS.md").read_text()
    f = [100 * json.loads((runs / "global_pointer" / RUN / f"seed{seed}.json").read_text())["scores"]["spans"]["f"]
         for seed in (0, 1)]
    spancat_f = 100 * baseline["scores"]["spans"]["f"]
    mean_f = f"{sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f})"
    assert f"| 3 on 40 train sentences | `global_pointer` | 2 | test | all spans | {mean_f} |" in page
    assert f"--vars.config global_pointer --vars.seeds 0,1 --vars.data_dir {data_dir} --vars.compare_steps 3" in page
    assert "| `global_pointer` | 3 on 40 train sentences | spaCy `spancat` | 1 | test | all spans |" in page
    assert (f"| GENIA | all spans | `global_pointer.cfg` | 3 on 40 train sentences | `global_pointer` "
            f"| {sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f}) | spaCy `spancat` | {spancat_f:.1f} |") in page
    text = readme.read_text()
    assert text.startswith("# Title\n\n<!-- summary:start -->\n- `global_pointer`: ") and text.endswith("\nafter\n")
    assert "\nold\n" not in text


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
    # span_finder proposes spans up to the longest entity, spancat labels them:
    # spancat listens to the package config's encoder, span_finder has one of
    # its own built alike, and annotates in training
    package = Config().from_disk(REPO_ROOT / "configs" / "global_pointer.cfg", interpolate=False)
    config = compare.compose(REPO_ROOT / "configs" / "global_pointer.cfg", "span_finder", stats, PROJECT / "x.json")
    assert config["nlp"]["pipeline"] == ["tok2vec", "span_finder", "spancat"]
    assert config["components"]["span_finder"]["max_length"] == 5
    assert config["components"]["span_finder"]["spans_key"] == config["components"]["spancat"]["spans_key"] == "sc"
    assert config["components"]["spancat"]["suggester"] == {"@misc": "spacy.preset_spans_suggester.v1",
                                                            "spans_key": "sc"}
    assert config["training"]["annotating_components"] == ["span_finder"]
    assert config["components"]["spancat"]["model"]["tok2vec"] == package["components"]["global_pointer"]["model"][
        "tok2vec"]
    assert config["components"]["span_finder"]["model"]["tok2vec"] == package["components"]["tok2vec"]["model"]
    with pytest.raises(SystemExit):
        compare.compose(REPO_ROOT / "configs" / "global_pointer_trf.cfg", "span_finder", stats, PROJECT / "x.json",
                        transformer="roberta-base")
    # The flat configs are English; a GermEval run trains German, as the records measured.
    stats = {"lang": "de", "train": {"max_length": 5}}
    config = compare.compose(REPO_ROOT / "configs" / "lcrf_ner.cfg", None, stats, PROJECT / "x.json")
    assert config["nlp"]["lang"] == "de"
    assert config["nlp"]["tokenizer"] == {"@tokenizers": "spacy.Tokenizer.v1"}


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


def scripts_imported(script):
    """SCRIPT (scripts/NAME.py) and every project script it imports, itself
    or through another."""
    import ast

    found, todo = set(), [script]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        for node in ast.walk(ast.parse((PROJECT / path).read_text(encoding="utf8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            todo += [f"scripts/{name}.py" for name in names if (PROJECT / "scripts" / f"{name}.py").exists()]
    return found


def test_project_commands_declare_deps_and_outputs():
    """`spacy project run` skips a step whose deps are unchanged and whose
    outputs exist: every step that writes files declares both, and a script it
    runs is among its deps with every project script it imports, so editing
    any of them reruns the step. Every dep
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
                for module in scripts_imported(script):
                    assert module in command["deps"], (name, script, module)
        for dep in map(resolved, command["deps"]):
            if dep.startswith(variables["data_dir"]) or any(dep.startswith(out) for out in written):
                continue
            assert (PROJECT / dep).exists(), (name, dep)
        written += map(resolved, command.get("outputs", []))
    names = {command["name"] for command in project["commands"]}
    for workflow, steps in project["workflows"].items():
        assert set(steps) <= names, workflow


def test_a_run_path_names_the_head_encoder_and_budget():
    stats = {"train_limit": 3000, "dev_limit": 0}
    assert compare.run_id("genia", "spancat@crener", 4000, {}) == Path("genia/crener/spancat/steps4000")
    assert compare.run_id("genia", "global_pointer_trf,head_lr_scale=5", 1000, stats, warmup=100) == Path(
        "genia/global_pointer_trf/global_pointer_trf,head_lr_scale=5/steps1000-warmup100-train3000")
    assert compare.reproduce_command("genia", "ner", 1, 1000, stats, warmup=100) == (
        "spacy project run compare project/ --vars.corpus genia --vars.config ner --vars.seeds 1 "
        "--vars.data_dir assets/corpora --vars.compare_steps 1000 --vars.compare_warmup 100 "
        "--vars.compare_train_limit 3000")


def test_every_compared_corpus_with_test_labels_names_its_test_split():
    """compare reports on the official test split; CLUENER publishes none and
    is refused rather than scored on dev."""
    from common import CORPORA

    data = REPO_ROOT.parent / "shared" / "data"
    assert {name for name, corpus in CORPORA.items() if corpus.test is None} == {"cluener"}
    for name, corpus in CORPORA.items():
        if corpus.test is not None and data.exists():
            assert (data / corpus.folder / corpus.test).exists(), name


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
    monkeypatch.setattr(evaluate, "evaluate_pipeline", lambda *args, counts=False: {"sentences": {
        view: [(1, 0, 0)] for view in views_seen}})
    for factory, expected_calls in (("crener", ["spans_sc_f"]), ("global_pointer", ["spans_sc_f", "ents_f"])):
        monkeypatch.setattr(spacy, "load", lambda model, factory=factory: Pipeline(factory))
        calls.clear()
        scored = compare.score(tmp_path, tmp_path, nested=True)
        assert calls == expected_calls
        assert set(scored["tuning"]) == {"spans_sc_f", "ents_f"}
        assert set(scored["scores"]) == set(views_seen)


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

