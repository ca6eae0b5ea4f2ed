"""`--gpu-id 0` on a machine without a usable GPU (this one: CPU torch, no
CuPy) ends this package's own commands with catalogue error E441 and exit
status 1, not a traceback from Thinc; spaCy's own commands are left as spaCy
wrote them (installing the package patches nothing in spacy.cli). Run as a
user types them: `python -m spacy ...` in a subprocess with the user's
environment, or (annotate, the second command) through spaCy's CLI in this
process, which raises what would be a traceback."""
import json
import subprocess
import sys
import textwrap

import pytest
from spacy.tokens import DocBin

from spacy_globalner import gpu
from tests.helpers.spacy_commands import invoke_spacy, run_spacy, user_env
from tests.helpers.trained_pipelines import trained_dir


@pytest.fixture
def no_gpu():
    if not gpu.gpu_problem(0):
        pytest.skip("this machine has a usable GPU")


def assert_clear_gpu_error(returncode, out):
    printed = " ".join(out.split())  # wasabi wraps long lines
    assert returncode == 1, out[-2000:]
    assert "E441" in printed and "--gpu-id 0" in printed and "--gpu-id -1" in printed, out[-2000:]
    assert "Traceback" not in out, out[-2000:]


def test_calibrate_gpu_id_without_gpu(no_gpu, tmp_path):
    DocBin().to_disk(tmp_path / "dev.spacy")
    assert_clear_gpu_error(*run_spacy(["globalner", "calibrate", trained_dir("global_pointer"),
                                       tmp_path / "dev.spacy", "--output", tmp_path / "out", "--gpu-id", "0"],
                                      cwd=tmp_path))
    assert not (tmp_path / "out").exists()


def test_annotate_gpu_id_without_gpu(no_gpu, tmp_path):
    (tmp_path / "corpus.txt").write_text("IL-2 gene expression\n", encoding="utf8")
    assert_clear_gpu_error(*invoke_spacy(["globalner", "annotate", trained_dir("global_pointer"),
                                          tmp_path / "corpus.txt", tmp_path / "out.jsonl", "--gpu-id", "0"],
                                         cwd=tmp_path))
    assert not (tmp_path / "out.jsonl").exists()


def test_cpu_is_no_problem(monkeypatch):
    calls = []
    monkeypatch.setattr("spacy.require_gpu", calls.append)
    assert gpu.gpu_problem(-1) == ""
    gpu.require_gpu(-1)
    assert calls == []


def test_gpu_without_torch_cuda_warns_and_goes_on(monkeypatch):
    """CuPy sees a GPU but torch is a CPU build: spaCy's own components can
    still use the GPU, so require_gpu warns (W007) instead of stopping; without
    CuPy it raises E441 before spaCy is asked for the GPU."""
    calls = []
    monkeypatch.setattr("spacy.require_gpu", calls.append)
    monkeypatch.setattr(gpu, "gpu_problem", lambda gpu_id: "")
    monkeypatch.setattr(gpu, "torch_gpu_problem", lambda gpu_id: "torch 2.13.0 has no CUDA support")
    with pytest.warns(UserWarning, match="W007"):
        gpu.require_gpu(0)
    assert calls == [0]
    monkeypatch.setattr(gpu, "gpu_problem", lambda gpu_id: "CuPy is not installed")
    with pytest.raises(ValueError, match="E441"):
        gpu.require_gpu(0)
    assert calls == [0]


# Every spacy.cli module's `setup_gpu` before anything of this package loads,
# then after `import spacy_globalner` and `spacy train --help` as the `spacy`
# command runs it (spaCy's setup_cli loads every spacy_cli entry point).
UNTOUCHED_SCRIPT = textwrap.dedent("""
    import importlib, json, pkgutil, runpy, sys
    import spacy.cli
    modules = {}
    for info in pkgutil.iter_modules(spacy.cli.__path__):
        try:
            modules[info.name] = importlib.import_module("spacy.cli." + info.name)
        except ImportError:
            pass
    before = {name: module.setup_gpu for name, module in modules.items() if hasattr(module, "setup_gpu")}
    loaded_before = "spacy_globalner" in sys.modules
    import spacy_globalner
    sys.argv = ["spacy", "train", "--help"]
    try:
        runpy.run_module("spacy", run_name="__main__")
    except SystemExit as exit:
        code = exit.code
    original = modules["_util"].setup_gpu
    print(json.dumps({
        "code": code,
        "loaded_before": loaded_before,
        "cli_loaded": "spacy_globalner.cli" in sys.modules,
        "modules": sorted(before),
        "replaced": sorted(name for name, f in before.items() if modules[name].setup_gpu is not f),
        "not_spacys": sorted(name for name, f in before.items() if f is not original),
        "wrapped": sorted(name for name, f in before.items() if hasattr(modules[name].setup_gpu, "__wrapped__")),
        "original": [original.__module__, original.__qualname__],
    }))
""")


def test_import_and_spacy_train_help_leave_spacy_cli_untouched(tmp_path):
    env = user_env()
    result = subprocess.run([sys.executable, "-c", UNTOUCHED_SCRIPT], capture_output=True, text=True,
                            timeout=300, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["code"] == 0 and not report["loaded_before"], report
    # the package's spacy_cli entry point did load, so there was a chance to patch
    assert report["cli_loaded"], report
    assert {"_util", "train", "evaluate"} <= set(report["modules"]), report
    assert report["replaced"] == [] and report["not_spacys"] == [] and report["wrapped"] == [], report
    assert report["original"] == ["spacy.cli._util", "setup_gpu"], report
