"""`spacy globalner tune` on a slice of GENIA: a study that searches, prunes,
writes its results, resumes from its database, refuses another space, and
tunes spaCy's own heads as it tunes the package's."""
import json

import pytest
from spacy.tokens import DocBin
from spacy.util import load_config
from thinc.api import Config

from spacy_globalner.tuning import run_study
from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import run_spacy
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, genia_docs

LCRF_NER = REPO_ROOT / "configs" / "lcrf_ner.cfg"
# A rate that learns in 60 updates and one that cannot learn at all: the
# second falls below the first's dev score half-way and is pruned there.
RATES = {"training.optimizer.learn_rate": {"categorical": [0.01, 1e-9]}}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    import spacy

    root = tmp_path_factory.mktemp("genia")
    nlp = spacy.blank("en")
    for name, path, limit in (("train", GENIA_TRAIN, 300), ("dev", GENIA_DEV, 60)):
        DocBin(docs=genia_docs(nlp, limit=limit, path=path), store_user_data=True).to_disk(root / f"{name}.spacy")
    return root


def overrides(corpus, steps=60):
    return {"paths.train": str(corpus / "train.spacy"), "paths.dev": str(corpus / "dev.spacy"),
            "training.max_steps": steps, "components.tok2vec.model.encode.width": 32}


def test_a_study_prunes_the_trial_that_cannot_learn_and_writes_the_best_config(tmp_path, corpus):
    space = tmp_path / "space.json"
    space.write_text(json.dumps(RATES))
    output = tmp_path / "study"
    study = run_study(LCRF_NER, space, output, trials=4, overrides=overrides(corpus), metric="ents_f",
                      startup_trials=1, prune_from=0, seed=0)
    trials = json.loads((output / "trials.json").read_text())["trials"]
    states = {row["params"]["training.optimizer.learn_rate"]: row["state"] for row in trials}
    assert len(trials) == 4
    assert states[0.01] == "complete" and states[1e-9] == "pruned"
    learnt = [row for row in trials
              if row["state"] == "complete" and row["params"]["training.optimizer.learn_rate"] == 0.01]
    assert learnt[0]["value"] > 0.05 and set(learnt[0]["dev_by_budget_percent"]) == {"25", "50", "75"}
    pruned = [row for row in trials if row["state"] == "pruned"]
    assert pruned and all(len(row["dev_by_budget_percent"]) < 3 for row in pruned)
    best = json.loads((output / "best.json").read_text())
    assert best["params"] == {"training.optimizer.learn_rate": 0.01} and best["value"] == study.best_value
    config = load_config(output / "best.cfg")
    assert config["training"]["optimizer"]["learn_rate"] == 0.01
    assert config["training"]["max_steps"] == 60 and config["paths"]["train"].endswith("train.spacy")

    # Resumed from its database, the study runs only the trials it lacks.
    resumed = run_study(LCRF_NER, space, output, trials=5, overrides=overrides(corpus), metric="ents_f",
                        startup_trials=1, prune_from=0, seed=0)
    assert len(resumed.trials) == 5
    assert [row["params"] for row in json.loads((output / "trials.json").read_text())["trials"][:4]] == [
        row["params"] for row in trials]

    # Another space cannot join the study: its trials would not compare.
    space.write_text(json.dumps({"training.dropout": {"float": [0.0, 0.3]}}))
    with pytest.raises(ValueError, match=r"\[E418\]"):
        run_study(LCRF_NER, space, output, trials=6, overrides=overrides(corpus))


def test_spacys_own_ner_tunes_from_the_command_line_as_a_user_runs_it(tmp_path, corpus):
    """spaCy's `ner` (spacy init config's block) on this package's encoder,
    with the shipped ner space, through `python -m spacy globalner tune`."""
    from spacy.cli.init_config import init_config

    config = init_config(lang="en", pipeline=["ner"], optimize="efficiency", silent=True)
    config_path = tmp_path / "ner.cfg"
    config.to_disk(config_path)
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"training.dropout": {"float": [0.0, 0.3]},
                                 "components.ner.model.hidden_width": {"categorical": [32, 64]}}))
    code, out = run_spacy(["globalner", "tune", config_path, space, "--output", tmp_path / "out", "--trials", "2",
                           "--metric", "ents_f", "--paths.train", corpus / "train.spacy",
                           "--paths.dev", corpus / "dev.spacy", "--training.max_steps", "20",
                           "--components.tok2vec.model.encode.width", "32"])
    assert code == 0, out
    assert "Saved the best config" in out
    best = Config().from_disk(tmp_path / "out" / "best.cfg")
    assert best["components"]["ner"]["model"]["hidden_width"] in (32, 64)
    assert len(json.loads((tmp_path / "out" / "trials.json").read_text())["trials"]) == 2


def test_a_setting_the_config_lacks_and_a_metric_it_does_not_score_are_catalogue_errors(tmp_path, corpus):
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"training.optimizer.learn_rate.initial_rate": {"float": [0.001, 0.01]}}))
    with pytest.raises(ValueError, match=r"\[E412\].*training\.optimizer\.learn_rate\.initial_rate"):
        run_study(LCRF_NER, space, tmp_path / "a", trials=1, overrides=overrides(corpus))
    space.write_text(json.dumps({"training.dropout": {"float": [0.0, 0.3]}}))
    with pytest.raises(ValueError, match=r"\[E415\].*spans_f1.*ents_f"):
        run_study(LCRF_NER, space, tmp_path / "b", trials=1, overrides=overrides(corpus, steps=8),
                  metric="spans_f1")
