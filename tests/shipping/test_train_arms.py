"""Every arm of the LCRF_NER paper trains with `spacy train` from its config
in configs/ (the user's command line: the first arm in a subprocess with the
user's environment, the others through spaCy's CLI in this process)."""
import pytest
import spacy

from spacy_globalner.corpora import convert
from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import one_in_a_subprocess

ARMS = {
    "cse": ("cse_ner.cfg", [], "cse_ner"),
    "softmax+entity_fix": ("lcrf_ner_softmax.cfg", [], "lcrf_ner"),
    "softmax": ("lcrf_ner_softmax.cfg", ["--components.lcrf_ner.entity_fix", "none"], "lcrf_ner"),
    "crf": ("lcrf_ner.cfg", ["--components.lcrf_ner.model.transitions", "crf"], "lcrf_ner"),
    "crf+penalties bioes": ("lcrf_ner.cfg", ["--components.lcrf_ner.model.tag_scheme", "bioes"], "lcrf_ner"),
}


@pytest.fixture(scope="module")
def corpora(shared_data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("arms")
    source = shared_data / "germeval2014"
    convert(source / "germ.train.iob2", folder / "train.spacy", format="germeval", limit=200)
    convert(source / "germ.dev.iob2", folder / "dev.spacy", format="germeval", limit=50)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(("arm", "run_command"), one_in_a_subprocess(list(ARMS), list(ARMS)))
def test_arm_trains_from_its_config(arm, run_command, corpora, tmp_path):
    config, overrides, component = ARMS[arm]
    returncode, output = run_command([
        "train", REPO_ROOT / "configs" / config,
        "--paths.train", corpora / "train.spacy", "--paths.dev", corpora / "dev.spacy",
        "--output", tmp_path / "out", "--training.max_steps", "10", "--training.eval_frequency", "5",
        *overrides,
    ])
    assert returncode == 0, output[-3000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names[-1] == component
    for option, value in zip(overrides[::2], overrides[1::2]):
        *path, key = option.lstrip("-").split(".")
        section = nlp.config
        for part in path:
            section = section[part]
        assert str(section[key]) == value
    assert "ents_f" in nlp.meta["performance"]
