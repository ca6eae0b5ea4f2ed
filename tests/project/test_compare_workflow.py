"""The `compare` workflow as a user runs it (`spacy project run compare`), on a
few dozen sentences of the bundled GENIA slice and a few updates: one JSON per
seed, spaCy's baseline on the compared config's encoder, and `tables` writing
the pages' tables from what the runs wrote."""
import hashlib
import json
import shutil
import subprocess
import sys

import pytest
from thinc.api import Config

from tests.helpers import REPO_ROOT

PROJECT = REPO_ROOT / "project"
sys.path.insert(0, str(PROJECT / "scripts"))

import compare  # noqa: E402

SMALL = ["--vars.compare_train_limit", "40", "--vars.compare_dev_limit", "30", "--vars.compare_steps", "3"]


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
    return root / "project"


def run_project(project, workflow, *args):
    done = subprocess.run(
        [sys.executable, "-m", "spacy", "project", "run", workflow, str(project), *args,
         "--vars.data_dir", str(project.parent / "data")],
        capture_output=True, text=True, timeout=600, cwd=project.parent,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
def test_compare_writes_one_json_per_seed(project):
    run_project(project, "compare", "--vars.corpus", "genia", "--vars.config", "global_pointer",
                "--vars.seeds", "0,1", *SMALL)
    run_project(project, "compare", "--vars.corpus", "genia", "--vars.config", "spancat", "--vars.seeds", "2",
                *SMALL)
    runs = project / "benchmarks" / "runs" / "genia"
    assert sorted(path.name for path in (runs / "global_pointer").iterdir()) == ["seed0.json", "seed1.json"]
    assert sorted(path.name for path in (runs / "spancat").iterdir()) == ["seed2.json"]
    config_hash = hashlib.sha256((REPO_ROOT / "configs" / "global_pointer.cfg").read_bytes()).hexdigest()
    for seed in (0, 1):
        run = json.loads((runs / "global_pointer" / f"seed{seed}.json").read_text())
        assert run["seed"] == seed and run["corpus"] == "genia" and run["config"] == "global_pointer"
        assert run["settings"] == {}
        assert run["config_sha256"] == config_hash and len(run["code"]["commit"]) == 40
        assert set(run["versions"]) >= {"spacy", "thinc", "torch"} and run["machine"]["cpu_count"] >= 1
        assert run["budget"]["max_steps"] == 3 and run["data"] == {
            "lang": "en", "nested": True, "train_sentences": 40, "dev_sentences": 30,
            "train_limit": 40, "dev_limit": 30}
        assert set(run["scores"]) == {"spans", "ents", "outer"}
        for view in run["scores"].values():
            assert 0.0 <= view["f"] <= 1.0 and 0.0 <= view["p"] <= 1.0
        assert run["train"]["wall_seconds"] > 0 and run["train"]["words"] > 0
        assert 100 < run["train"]["peak_rss_mb"] < 100_000
        assert run["command"] == ("spacy project run compare project/ --vars.corpus genia --vars.config "
                                  f"global_pointer --vars.seeds {seed} --vars.compare_steps 3 "
                                  "--vars.compare_train_limit 40 --vars.compare_dev_limit 30")
        assert f"--system.seed {seed}" in run["train_command"]
        assert (project / "training" / "compare" / "genia" / "global_pointer" / f"seed{seed}" / "model-last").exists()
    # spaCy's spancat trained on global_pointer's encoder, optimizer, batcher and budget
    baseline = json.loads((runs / "spancat" / "seed2.json").read_text())
    assert baseline["head"] == "spancat" and baseline["encoder_of"] == "global_pointer"
    assert baseline["config_sha256"] == config_hash
    trained = {name: Config().from_disk(project / "training" / "compare" / "genia" / name / seed / "config.cfg",
                                        interpolate=False)
               for name, seed in (("global_pointer", "seed0"), ("spancat", "seed2"))}
    for section in ("optimizer", "batcher"):
        assert trained["spancat"]["training"][section] == trained["global_pointer"]["training"][section]
    assert trained["spancat"]["components"]["tok2vec"] == trained["global_pointer"]["components"]["tok2vec"]
    assert trained["spancat"]["nlp"]["pipeline"] == ["tok2vec", "spancat"]
    assert trained["spancat"]["components"]["spancat"]["suggester"]["sizes"][0] == 1
    # the trained pipelines' predict speed side by side, and peak memory of training on the same batches
    run_project(project, "compare-speed", "--vars.corpus", "genia", "--vars.speed_configs", "global_pointer")
    speed = json.loads((project / "benchmarks" / "speed" / "genia.json").read_text())
    figures = speed["pipelines"]["global_pointer"]
    assert figures["encoder_words_per_second"] > figures["words_per_second"] > 0
    assert 0 < figures["encoder_share"] < 1 and "pipeline-speed genia" in speed["command"]
    memory = subprocess.run(
        [sys.executable, "scripts/measure.py", "train-memory", "genia", "corpus/full/genia", "global_pointer",
         "spancat", "--updates", "2"], capture_output=True, text=True, timeout=600, cwd=project)
    assert memory.returncode == 0, memory.stderr[-3000:]
    assert [line.split(":")[0] for line in memory.stdout.splitlines() if "peak RSS" in line] == [
        "global_pointer", "spancat"]
    # `tables` writes the marked blocks of BENCHMARKS.md and of the README from these files
    readme = project.parent / "README.md"
    readme.write_text("# Title\n\n<!-- results:start -->\nold\n<!-- results:end -->\n\nafter\n")
    run_project(project, "tables")
    page = (project / "BENCHMARKS.md").read_text()
    f = [100 * json.loads((runs / "global_pointer" / f"seed{seed}.json").read_text())["scores"]["spans"]["f"]
         for seed in (0, 1)]
    row = f"| `global_pointer` | 2 | {sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f}) |"
    assert row in page
    assert "--vars.config global_pointer --vars.seeds 0,1 --vars.compare_steps 3" in page
    assert "| `spancat` | 1 |" in page and "spaCy's `spancat` on the encoder" in page
    text = readme.read_text()
    assert text.startswith("# Title\n\n<!-- results:start -->\nDev F in %") and text.endswith("\nafter\n")
    assert "\nold\n" not in text
    assert f"| GENIA | all spans | {sum(f) / 2:.1f} ({min(f):.1f}-{max(f):.1f}), 2 seeds |" in text


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


def test_tables_mark_imported_runs_and_prefer_compare_ones(tmp_path):
    """An imported run (F, P, R in % in the old file) becomes fractions; a run of
    `compare` for the same corpus and config is its own row, and the README's
    table takes it over the imported one."""
    import import_runs
    import tables

    spec = next(spec for spec in import_runs.RUNS if spec.key == "full_spancat_genia")
    imported = import_runs.imported_run(spec, 0, {"spans": [73.65, 76.96, 70.61]}, "8faca2c")
    assert imported["scores"]["spans"] == {"p": 0.7696, "r": 0.7061, "f": 0.7365}
    assert imported["source"] == "imported" and "full_spancat_genia" in imported["imported"]["from"]
    ran = {**imported, "source": "compare", "seed": 1, "config_sha256": "ab" * 32, "head": "spancat",
           "encoder_of": "global_pointer", "config_file": "configs/global_pointer.cfg",
           "code": {"commit": "c" * 40, "uncommitted_changes": False},
           "machine": {"cpu": "cpu", "cpu_count": 2}, "train": {"words_per_second": 1000.0},
           "scores": {"spans": {"p": 0.8, "r": 0.7, "f": 0.75}}}
    for run in (imported, ran):
        path = tmp_path / "genia" / "spancat" / f"seed{run['seed']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(run))
    groups = tables.read_runs(tmp_path)
    assert [group.imported for group in groups["genia"]["spancat"]] == [False, True]
    page = "\n".join(tables.compare_tables(groups))
    assert "| `spancat` | 1 | 75.0 | 80.0 | 70.0 |" in page and "| `spancat`ⁱ | 1 | 73.7 |" in page
    glance = "\n".join(tables.glance_table(groups))
    assert "| GENIA | all spans | - | - | - | 75.0, 1 seed |" in glance and "ⁱ" not in glance


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


def test_transformer_table_has_a_row_per_pipeline_on_a_trf_encoder(tmp_path):
    """The README's transformer table: the runs on a _trf config's encoder (spaCy's
    heads and the variants too), each on its corpus' score, with the predict
    speed measured for it; runs on the CPU configs stay out of it."""
    import tables

    def run(config, seed, f, nested, head):
        return {"corpus": "genia" if nested else "wnut17", "config": config, "seed": seed, "source": "compare",
                "config_sha256": "ab" * 32, "head": head, "encoder_of": config.split(",")[0].split("@")[-1],
                "config_file": "configs/x.cfg", "code": {"commit": "c" * 40, "uncommitted_changes": False},
                "machine": {"cpu": "cpu", "cpu_count": 2, "threads": 1, "gpu": None},
                "budget": {"max_steps": 600},
                "data": {"nested": nested, "train_sentences": 3000 if nested else 3394, "train_limit": 3000 * nested},
                "train": {"words_per_second": 370.0, "peak_rss_mb": 4100},
                "scores": {"spans": {"p": f, "r": f, "f": f}, "ents": {"p": f / 2, "r": f / 2, "f": f / 2}},
                "command": f"spacy project run compare project/ --vars.config {config} --vars.seeds {seed}"}

    runs = [run("global_pointer_trf", 0, 0.6, True, "global_pointer_trf"),
            run("global_pointer_trf", 1, 0.7, True, "global_pointer_trf"),
            run("spancat@global_pointer_trf", 0, 0.5, True, "spancat"),
            run("lcrf_ner_trf,transitions=crf", 0, 0.4, False, "lcrf_ner_trf"),
            run("global_pointer", 0, 0.9, True, "global_pointer")]
    for item in runs:
        path = tmp_path / "runs" / item["corpus"] / item["config"] / f"seed{item['seed']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(item))
    (tmp_path / "speed").mkdir()
    (tmp_path / "speed" / "genia.json").write_text(json.dumps({
        "corpus": "genia", "command": "python scripts/measure.py pipeline-speed genia x",
        "pipelines": {"global_pointer_trf": {"words_per_second": 1234.0, "encoder_share": 0.9}}}))
    lines = tables.transformer_table(tables.read_runs(tmp_path / "runs"), tables.read_speed(tmp_path / "speed"))
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| corpus")]
    assert rows == [
        "| GENIA | `global_pointer` | 2 | all spans | 65.0 (60.0-70.0) | 65.0 | 65.0 | 370 | 4,100 | 1,234 (90%) |",
        "| GENIA | spaCy `spancat` | 1 | all spans | 50.0 | 50.0 | 50.0 | 370 | 4,100 | - |",
        "| WNUT-17 | `lcrf_ner`, `transitions=crf` | 1 | `doc.ents` | 20.0 | 20.0 | 20.0 | 370 | 4,100 | - |"]
    text = "\n".join(lines)
    assert "600 updates" in text and "pipeline-speed genia x" in text
    assert "Train sentences: GENIA 3,000, WNUT-17 3,394 (all), all of dev." in text
