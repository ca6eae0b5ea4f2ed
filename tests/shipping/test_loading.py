"""Loading a trained pipeline as users do, with spacy.load(path, config=...):

- a setting given in the config is the value used, for every setting of every
  component; only learned state (labels, widths inferred at initialize) comes
  from the saved cfg;
- a damaged, truncated or incomplete saved component is a catalogue error that
  names the component and the file, never a silent change of predictions.
"""
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Callable, Optional

import pytest
import spacy
import srsly

from tests.helpers import head_module
from tests.helpers.spacy_commands import user_env
from tests.helpers.trained_pipelines import COMPONENTS, component_params, predictions, sample_texts, trained_dir

TEXTS = sample_texts(12)


def load(name: str, path: Optional[Path] = None, **settings):
    config = {"components": {name: settings}} if settings else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spacy.load(path or trained_dir(name), config=config)


def all_spans(docs):
    return [span for doc in docs for key in doc.spans for span in doc.spans[key]]


def no_spans(docs) -> bool:
    return not all_spans(docs) and not any(doc.ents for doc in docs)


def spans_but_no_ents(docs) -> bool:
    return bool(all_spans(docs)) and not any(doc.ents for doc in docs)


def spans_at_most(width: int) -> Callable:
    return lambda docs: bool(all_spans(docs)) and all(len(s) <= width for s in all_spans(docs))


def spans_only_under(key: str) -> Callable:
    return lambda docs: all(set(doc.spans) <= {key} for doc in docs) and any(
        doc.spans.get(key) for doc in docs
    )


# (component, setting, value given at load, what the predictions then show that
# the saved setting's do not: a check, "differs" (other spans or scores), or None
# where the setting acts only in training or does not show on this small model)
OVERRIDES = [
    ("global_pointer", "threshold", 1.0, no_spans),  # a probability: no span scores 1.0
    ("global_pointer", "set_ents", False, spans_but_no_ents),
    ("global_pointer", "max_span_width", 1, spans_at_most(1)),
    ("global_pointer", "spans_key", "genia", spans_only_under("genia")),
    ("crener", "threshold", 1.0, no_spans),  # a probability: no span scores above 1
    ("crener", "set_ents", False, spans_but_no_ents),
    ("crener", "max_grid_length", 8, "differs"),  # the smallest windows: other scores
    ("crener", "positive_weight", 2.0, None),
    ("crener", "spans_key", "genia", spans_only_under("genia")),
    ("lcrf_ner", "constrained", True, None),
    ("lcrf_ner", "entity_fix", "lenient", None),
    ("lcrf_ner", "spans_key", "genia", spans_only_under("genia")),
]


@pytest.mark.parametrize(
    "name,setting,value,shows", OVERRIDES, ids=[f"{row[0]}-{row[1]}" for row in OVERRIDES]
)
def test_setting_given_at_load_is_used(name, setting, value, shows):
    default = load(name)
    assert default.get_pipe(name).cfg[setting] != value  # the row tests a change
    nlp = load(name, **{setting: value})
    pipe = nlp.get_pipe(name)
    assert nlp.config["components"][name][setting] == value
    assert pipe.cfg[setting] == value
    assert pipe.labels == default.get_pipe(name).labels  # learned state still loaded
    got = list(nlp.pipe(TEXTS))
    # The same as the loaded default pipe with the setting changed in Python:
    # by the pipe's property where the model reads the setting, else in cfg.
    default_pipe = default.get_pipe(name)
    if isinstance(getattr(type(default_pipe), setting, None), property):
        setattr(default_pipe, setting, value)
    else:
        default_pipe.cfg[setting] = value
    assert predictions(got) == predictions(default.pipe(TEXTS))
    if shows == "differs":
        assert predictions(got) != predictions(load(name).pipe(TEXTS))
    elif shows is not None:
        assert shows(got)
        assert not shows(list(load(name).pipe(TEXTS)))


def test_inferred_width_comes_from_the_saved_cfg():
    """max_span_width = null in the config: the width initialize() inferred is
    restored, whether the config says null itself or is left alone.
    """
    saved = srsly.read_json(trained_dir("global_pointer") / "global_pointer" / "cfg")
    assert isinstance(saved["max_span_width"], int)
    for settings in ({}, {"max_span_width": None}):
        pipe = load("global_pointer", **settings).get_pipe("global_pointer")
        assert pipe.cfg["max_span_width"] == saved["max_span_width"]


def test_settings_of_the_created_pipe_win_in_from_bytes():
    source = load("global_pointer")
    config = dict(source.config["components"]["global_pointer"])
    del config["factory"]
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("global_pointer", config={**config, "threshold": 1.0})
    pipe.from_bytes(source.get_pipe("global_pointer").to_bytes())
    assert pipe.cfg["threshold"] == 1.0
    assert pipe.labels == source.get_pipe("global_pointer").labels
    assert no_spans(list(nlp.pipe(TEXTS))) and not no_spans(list(source.pipe(TEXTS)))


def test_cfg_edited_before_saving_warns_and_the_config_wins(tmp_path):
    nlp = load("global_pointer")
    pipe = nlp.get_pipe("global_pointer")
    configured = nlp.config["components"]["global_pointer"]["threshold"]
    pipe.cfg["threshold"] = 0.9
    with pytest.warns(UserWarning, match=r"W005.*'threshold'.*0\.9"):
        nlp.to_disk(tmp_path / "edited")
    assert load("global_pointer", tmp_path / "edited").get_pipe("global_pointer").cfg["threshold"] == configured
    kept = load("global_pointer", tmp_path / "edited", threshold=0.9)
    assert kept.get_pipe("global_pointer").cfg["threshold"] == 0.9
    # An inferred width is learned state: an edit of it is saved, with no warning.
    pipe.cfg["threshold"] = configured
    pipe.cfg["max_span_width"] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.to_disk(tmp_path / "narrow")
    assert load("global_pointer", tmp_path / "narrow").get_pipe("global_pointer").cfg["max_span_width"] == 2


# Damaged saved components ----------------------------------------------------


def copy_pipeline(name: str, tmp_path: Path) -> Path:
    path = tmp_path / "pipeline"
    shutil.copytree(trained_dir(name), path)
    return path


def overwrite_weights(data: bytes, nlp, name: str, *, torch_weights: bool) -> bytes:
    """Overwrite up to 10 KB of one weight array, where it lies in `data`, with
    0xFF bytes (NaN as float32): the file still parses, the weights do not.
    """
    model = nlp.get_pipe(name).model
    if torch_weights:
        module = head_module(model)
        array = max(
            (t for t in module.state_dict().values() if t.is_floating_point()), key=lambda t: t.numel()
        ).detach().cpu().numpy()
    else:
        node = next(node for node in model.walk() if node.name == "hashembed")
        array = model.ops.to_numpy(node.get_param("E"))
    raw = array.tobytes()
    offset = data.find(raw[:256])
    assert offset > 0
    size = min(len(raw), 10240)
    return data[:offset] + b"\xff" * size + data[offset + size:]


@pytest.mark.parametrize("torch_weights", [False, True], ids=["thinc", "torch"])
@pytest.mark.parametrize("name", component_params())
def test_non_finite_weights_do_not_load(name, torch_weights, tmp_path):
    path = copy_pipeline(name, tmp_path)
    model_file = path / name / "model"
    nlp = load(name)
    model_file.write_bytes(overwrite_weights(model_file.read_bytes(), nlp, name, torch_weights=torch_weights))
    with pytest.raises(ValueError, match=rf"E016.*'{name}'.*non-finite.*{re.escape(str(model_file))}"):
        load(name, path)
    damaged = overwrite_weights(nlp.get_pipe(name).to_bytes(), nlp, name, torch_weights=torch_weights)
    with pytest.raises(ValueError, match=r"E016.*'model' entry of the bytes"):
        load(name).get_pipe(name).from_bytes(damaged)


@pytest.mark.parametrize("name", component_params())
def test_truncated_model_names_the_file(name, tmp_path):
    path = copy_pipeline(name, tmp_path)
    model_file = path / name / "model"
    data = model_file.read_bytes()
    model_file.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=rf"E015.*'{name}' from {re.escape(str(model_file))}.*incomplete input"):
        load(name, path)
    pipe_bytes = load(name).get_pipe(name).to_bytes()
    with pytest.raises(ValueError, match=rf"E017.*'{name}' from bytes.*incomplete input"):
        load(name).get_pipe(name).from_bytes(pipe_bytes[: len(pipe_bytes) // 2])
    with pytest.raises(ValueError, match=rf"E017.*'{name}' from bytes.*found a list"):
        load(name).get_pipe(name).from_bytes(srsly.msgpack_dumps([1, 2]))


@pytest.mark.parametrize("part", ["model", "cfg"])
@pytest.mark.parametrize("name", component_params())
def test_missing_file_names_it(name, part, tmp_path):
    path = copy_pipeline(name, tmp_path)
    (path / name / part).unlink()
    with pytest.raises(ValueError, match=rf"E013.*'{name}': {re.escape(str(path / name / part))} is missing"):
        load(name, path)
    msg = srsly.msgpack_loads(load(name).get_pipe(name).to_bytes())
    del msg[part]
    with pytest.raises(ValueError, match=rf"E013.*'{part}' entry of the bytes"):
        load(name).get_pipe(name).from_bytes(srsly.msgpack_dumps(msg))


@pytest.mark.parametrize("text", ['{"labels": ["DNA"', "[]", '{"spans_key": "sc"}'])
@pytest.mark.parametrize("name", component_params())
def test_unreadable_cfg_names_it(name, text, tmp_path):
    path = copy_pipeline(name, tmp_path)
    (path / name / "cfg").write_text(text, encoding="utf8")
    with pytest.raises(ValueError, match=rf"E014.*'{name}': {re.escape(str(path / name / 'cfg'))} is not a valid"):
        load(name, path)


@pytest.mark.parametrize("name", component_params())
def test_cfg_with_fewer_labels_than_the_weights(name, tmp_path):
    path = copy_pipeline(name, tmp_path)
    cfg = srsly.read_json(path / name / "cfg")
    assert len(cfg["labels"]) > 3
    cfg["labels"] = cfg["labels"][:3]
    srsly.write_json(path / name / "cfg", cfg)
    with pytest.raises(ValueError, match=rf"E015.*{re.escape(str(path / name / 'model'))}.*lists 3 label\(s\)"):
        load(name, path)
    msg = srsly.msgpack_loads(load(name).get_pipe(name).to_bytes())
    msg["cfg"] = srsly.json_dumps(cfg).encode("utf8")
    with pytest.raises(ValueError, match=r"E015.*'model' entry of the bytes.*lists 3 label\(s\)"):
        load(name).get_pipe(name).from_bytes(srsly.msgpack_dumps(msg))


@pytest.mark.parametrize("name", component_params())
def test_intact_pipeline_still_round_trips(name):
    nlp = load(name)
    pipe = nlp.get_pipe(name)
    assert predictions(nlp.pipe(TEXTS)) == predictions(load(name).pipe(TEXTS))
    clone = load(name)
    clone.get_pipe(name).from_bytes(pipe.to_bytes())
    assert predictions(clone.pipe(TEXTS)) == predictions(nlp.pipe(TEXTS))


USER_SCRIPT = """
import sys
from importlib.metadata import entry_points
import spacy
# One process for every component: the first load finds the package through
# its entry points alone; the later ones would find their factory in the
# registry the first filled, so each factory's entry point is looked up too.
factories = {point.name: point for point in entry_points(group="spacy_factories")}
args = sys.argv[1:]
for path, name, damaged in zip(args[::3], args[1::3], args[2::3]):
    nlp = spacy.load(path, config={"components": {name: {"spans_key": "genia"}}})
    print(name, "key", nlp.get_pipe(name).key)
    print(name, "entry point", name in factories and factories[name].load() is not None)
    try:
        spacy.load(damaged)
    except ValueError as err:
        print(name, "error", err)
"""


def test_user_process_loads_settings_and_refuses_damage(tmp_path):
    """As a user's script runs it: a fresh process, the package found through
    its entry points, no thread variables, a timeout that turns a hang into a failure.
    """
    args = []
    for name in COMPONENTS:
        damaged = copy_pipeline(name, tmp_path / name)
        (damaged / name / "model").write_bytes(b"\xff" * 100)
        args += [str(trained_dir(name)), name, str(damaged)]
    env = user_env()
    result = subprocess.run(
        [sys.executable, "-c", USER_SCRIPT, *args], capture_output=True, text=True, timeout=300, env=env,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for name in COMPONENTS:
        damaged = tmp_path / name / "pipeline"
        assert f"{name} key genia" in lines and f"{name} entry point True" in lines
        assert any(line.startswith(f"{name} error [E015]") and str(damaged / name / "model") in line
                   for line in lines), name


def test_architecture_setting_given_at_load_is_used(tmp_path):
    """The head's attrs are the architecture's settings: a value given at load
    wins over the saved one, as for the component's settings."""
    nlp = load("crener")
    head = nlp.get_pipe("crener").model.get_ref("head")
    saved = head.attrs["max_batch_cells"]
    override = {"components": {"crener": {"model": {"max_batch_cells": saved // 4}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = spacy.load(trained_dir("crener"), config=override)
    assert loaded.get_pipe("crener").model.get_ref("head").attrs["max_batch_cells"] == saved // 4
    texts = ["IL-2 gene expression requires NF-kappa B activation ."]
    assert [s.text for s in loaded(texts[0]).spans["sc"]] == [s.text for s in nlp(texts[0]).spans["sc"]]
