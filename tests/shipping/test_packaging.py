"""`spacy package` makes an installable package of a trained pipeline with each
component; installed into a fresh virtual environment with only the package's
declared dependencies, spacy.load(name) in a new process predicts what the
pipeline predicted before packaging.

How the fresh environment gets its dependencies without a network round trip
per package, and without a multi-GB CUDA torch: a wheelhouse is filled with
`pip download` of the package wheels' dependency closure, constrained to the
versions installed in the test's own environment (so torch is the CPU build
pip already finds locally), then `pip install --no-index --find-links
wheelhouse en_shipping_...` installs exactly what the packages declare.
spacy-globalner itself goes in as a wheel built from this checkout.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
import spacy

from tests.helpers import REPO_ROOT
from tests.helpers.trained_pipelines import COMPONENTS, calibrated_dir, predictions, sample_texts, trained_dir

PREDICT_SCRIPT = """
import json, sys
import spacy
# No import of spacy_globalner before loading: spaCy must find the factories
# through the installed package's entry points.
nlp = spacy.load(sys.argv[1])
import spacy_globalner
texts = json.loads(sys.argv[2])
out = []
for doc in nlp.pipe(texts):
    spans = []
    for key in sorted(doc.spans):
        scores = doc.spans[key].attrs.get("scores")
        for i, s in enumerate(doc.spans[key]):
            score = None if scores is None else round(float(scores[i]), 4)
            spans.append([key, s.start, s.end, s.label_, score])
    out.append([doc.text, spans, [[e.start, e.end, e.label_] for e in doc.ents]])
print(json.dumps({"module": spacy_globalner.__file__, "predictions": out}))
"""


def run(cmd: List[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result


def frozen_constraints(path: Path) -> Path:
    """This environment's installed versions, less the editable spacy-globalner."""
    lines = run([sys.executable, "-m", "pip", "freeze"]).stdout.splitlines()
    keep = [
        line for line in lines
        if line and not line.startswith(("-e", "#")) and " @ " not in line
        and "globalner" not in line.lower()
    ]
    path.write_text("\n".join(keep) + "\n", encoding="utf8")
    return path


@pytest.mark.slow
def test_package_install_load_predict(tmp_path):
    # global_pointer once more with calibrated thresholds: the package must carry them
    pipelines = {name: trained_dir(name) for name in COMPONENTS}
    pipelines["global_pointer_calibrated"] = calibrated_dir("global_pointer")
    names = list(pipelines)
    repo = REPO_ROOT
    wheels = tmp_path / "wheelhouse"
    texts = sample_texts(12)
    pip = [sys.executable, "-m", "pip"]
    expected, packages = {}, []
    for name in names:
        nlp = spacy.load(pipelines[name])
        expected[name] = predictions(nlp.pipe(texts))
        out_dir = tmp_path / "packages" / name
        out_dir.mkdir(parents=True)
        # --build none + pip wheel: spacy package's own --build needs the `build` module.
        run([sys.executable, "-m", "spacy", "package", str(pipelines[name]), str(out_dir),
             "--build", "none", "--force"])
        (package_dir,) = out_dir.iterdir()
        meta = json.loads((package_dir / "meta.json").read_text(encoding="utf8"))
        assert any(req.startswith("spacy-globalner") for req in meta["requirements"]), meta
        run(pip + ["wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                   str(package_dir)])
        packages.append(f"{meta['lang']}_{meta['name']}")
    assert expected["global_pointer_calibrated"] != expected["global_pointer"]
    # Build from a copy of the sources: the checkout's build/ may hold stale modules.
    source = tmp_path / "source"
    shutil.copytree(repo / "spacy_globalner", source / "spacy_globalner",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for filename in ("setup.cfg", "setup.py", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        if (repo / filename).exists():
            shutil.copy(repo / filename, source / filename)
    run(pip + ["wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)])
    constraints = frozen_constraints(tmp_path / "constraints.txt")
    run(pip + ["download", "-q", "-d", str(wheels), "--constraint", str(constraints)]
        + [str(w) for w in wheels.glob("*.whl")])
    assert not list(wheels.glob("nvidia_*")), "a CUDA torch was pulled in"

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = str(venv / "bin" / "python")
    run(pip + ["--python", python, "install", "-q", "--no-index", "--find-links", str(wheels)]
        + packages)
    script = tmp_path / "predict.py"
    script.write_text(PREDICT_SCRIPT, encoding="utf8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    for name, package in zip(names, packages):
        # cwd outside the checkout, so that only the installed spacy_globalner imports
        result = run([python, str(script), package, json.dumps(texts)], cwd=tmp_path, env=env)
        answer = json.loads(result.stdout.strip().splitlines()[-1])
        assert str(venv) in answer["module"]
        got = [
            (text, tuple(tuple(span) for span in spans), tuple(tuple(ent) for ent in ents))
            for text, spans, ents in answer["predictions"]
        ]
        assert got == expected[name], name
