"""GermEval's two levels in one pipeline: an outer-level component that
writes doc.ents, an inner-level one under its own spans key."""
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import Span
from spacy.training import Example
from thinc.api import fix_random_seed

from spacy_globalner.corpora import convert
from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import user_env

# Outer level, inner level (token offsets, end exclusive).
TRAIN_DATA = [
    ("Die Universität Bonn liegt am Rhein .", [(1, 3, "ORG"), (5, 6, "LOC")], [(2, 3, "LOC")]),
    ("Der ADAC Berlin tagt in Köln .", [(1, 3, "ORG"), (5, 6, "LOC")], [(1, 2, "ORG"), (2, 3, "LOC")]),
]


def make_examples(nlp):
    examples = []
    for text, outer, inner in TRAIN_DATA:
        reference = nlp.make_doc(text)
        reference.spans["outer"] = [Span(reference, s, e, label) for s, e, label in outer]
        reference.spans["inner"] = [Span(reference, s, e, label) for s, e, label in inner]
        reference.ents = list(reference.spans["outer"])
        examples.append(Example(nlp.make_doc(text), reference))
    return examples


@pytest.mark.parametrize("factory", ["lcrf_ner", "cse_ner"])
def test_two_components_learn_one_level_each(factory):
    fix_random_seed(0)
    nlp = spacy.blank("de")
    nlp.add_pipe("tok2vec")
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "*"}
    nlp.add_pipe(factory, name="outer_level", config={"spans_key": "outer", "model": {"tok2vec": listener}})
    nlp.add_pipe(factory, name="inner_level",
                 config={"spans_key": "inner", "set_ents": False, "model": {"tok2vec": listener}})
    examples = make_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(50):
        nlp.update(examples, sgd=optimizer, drop=0.0)
    for text, outer, inner in TRAIN_DATA:
        doc = nlp(text)
        assert [(e.start, e.end, e.label_) for e in doc.ents] == outer
        assert [(s.start, s.end, s.label_) for s in doc.spans["outer"]] == outer
        assert [(s.start, s.end, s.label_) for s in doc.spans["inner"]] == inner
    scores = nlp.evaluate(examples)
    assert scores["ents_f"] == 1.0 and scores["spans_inner_f"] == 1.0 and scores["spans_outer_f"] == 1.0


@pytest.mark.slow
def test_spacy_train_runs_the_two_level_config(shared_data, tmp_path):
    """The user's path: convert with --level-keys, `spacy train` the config, load it."""
    folder = shared_data / "germeval2014"
    for name, source, limit in (("train", "germ.train.iob2", 300), ("dev", "germ.dev.iob2", 100)):
        convert(folder / source, tmp_path / f"{name}.spacy", format="germeval", limit=limit,
                level_keys=["outer", "inner"])
    env = user_env()
    command = [
        sys.executable, "-m", "spacy", "train", str(REPO_ROOT / "configs" / "lcrf_ner_germeval_levels.cfg"),
        "--paths.train", str(tmp_path / "train.spacy"), "--paths.dev", str(tmp_path / "dev.spacy"),
        "--output", str(tmp_path / "out"), "--training.max_steps", "40", "--training.eval_frequency", "20",
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.pipe_names == ["tok2vec", "lcrf_ner_outer", "lcrf_ner_inner"]
    assert nlp.get_pipe("lcrf_ner_inner").cfg["set_ents"] is False
    doc = nlp("Die Universität Bonn liegt am Rhein .")
    assert "outer" in doc.spans and "inner" in doc.spans
    assert "spans_inner_f" in nlp.meta["performance"] and "ents_f" in nlp.meta["performance"]
