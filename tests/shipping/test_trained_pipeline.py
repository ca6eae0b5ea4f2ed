"""The trained GENIA pipeline committed in packages/, as a user installs it:
the wheel into a fresh virtual environment, beside spacy-globalner from this
checkout, no training. `spacy.load("en_globalner_genia")` by name in a new
process predicts, on the fixed text, exactly what packages/en_globalner_genia/
predictions.json (written beside the meta's scores when the wheel was built)
holds; `spacy globalner annotate en_globalner_genia IN OUT` works by name,
with and without --ray; its `global_pointer`, sourced alone into a blank
pipeline with a sentencizer and an entity_ruler, finds what the whole
pipeline finds.

The fresh environment reaches this environment's site-packages (spaCy, torch)
through a .pth file, so nothing is fetched; spacy-globalner and the wheel are
installed with --no-deps, and the new processes run without PYTHONPATH, so
they import what was installed."""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

PACKAGES = REPO_ROOT / "packages"
EVIDENCE = PACKAGES / "en_globalner_genia"
NAME = "en_globalner_genia"

PREDICT = """
import json, sys
from pathlib import Path
import spacy
nlp = spacy.load("en_globalner_genia")
sys.path.insert(0, sys.argv[1])
from pipeline import predictions, SAMPLE_TEXT
import spacy_globalner
print(json.dumps({"predictions": predictions(nlp, SAMPLE_TEXT), "module": spacy_globalner.__file__,
                  "path": str(nlp.path), "meta": nlp.meta}))
"""

# The README's recipe for adding the trained component to an app, on whole
# abstracts of the bundled GENIA dev slice (sentences joined, so that the
# sentencizer has sentences to split). The ruler marks LPS, which the head does
# not tag, and IL-4, which it tags as a protein.
SOURCE = """
import itertools, json, sys
import spacy
trained = spacy.load("en_globalner_genia")
nlp = spacy.blank("en")
nlp.add_pipe("sentencizer")
ruler = nlp.add_pipe("entity_ruler")
ruler.add_patterns([{"label": "CHEMICAL", "pattern": "LPS"}, {"label": "CHEMICAL", "pattern": "IL-4"}])
nlp.add_pipe("global_pointer", source=trained)
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf8")]
texts = [" ".join(" ".join(row["tokens"]) for row in group)
         for _, group in itertools.groupby(rows, key=lambda row: row["doc"])][:10]
def spans(doc):
    return [[s.start_char, s.end_char, s.label_, round(float(score), 4)]
            for s, score in zip(doc.spans["sc"], doc.spans["sc"].attrs["scores"])]
def ents(doc):
    return [[e.start_char, e.end_char, e.label_] for e in doc.ents]
print(json.dumps({"pipes": nlp.pipe_names, "trained": trained.pipe_names,
                  "whole": [[spans(d), ents(d)] for d in trained.pipe(texts)],
                  "sourced": [[spans(d), ents(d)] for d in nlp.pipe(texts)]}))
"""

GENIA_DEV = REPO_ROOT / "project" / "assets" / "genia" / "dev.jsonl"


def run(cmd, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    (wheel,) = PACKAGES.glob(f"{NAME}-*.whl")
    root = tmp_path_factory.mktemp("user")
    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    Path(purelib, "host.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # A copy of the checkout's package sources: its build/ may hold stale modules.
    source = root / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".ci", "build", "project", "packages", "tests", "docs", "*.egg-info", "__pycache__"))
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
    run(pip + ["--no-build-isolation", str(source)])
    run(pip + [str(wheel)])
    return python


def user_env():
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def test_spacy_load_by_name_predicts_what_was_committed(venv, tmp_path):
    script = tmp_path / "predict.py"
    script.write_text(PREDICT)
    done = run([str(venv), str(script), str(REPO_ROOT / "project" / "scripts")], cwd=tmp_path, env=user_env())
    result = json.loads(done.stdout.splitlines()[-1])
    assert str(venv.parent.parent) in result["module"], result["module"]
    assert result["predictions"] == json.loads((EVIDENCE / "predictions.json").read_text())
    assert result["predictions"]["spans_sc"], "the fixed text has entities"
    meta = result["meta"]
    assert meta["name"] == "globalner_genia" and meta["lang"] == "en"
    assert meta["performance"]["source"] == "packages/en_globalner_genia/test.json"
    test = json.loads((EVIDENCE / "test.json").read_text())
    assert meta["performance"]["spans_sc_f"] == pytest.approx(test["spans_sc_f"])
    for label, scores in test["spans_sc_per_type"].items():
        assert meta["performance"]["spans_sc_per_type"][label] == pytest.approx(scores), label
    assert meta["sources"][0]["license"] == "CC BY 3.0"
    assert any(r.startswith("spacy-globalner>=") for r in meta["requirements"])
    assert (Path(result["path"]) / "GENIA_LICENSE.txt").exists()


def test_the_head_sourced_alone_predicts_what_the_pipeline_predicts(venv, tmp_path):
    script = tmp_path / "source.py"
    script.write_text(SOURCE)
    done = run([str(venv), str(script), str(GENIA_DEV)], cwd=tmp_path, env=user_env())
    result = json.loads(done.stdout.splitlines()[-1])
    # The head holds its own tok2vec: nothing else came along, and it found something.
    assert result["trained"] == ["global_pointer"]
    assert result["pipes"] == ["sentencizer", "entity_ruler", "global_pointer"]
    whole, sourced = result["whole"], result["sourced"]
    assert sum(len(spans) for spans, _ in whole) > 100
    assert [spans for spans, _ in sourced] == [spans for spans, _ in whole]
    # doc.ents: the head's entities, and the ruler's where they overlap none of them.
    kept = 0
    for (_, head_ents), (_, app_ents) in zip(whole, sourced):
        ruler = [ent for ent in app_ents if ent not in head_ents]
        assert [ent for ent in app_ents if ent in head_ents] == head_ents
        assert all(label == "CHEMICAL" for _, _, label in ruler)
        assert not any(start < h_end and h_start < end for start, end, _ in ruler for h_start, h_end, _ in head_ents)
        kept += len(ruler)
    assert kept, "the ruler's LPS overlaps no entity of the head and stays"


@pytest.mark.parametrize("ray", [False, True], ids=["pipe", "ray"])
def test_annotate_by_name(venv, tmp_path, ray):
    if ray:
        pytest.importorskip("ray", reason="the optional `ray` extra is not installed")
    corpus = tmp_path / "abstracts.txt"
    corpus.write_text(json.loads((EVIDENCE / "predictions.json").read_text())["text"] + "\n")
    output = tmp_path / "out.jsonl"
    run([str(venv), "-m", "spacy", "globalner", "annotate", NAME, str(corpus), str(output), "--no-progress"]
        + (["--ray", "--workers", "1", "--format", "jsonl"] if ray else []), cwd=tmp_path, env=user_env())
    (record,) = [json.loads(line) for line in output.read_text().splitlines()]
    expected = json.loads((EVIDENCE / "predictions.json").read_text())
    assert [[s["start_char"], s["end_char"], s["label"]] for s in record["spans"]] == [
        s[:3] for s in expected["spans_sc"]]


def test_the_readme_examples_run_as_written(venv, tmp_path):
    """The README's use of the pipeline, and its recipe for adding the head to
    an app beside an entity_ruler, whose LPS stays in doc.ents."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf8")
    use, recipe = [block for block in re.findall(r"```python\n(.*?)```", readme, flags=re.S)
                   if f'spacy.load("{NAME}")' in block]
    done = run([str(venv), "-c", use], cwd=tmp_path, env=user_env())
    assert "'NF-kappa B', 'protein'" in done.stdout, done.stdout
    assert f'source=spacy.load("{NAME}")' in recipe
    done = run([str(venv), "-c", recipe], cwd=tmp_path, env=user_env())
    spans, ents = (ast.literal_eval(line) for line in done.stdout.splitlines()[-2:])
    assert ("NF-kappa B", "protein") in spans and ("LPS", "CHEMICAL") not in spans
    assert ("LPS", "CHEMICAL") in ents and ("NF-kappa B", "protein") in ents
