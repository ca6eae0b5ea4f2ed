"""Every config in configs/ is complete (init fill-config changes nothing) and
passes `spacy debug config` and `spacy debug data` on corpora made by our
converter. The transformer configs get the tiny BERT built by conftest in place
of their hub model (no network in tests)."""
from pathlib import Path

import pytest
from spacy.cli.debug_config import debug_config
from spacy.cli.debug_data import debug_data
from spacy.cli.init_config import fill_config
from thinc.api import Config

from spacy_globalner.corpora import convert
from test_shipping_common import GENIA_DEV, GENIA_TRAIN, REPO_ROOT

CONFIGS = sorted((REPO_ROOT / "configs").glob("*.cfg"))


def config_params():
    return [
        pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if "trf" in path.stem else [])
        for path in CONFIGS
    ]


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("debug-corpora")
    # debug data calls fewer than 100 training docs an error: take 120.
    convert(GENIA_TRAIN, path / "train.spacy", format="genia", limit=120)
    convert(GENIA_DEV, path / "dev.spacy", format="genia", limit=50)
    return path


def overrides(config_path: Path, corpora: Path, request) -> dict:
    values = {"paths.train": str(corpora / "train.spacy"), "paths.dev": str(corpora / "dev.spacy")}
    if "transformer" in Config().from_disk(config_path, interpolate=False)["paths"]:
        values["paths.transformer"] = str(request.getfixturevalue("tiny_bert_path"))
    return values


def test_configs_found():
    assert {p.stem for p in CONFIGS} >= {"global_pointer", "global_pointer_trf"}


@pytest.mark.parametrize("config_path", config_params())
def test_fill_config_leaves_config_unchanged(config_path, tmp_path):
    filled_path = tmp_path / "filled.cfg"
    fill_config(filled_path, config_path, silent=True)
    original = Config().from_disk(config_path, interpolate=False)
    filled = Config().from_disk(filled_path, interpolate=False)
    assert filled == original


@pytest.mark.parametrize("config_path", config_params())
def test_debug_config(config_path, corpora, request):
    debug_config(config_path, overrides=overrides(config_path, corpora, request))


@pytest.mark.parametrize("config_path", config_params())
def test_debug_data(config_path, corpora, request, capsys):
    try:
        debug_data(config_path, config_overrides=overrides(config_path, corpora, request),
                   silent=False, no_format=True)
    except SystemExit as exit_:  # debug data exits 1 when it finds an error
        pytest.fail(f"debug data found errors (exit {exit_.code}):\n{capsys.readouterr().out[-3000:]}")
    out = capsys.readouterr().out
    assert "Pipeline can be initialized with data" in out
