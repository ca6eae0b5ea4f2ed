"""The project's tuning: each shipped search space names settings of the
config it tunes (spaCy's heads composed on a package encoder as compare
composes them), and compare's tuned=NAME trains exactly the chosen settings."""
import json
import sys

import pytest

from spacy_globalner.tuning.space import missing_settings, read_space
from tests.helpers import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "project" / "scripts"))

from compare import compose, read_tuned, with_params  # noqa: E402
from tune_run import study_name  # noqa: E402

CONFIGS = REPO_ROOT / "configs"
STATS = {"lang": "en", "train": {"max_length": 6}}


@pytest.mark.parametrize("config, head, space", [("global_pointer", None, "global_pointer.json"),
                                                 ("global_pointer", "ner", "ner.json"),
                                                 ("global_pointer", "spancat", "spancat.json")])
def test_each_shipped_space_names_settings_of_the_config_it_tunes(tmp_path, config, head, space):
    composed = compose(CONFIGS / f"{config}.cfg", head, STATS, tmp_path / "stats.json")
    assert missing_settings(composed, read_space(CONFIGS / "spaces" / space)) == []


def test_a_tuned_run_trains_the_settings_the_study_chose(tmp_path):
    assert study_name("ner@global_pointer") == "ner" and study_name("global_pointer") == "global_pointer"
    best = {"study": "ner", "trial": 3, "value": 0.2, "metric": "ents_f",
            "params": {"training.dropout": 0.25, "components.ner.model.hidden_width": 32,
                       "training.max_steps": 1500}}
    (tmp_path / "wnut17" / "ner").mkdir(parents=True)
    (tmp_path / "wnut17" / "ner" / "best.json").write_text(json.dumps(best))
    tuned = read_tuned(tmp_path, "wnut17", "ner")
    composed = with_params(compose(CONFIGS / "global_pointer.cfg", "ner", STATS, tmp_path / "s.json"), tuned["params"])
    assert composed["training"]["dropout"] == 0.25 and composed["training"]["max_steps"] == 1500
    assert composed["components"]["ner"]["model"]["hidden_width"] == 32
    with pytest.raises(SystemExit, match="tune_run.py"):
        read_tuned(tmp_path, "wnut17", "spancat")
