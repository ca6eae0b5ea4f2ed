"""Every arm of the LCRF_NER paper trains with `spacy train` from its config
in configs/ (the user's path, in a subprocess with the user's environment)."""
import os
import subprocess
import sys

import pytest
import spacy

from spacy_globalner.corpora import convert
from tests.helpers import REPO_ROOT

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
@pytest.mark.parametrize("arm", list(ARMS))
def test_arm_trains_from_its_config(arm, corpora, tmp_path):
    config, overrides, component = ARMS[arm]
    env = {key: value for key, value in os.environ.items() if not key.endswith("_NUM_THREADS")}
    command = [
        sys.executable, "-m", "spacy", "train", str(REPO_ROOT / "configs" / config),
        "--paths.train", str(corpora / "train.spacy"), "--paths.dev", str(corpora / "dev.spacy"),
        "--output", str(tmp_path / "out"), "--training.max_steps", "20", "--training.eval_frequency", "10",
        *overrides,
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names[-1] == component
    for option, value in zip(overrides[::2], overrides[1::2]):
        *path, key = option.lstrip("-").split(".")
        section = nlp.config
        for part in path:
            section = section[part]
        assert str(section[key]) == value
    assert "ents_f" in nlp.meta["performance"]
