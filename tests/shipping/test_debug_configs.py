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
from tests.helpers.spacy_commands import one_in_a_subprocess
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, REPO_ROOT

CONFIGS = sorted((REPO_ROOT / "configs").glob("*.cfg"))
TRAINING_BUDGET = '@callbacks = "spacy-globalner.training_budget.v1"'


def optimizer_references_training(path: Path) -> bool:
    """Whether a [training.optimizer...] value refers to ${training.*} in a
    config without the package's before_init callback.

    spacy debug data builds the optimizer from nlp.config as it is, where such
    a reference (total_steps = ${training.max_steps}) is still a string and
    fails validation, though spacy train resolves it. The callback
    spacy-globalner.training_budget.v1 interpolates [training.optimizer] in
    nlp.config before the optimizer is built; a config without it is an
    expected failure of debug data.
    """
    text = path.read_text(encoding="utf8")
    if TRAINING_BUDGET in text:
        return False
    section = ""
    for line in text.splitlines():
        if line.startswith("["):
            section = line
        elif section.startswith("[training.optimizer") and "${training." in line:
            return True
    return False


def config_params(*, debug_data: bool = False):
    params = []
    for path in CONFIGS:
        marks = [pytest.mark.slow] if "trf" in path.stem else []
        if debug_data and optimizer_references_training(path):
            marks.append(pytest.mark.xfail(
                reason="debug data leaves ${training.*} in [training.optimizer] unresolved",
                strict=True,
            ))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def convert_pair(path: Path, train: Path, dev: Path, fmt: str) -> Path:
    # debug data calls fewer than 100 training docs an error: take 120.
    convert(train, path / "train.spacy", format=fmt, limit=120)
    convert(dev, path / "dev.spacy", format=fmt, limit=50)
    return path


@pytest.fixture(scope="module")
def english_corpora(tmp_path_factory) -> Path:
    return convert_pair(tmp_path_factory.mktemp("debug-en"), GENIA_TRAIN, GENIA_DEV, "genia")


# Test corpora by the config's language: the zh configs read characters.
SHARED_CORPORA = {
    "zh": ("resume", "train.char.bmes", "dev.char.bmes", "bmes"),
    "de": ("germeval2014", "germ.train.iob2", "germ.dev.iob2", "germeval"),
}


@pytest.fixture(scope="module")
def shared_corpora(tmp_path_factory, shared_data):
    made = {}

    def get(lang: str) -> Path:
        if lang not in made:
            folder, train, dev, fmt = SHARED_CORPORA[lang]
            made[lang] = convert_pair(tmp_path_factory.mktemp(f"debug-{lang}"),
                                      shared_data / folder / train, shared_data / folder / dev, fmt)
        return made[lang]

    return get


@pytest.fixture
def corpora(config_path, request) -> Path:
    """Converted corpora in the config's language."""
    lang = Config().from_disk(config_path, interpolate=False)["nlp"]["lang"]
    if lang == "en":
        return request.getfixturevalue("english_corpora")
    assert lang in SHARED_CORPORA, f"no test corpus for lang {lang!r}: add one to SHARED_CORPORA"
    return request.getfixturevalue("shared_corpora")(lang)


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


@pytest.mark.parametrize("config_path", config_params(debug_data=True))
def test_debug_data(config_path, corpora, request, capsys):
    try:
        debug_data(config_path, config_overrides=overrides(config_path, corpora, request),
                   silent=False, no_format=True)
    except SystemExit as exit_:  # debug data exits 1 when it finds an error
        pytest.fail(f"debug data found errors (exit {exit_.code}):\n{capsys.readouterr().out[-3000:]}")
    out = capsys.readouterr().out
    assert "Pipeline can be initialized with data" in out


def config_header(path: Path) -> str:
    """The comment a config opens with, before its first section."""
    return path.read_text(encoding="utf8").split("\n[", 1)[0]


# Configs in a language other than English, which a user might pick for English text.
OTHER_LANGUAGE_CONFIGS = [
    path for path in CONFIGS
    if Config().from_disk(path, interpolate=False)["nlp"]["lang"] not in ("en", "zh")
]


def test_only_a_config_named_for_its_corpus_is_in_another_language():
    """A user's text is English unless a config's name says otherwise: the flat
    heads' configs too, whose settings were chosen on German GermEval 2014."""
    assert [path.stem for path in OTHER_LANGUAGE_CONFIGS] == ["lcrf_ner_germeval_levels"]


@pytest.mark.parametrize("name", ["lcrf_ner", "lcrf_ner_softmax", "cse_ner", "lcrf_ner_trf", "cse_ner_trf"])
def test_a_flat_config_says_how_to_train_on_german(name):
    header = " ".join(line.lstrip("# ") for line in config_header(REPO_ROOT / "configs" / f"{name}.cfg").splitlines())
    assert 'lang = "en"' in header and "--nlp.lang de" in header, header


@pytest.mark.parametrize(("path", "run_command"), one_in_a_subprocess(
    OTHER_LANGUAGE_CONFIGS, [path.stem for path in OTHER_LANGUAGE_CONFIGS]))
def test_a_config_in_another_language_says_so_where_a_user_picks_it(path, run_command, tmp_path):
    """Its header names the language, what lang changes and the override,
    and `spacy debug config` accepts that override as written."""
    lang = Config().from_disk(path, interpolate=False)["nlp"]["lang"]
    header = " ".join(line.lstrip("# ") for line in config_header(path).splitlines())
    assert f'lang = "{lang}"' in header and "tokenizer" in header, header
    assert "--nlp.lang en" in header, header
    returncode, output = run_command(["debug", "config", path, "--paths.train", "train.spacy",
                                      "--paths.dev", "dev.spacy", "--nlp.lang", "en"], cwd=tmp_path)
    assert returncode == 0, output[-2000:]
