"""The tables `spacy project run tables` writes from compare's JSON: which
runs are set side by side, what each verdict supports, the head chooser and
the papers' claims, and the README's summary of the chooser, on run JSONs
written as compare.py writes them."""
import json
import sys

from thinc.api import Config

from tests.helpers import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

from chooser import chooser, summary  # noqa: E402
from claims import claims_table  # noqa: E402
from pairing import pairs  # noqa: E402
from run_groups import Key, read_runs  # noqa: E402
from speeds import read_speed  # noqa: E402
from tables import compare_tables, fair_table, tuned_table  # noqa: E402

SENTENCES = 1000


def sentence_counts(f):
    """Per-sentence counts whose F is F: the first 1000 F sentences found
    their one entity, the others predicted a wrong one."""
    found = round(SENTENCES * f)
    return ",".join(["1 0 0"] * found + ["0 1 1"] * (SENTENCES - found))


def fake_run(corpus, encoder, head, seed, f, nested=True, steps=4000):
    """A run JSON as compare.py writes it, with F (a fraction) on every view."""
    return {"test_sentences": {view: sentence_counts(f) for view in ("spans", "ents")},
            "corpus": corpus, "config": head if head not in ("ner", "spancat") else f"{head}@{encoder}",
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
    lines = fair_table(read_runs(tmp_path), transformer=False, link="B.md",
                              speed=read_speed(speed))
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| corpus")]
    assert rows == [
        "| GENIA | all spans | `global_pointer.cfg` | 4,000 | `global_pointer` | 76.0 (75.0-77.0) "
        "| spaCy `spancat` | 73.0 (72.0-74.0) | +3.00 | `global_pointer` ahead, p < 0.001 (seeds 3 / 3) | test "
        "| 30,000 / 5,000 |",
        "| GENIA | `doc.ents` | `global_pointer.cfg` | 4,000 | `global_pointer` | 76.0 (75.0-77.0) "
        "| spaCy `ner` | 70.0 | +6.00 | one seed: not a claim, p < 0.001 (seeds 3 / 1) | test | - |",
        "| GermEval 2014 | `doc.ents` | `lcrf_ner.cfg` | 4,000 | `lcrf_ner` | 60.0 "
        "| spaCy `ner` | 59.5 | +0.50 | one seed: not a claim, p = 0.062 (seeds 1 / 1) | test | - |",
        "| WNUT-17 | `doc.ents` | `global_pointer.cfg` | 4,000 | `global_pointer` | 30.0 "
        "| spaCy `ner` | 35.0 | -5.00 | one seed: not a claim, p < 0.001 (seeds 1 / 1) | test | - |"]
    assert "Predict words/s: `python scripts/measure.py pipeline-speed genia test.spacy` (in project/)." in lines
    assert not any("pipeline-speed wnut17 trf" in line for line in lines)
    short = fair_table(read_runs(tmp_path), transformer=False, link="B.md",
                              speed=read_speed(speed), explain=False)
    assert [line for line in short if line.startswith("| ") and not line.startswith("| corpus")] == rows
    assert fair_table(read_runs(tmp_path), transformer=True, link="B.md")[0].startswith("No pair")


def test_a_claim_needs_the_seeds_ranges_apart_to_say_so(tmp_path):
    write_runs(tmp_path, [
        *(fake_run("genia", "crener", "crener", seed, f) for seed, f in enumerate((0.70, 0.74, 0.75))),
        *(fake_run("genia", "crener", "spancat", seed, f) for seed, f in enumerate((0.71, 0.72, 0.72))),
    ])
    groups = read_runs(tmp_path)
    (row,) = [line for line in fair_table(groups, False, "B.md") if line.startswith("| GENIA")]
    assert "`crener.cfg` (crener adds a BiLSTM of its own in the head)" in row
    assert "| +1.33 | not a claim: the seeds' ranges overlap, p < 0.001 (seeds 3 / 3) |" in row
    page = "\n".join(compare_tables(groups))
    assert ("| `crener` | 4,000 | `crener` | 3 | test | all spans | 73.0 (70.0-75.0) | 73.0 | 73.0 "
            "| 72.0 (69.0-74.0) |") in page
    assert "`runs/genia/crener/spancat/steps4000/seed{0,1,2}.json`" in page


def test_seeds_trained_from_two_versions_of_a_config_name_both(tmp_path):
    edited = {**fake_run("genia", "crener", "crener", 1, 0.71), "config_sha256": "cd" * 32}
    write_runs(tmp_path, [fake_run("genia", "crener", "crener", 0, 0.70), edited])
    page = "\n".join(compare_tables(read_runs(tmp_path)))
    assert "`configs/crener.cfg` (sha256 ababababab, cdcdcdcdcd)" in page


def test_a_row_on_a_cut_corpus_says_how_many_train_sentences(tmp_path):
    """A run on the first 3,000 train sentences is never read as one on all of them."""
    runs = [fake_run("genia", "global_pointer_trf", head, 0, f, steps=1000)
            for head, f in (("global_pointer_trf", 0.70), ("spancat", 0.66))]
    for run in runs:
        run["data"]["train_limit"] = 3000
    write_runs(tmp_path, runs)
    groups = read_runs(tmp_path)
    (row,) = [line for line in fair_table(groups, True, "B.md") if line.startswith("| GENIA")]
    assert "| 100 | 1,000 (-) | `global_pointer_trf` |" in row
    assert "| 1,000 on 3,000 train sentences |" in "\n".join(compare_tables(groups))


def test_a_run_shared_by_two_encoders_names_the_training_it_is(tmp_path):
    """spancat@crener_trf taken from spancat@global_pointer_trf's training pairs
    with crener_trf, is timed as that training's pipeline, and BENCHMARKS.md
    says whose training it was."""
    twin = "genia/global_pointer_trf/spancat/steps1000/seed0.json"
    runs = [fake_run("genia", "crener_trf", "crener_trf", 0, 0.70, steps=1000),
            {**fake_run("genia", "crener_trf", "spancat", 0, 0.66, steps=1000), "trained_as": twin}]
    write_runs(tmp_path, runs)
    speed = tmp_path.parent / f"{tmp_path.name}-speed"  # beside the runs, not among them
    speed.mkdir()
    (speed / "genia_trf.json").write_text(json.dumps({"corpus": "genia", "command": "measure test.spacy", "pipelines": {
        "crener_trf/crener_trf/steps1000": {"words_per_second": 900.0},
        "global_pointer_trf/spancat/steps1000": {"words_per_second": 600.0}}}))
    groups = read_runs(tmp_path)
    (row,) = [line for line in fair_table(groups, True, "B.md", read_speed(speed))
              if line.startswith("| GENIA")]
    assert "| `crener_trf` | 20x | 70.0 | spaCy `spancat` | 66.0 | +4.00 |" in row and row.endswith("| 900 / 600 |")
    assert f"(the same training as `runs/{twin}`)" in "\n".join(compare_tables(groups))


def test_a_row_scored_on_test_is_never_set_beside_one_scored_on_dev(tmp_path):
    """Seeds rerun on test replace the folder's seeds scored on the reporting
    half of dev, and a pair needs both sides on one split."""
    old = {"nested": True, "train_sentences": 100, "scored_on": "report.spacy (odd-numbered dev docs)"}
    write_runs(tmp_path, [
        fake_run("genia", "crener", "crener", 0, 0.75),
        {**fake_run("genia", "crener", "crener", 1, 0.99), "data": old},
        {**fake_run("genia", "crener", "spancat", 0, 0.70), "data": old},
    ])
    groups = read_runs(tmp_path)
    assert groups[Key("genia", "crener", "crener", "steps4000")].seeds == [0]
    assert pairs(groups, transformer=False) == []
    # the table names the pair it leaves out, so a row never vanishes unsaid
    table = "\n".join(fair_table(groups, transformer=False, link="BENCHMARKS.md"))
    assert "Left out until both sides are scored on one split: GENIA all spans `crener` (test, 1 seed)" in table
    assert "spaCy `spancat` (dev half, 1 seed)" in table


def test_a_row_rerun_on_test_replaces_its_dev_half_row_and_no_other(tmp_path):
    """global_pointer_trf rerun on test on all of train (at its shipped head
    rate, named plainly) replaces its row on the dev half of a cut corpus
    (rate named); crener_trf, not rerun yet, keeps its dev-half row and pair."""
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
    groups = read_runs(tmp_path)
    rows = [(head.key.head, head.key.budget, baseline.split) for head, baseline, _ in pairs(groups, True)]
    assert rows == [("crener_trf", "steps1000-train3000", "dev half"), ("global_pointer_trf", "steps1000", "test")]
    # a rerun whose spaCy side has not landed on test yet leaves the old row in place
    (tmp_path / "genia" / "global_pointer_trf" / "spancat" / "steps1000" / "seed0.json").unlink()
    groups = read_runs(tmp_path)
    rows = [(head.key.head, head.key.budget) for head, _, _ in pairs(groups, True)]
    assert ("global_pointer_trf,head_lr_scale=5", "steps1000-train3000") in rows
    # BENCHMARKS.md still shows the replaced row's runs
    assert "global_pointer_trf,head_lr_scale=5" in "\n".join(compare_tables(groups))


def test_a_dev_half_pair_kept_under_devhalf_keeps_its_row_and_timing_beside_a_test_rerun(tmp_path):
    """WNUT-17's dev-half runs trained in the folder their test reruns take;
    they live on under BUDGET-devhalf. spaCy's ner rerun on test first: the
    dev-half pair keeps its row and its timing (found by the folder its train
    command names), and a dev-half timing never serves a test row."""
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
    groups = read_runs(tmp_path / "runs")
    (row,) = [line for line in fair_table(groups, True, "B.md", read_speed(speed), explain=False)
              if line.startswith("| WNUT-17")]
    assert "| 61.0 | spaCy `ner` | 55.0 |" in row and row.endswith("| dev half | 1,236 / 1,230 |")
    # BENCHMARKS.md lists both of ner's runs, each under its own folder
    listed = "\n".join(compare_tables(groups))
    assert "ner/steps1000/seed{0}.json" in listed and "ner/steps1000-devhalf/seed{0}.json" in listed


def test_spacys_head_at_a_raised_rate_is_set_beside_at_the_rate_dev_chose(tmp_path):
    """spaCy's ner run at 1x, 2x and 5x the whole optimizer's rate: the table
    sets the shipped head beside 1x and beside the scale with the best dev F
    (2x), never the best on test (5x), and says what was tried; where 1x wins
    on dev no raised row appears."""
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
    groups = read_runs(tmp_path)
    table = fair_table(groups, True, "B.md")
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
    assert "spaCy `ner`, `learn_rate_scale=5`" in "\n".join(compare_tables(groups))


def test_a_papers_claim_sets_two_package_heads_side_by_side_only_on_one_transformer(tmp_path):
    """A claim pairs two package configs' runs on one corpus and budget, and
    only where they fine-tuned the same transformer on the same data; a claim
    with no pair says which runs it needs."""
    def trf_run(encoder, head, seed, f, transformer="minilm"):
        return {**fake_run("wnut17", encoder, head, seed, f, nested=False, steps=1000), "transformer": transformer}

    write_runs(tmp_path, [
        *(trf_run("global_pointer_trf", "global_pointer_trf,head_lr_scale=20", seed, f)
          for seed, f in enumerate((0.60, 0.61, 0.62))),
        *(trf_run("lcrf_ner_trf", "lcrf_ner_trf,transitions=crf", seed, f)
          for seed, f in enumerate((0.55, 0.56, 0.57))),
        trf_run("lcrf_ner_trf", "lcrf_ner_trf", 0, 0.99, transformer="another-bert"),
    ])
    lines = claims_table(read_runs(tmp_path))
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| paper")]
    assert rows == [
        "| GlobalPointer (Su et al.) | a span pointer beats a CRF over the same encoder | WNUT-17 | `doc.ents` "
        "| 1,000 | `global_pointer_trf`, `head_lr_scale=20` | 61.0 (60.0-62.0) | 61.0 / 61.0 "
        "| `lcrf_ner_trf`, `transitions=crf` | 56.0 (55.0-57.0) | 56.0 / 56.0 | +5.00 "
        "| `global_pointer_trf`, `head_lr_scale=20` ahead, p < 0.001 (seeds 3 / 3; test) |"]
    missing = [line for line in lines if line.startswith("- Not run yet")]
    assert len(missing) == 2 and "--vars.config cse_ner_trf` and `--vars.config lcrf_ner_trf`" in missing[1]


def test_the_fair_table_sets_only_the_configs_as_shipped_beside_spacy(tmp_path):
    """A sweep's runs of other settings stay in BENCHMARKS.md: the fair table
    shows a variant only where its settings are what the config ships now."""
    def trf_run(head, settings, f):
        return {**fake_run("wnut17", "global_pointer_trf", head, 0, f, nested=False, steps=1000), "settings": settings}

    shipped = Config().from_disk(REPO_ROOT / "configs" / "global_pointer_trf.cfg")["components"]["global_pointer"]
    scale = shipped["head_lr_scale"]
    write_runs(tmp_path, [
        trf_run(f"global_pointer_trf,head_lr_scale={scale:g}", {"head_lr_scale": scale}, 0.62),
        trf_run("global_pointer_trf,head_lr_scale=1000", {"head_lr_scale": 1000}, 0.99),
        trf_run("ner", {}, 0.55),
    ])
    groups = read_runs(tmp_path)
    rows = [line for line in fair_table(groups, True, "B.md") if line.startswith("| WNUT-17")]
    assert len(rows) == 1 and f"`head_lr_scale={scale:g}` | {scale:g}x | 62.0 |" in rows[0]
    assert "head_lr_scale=1000" in "\n".join(compare_tables(groups))


def test_the_head_chooser_says_where_each_head_leads_and_where_nowhere(tmp_path):
    """A lead is claimed only at 3 seeds a side and 1 F or more; a head with
    no claim says 'nowhere yet', and every head's costs come from its runs."""
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
    lines = chooser(read_runs(tmp_path), read_speed(speed))
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


def test_the_readme_summary_gives_each_head_a_line_from_the_chooser(tmp_path):
    """What the README says of each head is the chooser's verdicts, claims first."""
    write_runs(tmp_path, [
        *(fake_run("genia", "global_pointer", "global_pointer", seed, f) for seed, f in enumerate((0.75, 0.76, 0.77))),
        *(fake_run("genia", "global_pointer", "spancat", seed, f) for seed, f in enumerate((0.72, 0.73, 0.74))),
        fake_run("resume", "global_pointer", "global_pointer", 0, 0.93, nested=False),
        fake_run("resume", "global_pointer", "ner", 0, 0.92, nested=False),
        *(fake_run("weibo", "crener", "crener", seed, 0.40, nested=False) for seed in range(3)),
        *(fake_run("weibo", "crener", "ner", seed, 0.45, nested=False) for seed in range(3)),
    ])
    lines = summary(read_runs(tmp_path))
    assert lines == [
        "- `global_pointer`: ahead, a claim: GENIA all spans +3.00 on spaCy `spancat` (3 seeds, test). "
        "Ahead, not a claim: Resume `doc.ents` +1.00 on spaCy `ner` (1 seed, test).",
        "- `crener`: no claim yet. Level or behind: Weibo `doc.ents` -5.00 on spaCy `ner` (3 seeds, test): "
        "spaCy `ner` ahead, a claim.",
    ]


def test_heads_tuned_equally_sit_side_by_side_at_their_own_chosen_budgets(tmp_path):
    """A tuned package head is set beside spaCy's head tuned on the same corpus
    and encoder with as many finished trials, whatever budget each chose; a
    study of another size is no pair."""
    def tuned_run(head, study, seed, f, steps, trials=8):
        run = fake_run("wnut17", "global_pointer", f"{head},tuned={study}", seed, f, nested=False, steps=steps)
        params = {"training.max_steps": steps, "training.dropout": 0.1}
        return {**run, "settings": {"tuned": study},
                "tuned": {"study": study, "trial": 2, "value": 0.2, "metric": "ents_f", "params": params,
                          "finished_trials": trials}}
    write_runs(tmp_path, [
        *(tuned_run("global_pointer", "global_pointer", s, f, 3500) for s, f in enumerate((0.20, 0.21, 0.22))),
        *(tuned_run("ner", "ner", s, f, 2500) for s, f in enumerate((0.15, 0.16, 0.17))),
        *(tuned_run("ner", "ner6", s, 0.10, 2000, trials=6) for s in range(3)),
    ])
    groups = read_runs(tmp_path)
    lines = tuned_table(groups, "B.md")
    rows = [line for line in lines if line.startswith("| WNUT-17")]
    assert rows == [
        "| WNUT-17 | `doc.ents` | `global_pointer.cfg` | 8 | `global_pointer`, `tuned=global_pointer` "
        "| 3,500 updates, dropout 0.10 | 21.0 (20.0-22.0) | spaCy `ner`, `tuned=ner` | 2,500 updates, dropout 0.10 "
        "| 16.0 (15.0-17.0) | +5.00 | `global_pointer`, `tuned=global_pointer` ahead, p < 0.001 (seeds 3 / 3) "
        "| test |"]
    assert not any("tuned=" in line for line in fair_table(groups, False, "B.md"))


def test_a_side_that_did_not_converge_gets_no_gap(tmp_path):
    def run(head, seed, f, dev):
        return {**fake_run("genia", "crener_trf", head, seed, f), "train": {"final_dev_score": dev}}
    write_runs(tmp_path, [run("crener_trf", 0, 0.33, 0.17), run("spancat", 0, 0.70, 0.71)])
    (row,) = [line for line in fair_table(read_runs(tmp_path), True, "B.md") if line.startswith("| GENIA")]
    assert "| - | `crener_trf` did not converge (dev F 17.0) (seeds 1 / 1) |" in row
