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
from importlib.metadata import entry_points
import spacy
# No import of spacy_globalner before the first load: spaCy must find the
# factories through the installed package's entry points. A later package's
# factory would then be found in the registry the first one filled, so each
# package's own factories, and the functions its config names from the package
# (architectures, scorers, ...), are looked up as entry points too.
fresh = "spacy_globalner" not in sys.modules
texts = json.loads(sys.argv[1])


def declared(group, name):
    return any(point.name == name and point.load() is not None for point in entry_points(group=group))


# (registry, name) of each function of the package that a config block names
def package_functions(block):
    if isinstance(block, dict):
        for key, value in block.items():
            if key.startswith("@") and str(value).startswith("spacy-globalner."):
                yield key[1:], value
            yield from package_functions(value)


answers = {}
for package in sys.argv[2:]:
    nlp = spacy.load(package)
    factories = [nlp.get_pipe_meta(name).factory for name in nlp.pipe_names]
    functions = sorted(set(package_functions(nlp.config["components"])))
    out = []
    for doc in nlp.pipe(texts):
        spans = []
        for key in sorted(doc.spans):
            scores = doc.spans[key].attrs.get("scores")
            for i, s in enumerate(doc.spans[key]):
                score = None if scores is None else round(float(scores[i]), 4)
                spans.append([key, s.start, s.end, s.label_, score])
        out.append([doc.text, spans, [[e.start, e.end, e.label_] for e in doc.ents]])
    answers[package] = {
        "predictions": out,
        "factories": {f: declared("spacy_factories", f) for f in factories},
        "functions": {f"@{kind} {name}": declared(f"spacy_{kind}", name) for kind, name in functions},
    }
import spacy_globalner
print(json.dumps({"fresh": fresh, "module": spacy_globalner.__file__, "packages": answers}))
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


def package_commands(pipelines, tmp_path) -> List[Path]:
    """`spacy package` for each pipeline: the first as a user runs it, in a
    process of its own, the others by the same command in this process."""
    from spacy.util import registry
    from typer.testing import CliRunner

    registry.cli.get_all()  # what `python -m spacy` does before it parses the command
    package_dirs = []
    for i, (name, path) in enumerate(pipelines.items()):
        out_dir = tmp_path / "packages" / name
        out_dir.mkdir(parents=True)
        # --build none + pip wheel: spacy package's own --build needs the `build` module.
        args = ["package", str(path), str(out_dir), "--build", "none", "--force"]
        if i == 0:
            run([sys.executable, "-m", "spacy", *args])
        else:
            result = CliRunner().invoke(spacy.cli.app, args)
            assert result.exit_code == 0, f"{args}\n{result.output[-2000:]}\n{result.exception!r}"
        (package_dir,) = out_dir.iterdir()
        package_dirs.append(package_dir)
    return package_dirs


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
    expected = {name: predictions(spacy.load(path).pipe(texts)) for name, path in pipelines.items()}
    assert expected["global_pointer_calibrated"] != expected["global_pointer"]
    package_dirs = package_commands(pipelines, tmp_path)
    packages = []
    for package_dir in package_dirs:
        meta = json.loads((package_dir / "meta.json").read_text(encoding="utf8"))
        assert any(req.startswith("spacy-globalner") for req in meta["requirements"]), meta
        packages.append(f"{meta['lang']}_{meta['name']}")
    # Build from a copy of the sources: the checkout's build/ may hold stale modules.
    source = tmp_path / "source"
    shutil.copytree(repo / "spacy_globalner", source / "spacy_globalner",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for filename in ("setup.cfg", "setup.py", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        if (repo / filename).exists():
            shutil.copy(repo / filename, source / filename)
    # one pip for the five package wheels and the package's own
    run(pip + ["wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
        + [str(package_dir) for package_dir in package_dirs] + [str(source)])
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
    # one process loads every package in turn; cwd outside the checkout, so
    # that only the installed spacy_globalner imports
    result = run([python, str(script), json.dumps(texts), *packages], cwd=tmp_path, env=env)
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["fresh"] and str(venv) in answer["module"]
    for name, package in zip(names, packages):
        loaded = answer["packages"][package]
        head = name.removesuffix("_calibrated")
        assert loaded["factories"][head] is True, (name, loaded["factories"])
        assert any(key.startswith("@architectures ") for key in loaded["functions"]), (name, loaded["functions"])
        assert all(loaded["functions"].values()), (name, loaded["functions"])
        got = [
            (text, tuple(tuple(span) for span in spans), tuple(tuple(ent) for ent in ents))
            for text, spans, ents in loaded["predictions"]
        ]
        assert got == expected[name], name
