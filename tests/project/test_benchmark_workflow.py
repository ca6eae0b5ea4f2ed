"""The benchmark workflow's scripts (project/scripts): config composition and
the report, on tiny fake inputs; predict-speed and head-cost on two updates of a tiny model;
the probes of project/probes that pages quote."""
import json
import sys

import pytest
from spacy.util import load_model_from_config
from thinc.api import Config

from tests.helpers import REPO_ROOT

SCRIPTS = REPO_ROOT / "project" / "scripts"
PROBES = REPO_ROOT / "project" / "probes"
sys.path.insert(0, str(SCRIPTS))
sys.path.insert(0, str(PROBES))

import measure  # noqa: E402  (registers the benchmark's logger and step timer)
import report  # noqa: E402

import configs as bench_configs  # noqa: E402

from common import CORPORA, HEADS, parse_heads  # noqa: E402

ENCODER_SECTIONS = ("optimizer", "batcher")


def encoder_block(config: Config, encoder: str = "tok2vec") -> dict:
    """What must be identical across heads: encoder, listener, optimizer, batcher, budget."""
    (head,) = [name for name in config["nlp"]["pipeline"] if name != encoder]
    return {
        "encoder": config["components"][encoder],
        "listener": config["components"][head]["model"]["tok2vec"],
        "training": {key: config["training"][key] for key in ENCODER_SECTIONS},
        "budget": (config["training"]["max_steps"], config["training"]["seed"],
                   config["system"]["seed"]),
        "corpora": config["corpora"],
    }


@pytest.fixture(scope="module")
def composed():
    return {
        head: bench_configs.compose(head, encoder="cpu", lang="en", steps=7, max_entity_length=4)
        for head in HEADS
    }


def test_every_head_has_a_config_and_a_budgeted_corpus():
    for head in HEADS:
        assert bench_configs.head_block(head)["components"]
    assert {"genia", "germeval2014", "wnut17", "weibo", "resume", "cluener"} <= set(CORPORA)
    assert parse_heads("all") == list(HEADS)
    assert parse_heads("ner,spancat") == ["ner", "spancat"]
    with pytest.raises(SystemExit):
        parse_heads("nerr")


def test_spacy_heads_are_the_blocks_spacy_init_config_writes():
    """spaCy's ner and spancat come from `spacy init config`, so on a transformer
    ner's upper layer is off as spaCy's -G template sets it, and on the CPU on."""
    assert bench_configs.head_block("ner")["components"]["ner"]["model"]["use_upper"] is True
    on_transformer = bench_configs.head_block("ner", transformer=True)["components"]["ner"]["model"]
    assert on_transformer["use_upper"] is False and "tok2vec" not in on_transformer
    spancat = bench_configs.head_block("spancat")
    assert spancat["components"]["spancat"]["threshold"] == 0.5
    assert spancat["training"]["score_weights"]["spans_sc_f"] == 1.0


def test_heads_share_an_identical_encoder_block(composed):
    blocks = {head: encoder_block(config) for head, config in composed.items()}
    first = blocks[list(HEADS)[0]]
    for head, block in blocks.items():
        assert block == first, head
    assert composed["global_pointer_efficient"]["components"]["global_pointer"]["model"]["efficient"]
    assert not composed["global_pointer"]["components"]["global_pointer"]["model"]["efficient"]


def test_budget_and_spancat_sizes(composed):
    for config in composed.values():
        assert config["training"]["max_steps"] == 7
        assert config["training"]["eval_frequency"] == 7
        assert config["training"]["patience"] == 0
    assert composed["spancat"]["components"]["spancat"]["suggester"]["sizes"] == [1, 2, 3, 4]


@pytest.mark.parametrize("head", HEADS)
def test_composed_config_validates(composed, head):
    config = Config().from_str(composed[head].to_str(interpolate=False))
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names[0] == "tok2vec" and len(nlp.pipe_names) == 2


def test_chinese_corpora_get_the_character_tokenizer():
    config = bench_configs.compose("global_pointer", lang="zh", steps=5)
    assert config["nlp"]["lang"] == "zh"
    assert config["nlp"]["tokenizer"] == {"@tokenizers": "spacy.zh.ChineseTokenizer", "segmenter": "char"}
    nlp = load_model_from_config(Config().from_str(config.to_str(interpolate=False)), auto_fill=True)
    assert [t.text for t in nlp.make_doc("北京大学")] == ["北", "京", "大", "学"]


def test_transformer_encoder_is_shared_too():
    pytest.importorskip("spacy_transformers")
    configs = [bench_configs.compose(head, encoder="trf", steps=5, transformer="some/model")
               for head in ("global_pointer", "ner", "spancat")]
    blocks = [encoder_block(config, "transformer") for config in configs]
    assert all(block == blocks[0] for block in blocks)
    assert blocks[0]["listener"]["@architectures"] == "spacy-transformers.TransformerListener.v1"
    assert configs[0]["paths"]["transformer"] == "some/model"


def test_training_seconds_replaces_evaluation_steps_by_a_median_update():
    starts = {0: 0.0, 1: 10.0, 2: 11.0, 3: 12.0}
    ends = {0: 9.0, 1: 11.0, 2: 12.0, 3: 20.0}  # steps 0 and 3 include an evaluation
    # four 1 s updates and the 1 s of batching between steps 0 and 1
    assert measure.training_seconds(starts, ends, [0, 3]) == pytest.approx(5.0)
    assert measure.training_seconds({}, {}, []) == 0.0


def fake_run(nested: bool, gp_f: float) -> dict:
    def head(f, train_wps, overhead, exponent):
        acc = {"p": f, "r": f, "f": f, "per_type": {"X": {"p": f, "r": f, "f": f}}}
        points = [{"n_tokens": n, "seconds": n / 1e4, "peak_rss_growth_mb": n / 100}
                  for n in (100, 1000)]
        return {
            "train": {"steps": 7, "train_words_per_second": train_wps, "train_seconds": 3.0,
                      "wall_seconds": 9.0},
            "accuracy": {"spans": acc, "ents": acc, **({"outer": acc} if nested else {})},
            "prediction": {"full": {"words_per_second": 900.0, "peak_rss_growth_mb": 5.0},
                           "encoder": {"words_per_second": 1000.0},
                           "head_overhead": overhead},
            "length_scaling": {"points": points, "memory_exponent": exponent},
        }

    return {
        "corpus": {"nested": nested, "train_limit": 10, "lang": "en"},
        "corpus_stats": {"train": {"n_tokens": 100}, "dev": {"n_docs": 5}},
        "machine": {"cpu": "fake", "cpu_count": 2, "threads": {"torch": 1}},
        "command": "spacy project run benchmark project/",
        "heads": {
            "global_pointer": head(gp_f, 500.0, 0.05, 1.0),
            "crener": head(0.4, 100.0, 2.0, 2.0),
            "lcrf_ner": head(0.3, 600.0, 0.04, 1.0),
            "ner": head(0.5, 700.0, 0.03, 1.0),
            "spancat": head(0.2, 400.0, 0.5, 1.0),
        },
    }


def test_report_writes_table_goals_and_plots(tmp_path):
    results = {"runs": {"nested_fake": {"cpu": fake_run(True, 0.6)},
                        "flat_fake": {"cpu": fake_run(False, 0.45)}}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    report.render(path, tmp_path / "out")
    table = (tmp_path / "out" / "table.md").read_text()
    for name in ("f1.png", "throughput.png", "memory_vs_length.png"):
        assert (tmp_path / "out" / name).stat().st_size > 1000
    assert "## nested_fake (cpu encoder)" in table and "## flat_fake (cpu encoder)" in table
    assert "| global_pointer | 60.0 | 60.0 | 60.0 | 60.0 |" in table
    assert "| global_pointer >= spancat (all spans F) | yes | global_pointer 60.0 vs spancat 20.0 |" in table
    assert "| global_pointer >= ner (ents F) | **no** | global_pointer 45.0 vs ner 50.0 |" in table
    assert "| global_pointer training throughput >= lcrf_ner | **no** |" in table
    assert "| crener prediction memory grows linearly (exponent <= 1.3) | **no** | exponent 2.00 |" in table


def test_package_heads_are_the_package_configs(composed):
    """A package head trains what users get: its block is configs/HEAD.cfg's
    component (plus HEADS' overrides), with no copy in the project (nor of
    spaCy's heads, which `spacy init config` writes). The crener heads decode
    at the factory's margin, not their config's: the margin of
    configs/crener.cfg was chosen for 4,000 updates."""
    assert not (bench_configs.CONFIG_DIR / "heads").exists()
    for name, head in HEADS.items():
        if head.source is None:
            continue
        package = Config().from_disk(bench_configs.PACKAGE_CONFIGS / f"{head.source}.cfg",
                                     interpolate=False)
        expected = {**dict(package["components"][head.component]), **head.settings}
        expected["model"] = {**{k: v for k, v in expected["model"].items() if k != "tok2vec"},
                             **head.model_overrides}
        got = dict(composed[name]["components"][head.component])
        got["model"] = {k: v for k, v in got["model"].items() if k != "tok2vec"}
        assert got == expected, name
        assert composed[name]["training"]["score_weights"] == package["training"]["score_weights"]
    for name in ("crener", "crener_paper"):
        assert composed[name]["components"]["crener"]["threshold"] == 0.0
    package = Config().from_disk(bench_configs.PACKAGE_CONFIGS / "crener.cfg", interpolate=False)
    assert package["components"]["crener"]["threshold"] == 1.5


def test_report_targets_come_from_the_targets_file(tmp_path):
    results = {"runs": {"flat_fake": {"cpu": fake_run(False, 0.45)}}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    targets = tmp_path / "targets.yml"
    targets.write_text("head_overhead:\n  - {head: lcrf_ner, max: 0.01}\n")
    report.render(path, tmp_path / "out", targets)
    table = (tmp_path / "out" / "table.md").read_text()
    assert "| lcrf_ner adds <= 1% to encoder-only prediction | **no** | adds 4.0% |" in table
    assert "global_pointer >= ner" not in table  # only the targets in the file are checked
    report.render(path, tmp_path / "default")
    table = (tmp_path / "default" / "table.md").read_text()
    assert "| global_pointer adds <= 10% to encoder-only prediction | yes | adds 5.0% |" in table


def test_project_commands_declare_deps_and_outputs():
    """`spacy project run` skips a step whose deps are unchanged and whose
    outputs exist: every step that writes files declares both, and a script it
    runs is among its deps, so editing the script reruns the step."""
    import re

    import srsly

    project = srsly.read_yaml(SCRIPTS.parent / "project.yml")
    for command in project["commands"]:
        name = command["name"]
        assert command.get("deps"), name
        if name != "show":  # prints only
            assert command.get("outputs"), name
        for line in command["script"]:
            for script in re.findall(r"scripts/\w+\.py", line):
                assert script in command["deps"], (name, script)


def test_trained_heads_skips_heads_without_model_last(tmp_path, capsys):
    from common import trained_heads

    (tmp_path / "ner" / "model-last").mkdir(parents=True)
    (tmp_path / "crener").mkdir()  # training started, no model saved
    assert list(trained_heads(tmp_path, "crener,ner")) == [("ner", tmp_path / "ner" / "model-last")]
    assert "skipping crener" in capsys.readouterr().out


def test_predict_speed_times_configs_side_by_side(tmp_path):
    """`measure.py predict-speed` trains each config a little, prints one
    line per config with its words/s and the head's share, and saves them.
    In a subprocess: it fixes its own torch threads."""
    import subprocess

    from spacy_globalner.corpora import convert
    from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, SMALL_MODELS

    convert(GENIA_TRAIN, tmp_path / "train.spacy", format="genia", limit=60)
    convert(GENIA_DEV, tmp_path / "dev.spacy", format="genia", limit=20)
    paths = []
    for head in ("crener", "crener_paper"):
        config = bench_configs.compose(head, encoder="cpu", lang="en", steps=7, max_entity_length=4)
        model = config["components"]["crener"]["model"]
        small = {k: v for k, v in SMALL_MODELS["crener"].items() if k not in ("@architectures", "tok2vec")}
        model.update({**small, **HEADS[head].model_overrides})
        paths.append(tmp_path / f"{head}.cfg")
        config.to_disk(paths[-1])
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "measure.py"), "predict-speed", str(tmp_path / "train.spacy"),
         str(tmp_path / "dev.spacy"), *map(str, paths), "--updates", "2", "--docs", "20", "--repeats", "1",
         "--save-dir", str(tmp_path / "pipes")],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["crener", "crener_paper"]
    assert all("words/s" in line and "head adds" in line for line in lines)
    assert (tmp_path / "pipes" / "crener_paper" / "config.cfg").exists()
    # head-cost on a saved pipeline: the heads' share, split into model and decoding.
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "measure.py"), "head-cost", str(tmp_path / "pipes" / "crener"),
         str(tmp_path / "dev.spacy"), "--docs", "20", "--repeats", "1"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("encoder ") and "heads add" in lines[0]
    assert [line.split(":")[0] for line in lines[1:]] == ["tok2vec", "crener/predict", "crener/set_annotations"]
    assert all(float(line.split(": ")[1].split(" ms")[0]) > 0 for line in lines[1:])


def test_encoder_pull_shows_a_mean_loss_against_spacys_summed_ones(tmp_path):
    """`encoder_pull.py` measures each head's gradient at a tok2vec shared with
    spaCy's ner and spancat. Doubling a batch with copies of its docs keeps
    every doc's gradient under a summed loss (the norm grows by sqrt 2) and
    halves it under a mean (the norm shrinks by sqrt 2): global_pointer's loss
    is a mean over the batch, spancat's a sum, as docs/global_pointer.md's "Loss scale" says."""
    import encoder_pull
    from spacy.tokens import Doc
    from spacy.training import Example
    from thinc.api import Adam

    from spacy_globalner.corpora import convert
    from tests.helpers.trained_pipelines import GENIA_TRAIN

    convert(GENIA_TRAIN, tmp_path / "train.spacy", format="genia", limit=24)
    nlp, head = encoder_pull.shared_pipeline(REPO_ROOT / "configs" / "global_pointer.cfg")
    assert head == "global_pointer" and nlp.pipe_names == ["tok2vec", "global_pointer", "ner", "spancat"]
    gold = encoder_pull.read_gold(nlp, tmp_path / "train.spacy")

    def examples(docs):
        return [Example(Doc(nlp.vocab, words=[t.text for t in doc]), doc) for doc in docs]

    nlp.initialize(lambda: examples(gold))
    optimizer = Adam(0.001)  # as the script does: the config's schedule starts at 0
    for _ in range(3):
        nlp.update(examples(gold[:12]), sgd=optimizer)
    single = encoder_pull.encoder_pulls(nlp, examples(gold[12:20]))
    doubled = encoder_pull.encoder_pulls(nlp, examples(gold[12:20] * 2))
    assert all(value > 0 for value in single.values())
    assert doubled["global_pointer"] == pytest.approx(single["global_pointer"] / 2**0.5, rel=1e-3)
    assert doubled["spancat"] == pytest.approx(single["spancat"] * 2**0.5, rel=1e-3)


def test_threshold_sweep_scores_each_threshold_on_both_halves(tmp_path):
    """The sweep behind the default threshold: the calibrated thresholds are set
    aside, a threshold no cell reaches finds nothing, and a lower one finds
    at least as many spans as a higher one (recall cannot fall)."""
    import warnings

    import spacy
    import threshold_sweep
    from spacy.tokens import DocBin

    from tests.helpers.trained_pipelines import GENIA_DEV, calibrated_dir, genia_docs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = genia_docs(spacy.blank("en"), limit=40, path=GENIA_DEV)
    DocBin(docs=docs).to_disk(tmp_path / "dev.spacy")
    output = tmp_path / "sweep.json"
    model = str(calibrated_dir("global_pointer"))
    # global_pointer's thresholds are probabilities: no span of this small model scores 1.0
    threshold_sweep.main(model, str(tmp_path / "dev.spacy"), str(output), [0.12, 0.5, 1.0])
    rows = json.loads(output.read_text(encoding="utf8"))
    assert set(rows) == {f"{t}/{part}" for t in (0.12, 0.5, 1.0) for part in ("devA", "devB", "dev")}
    assert rows["1.0/dev"]["spans_sc_r"] == 0.0 and rows["1.0/devA"]["ents_f"] == 0.0
    assert rows["0.12/dev"]["spans_sc_r"] >= rows["0.5/dev"]["spans_sc_r"] > 0.0
