"""Search-space files: what they accept, the catalogue errors for what they
do not, and the values a trial draws."""
import json

import optuna
import pytest
from thinc.api import Config

from spacy_globalner.tuning.space import Setting, missing_settings, read_space, suggest
from tests.helpers import REPO_ROOT

SPACES = REPO_ROOT / "configs" / "spaces"


def write(path, data):
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_an_include_comes_first_and_the_files_own_entries_replace_it(tmp_path):
    write(tmp_path / "shared.json", {"training.dropout": {"float": [0.0, 0.3]},
                                     "training.max_steps": {"int": [100, 400], "step": 100}})
    space = read_space(write(tmp_path / "head.json", {"include": ["shared.json"],
                                                       "training.dropout": {"categorical": [0.1, 0.2]}}))
    assert list(space) == ["training.dropout", "training.max_steps"]
    assert space["training.dropout"] == Setting("training.dropout", "categorical", choices=(0.1, 0.2))
    assert space["training.max_steps"] == Setting("training.max_steps", "int", low=100, high=400, step=100)


@pytest.mark.parametrize("spec, code, named", [
    ({"float": [0.3, 0.1]}, "E411", "low < high"),
    ({"float": [0.0, 0.1], "log": True}, "E411", "above 0"),
    ({"int": [1.5, 4]}, "E411", "ints"),
    ({"float": [0.1, 0.3], "step": 2}, "E411", '"step"'),
    ({"categorical": []}, "E411", "non-empty"),
    ({"float": [0.1, 0.3], "int": [1, 2]}, "E411", "exactly one"),
    ({"floot": [0.1, 0.3]}, "E411", "exactly one"),
    ({"float": [0.1, 0.3], "lg": True}, "E411", "'lg'"),
])
def test_a_bad_entry_names_the_setting_its_value_and_a_fix(tmp_path, spec, code, named):
    path = write(tmp_path / "space.json", {"training.dropout": spec})
    with pytest.raises(ValueError) as err:
        read_space(path)
    message = str(err.value)
    assert message.startswith(f"[{code}]") and "training.dropout" in message and named in message
    assert "e.g." in message


@pytest.mark.parametrize("text, named", [("{not json", "not valid JSON"), ("[1, 2]", "JSON object"),
                                         ("{}", "no setting"), ('{"include": "x.json"}', "list")])
def test_an_unreadable_space_is_E410(tmp_path, text, named):
    with pytest.raises(ValueError, match=r"\[E410\].*" + named):
        read_space(write(tmp_path / "space.json", text))


def test_a_missing_file_and_a_circular_include_are_catalogue_errors(tmp_path):
    with pytest.raises(ValueError, match=r"\[E410\].*nothing\.json"):
        read_space(tmp_path / "nothing.json")
    write(tmp_path / "a.json", {"include": ["b.json"], "training.dropout": {"float": [0.0, 0.3]}})
    write(tmp_path / "b.json", {"include": ["a.json"]})
    with pytest.raises(ValueError, match=r"\[E413\]"):
        read_space(tmp_path / "a.json")


def test_a_trial_draws_every_setting_within_its_range():
    space = read_space(SPACES / "global_pointer.json")
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(20):
        values = suggest(study.ask(), space)
        assert set(values) == set(space)
        assert 0.0005 <= values["training.optimizer.learn_rate.initial_rate"] <= 0.005
        assert values["training.max_steps"] in range(1000, 4001, 500)
        assert values["components.tok2vec.model.encode.width"] in (64, 96, 128)
        assert values["components.global_pointer.model.head_width"] in (32, 64, 128)


@pytest.mark.parametrize("name, config", [("global_pointer", "global_pointer.cfg")])
def test_the_shipped_space_names_only_settings_of_its_config(name, config):
    composed = Config().from_disk(REPO_ROOT / "configs" / config, interpolate=False)
    assert missing_settings(composed, read_space(SPACES / f"{name}.json")) == []
    assert missing_settings(composed, {"training.drop_out": None, "components.global_pointer.model": None}) == [
        "training.drop_out", "components.global_pointer.model"]
