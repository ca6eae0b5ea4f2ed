"""`--gpu-id 0` on a machine without a usable GPU (this one: CPU torch, no
CuPy) ends spaCy's commands with catalogue error E441 and exit status 1,
not a traceback from Thinc. Run as a user runs them: `python -m spacy ...` in
a subprocess with the user's environment."""
import os
import subprocess
import sys

import pytest
from spacy.tokens import DocBin

from spacy_globalner.gpu import gpu_problem
from tests.helpers.trained_pipelines import REPO_ROOT, trained_dir


def run_spacy(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    return subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)


@pytest.fixture(autouse=True)
def no_gpu():
    if not gpu_problem(0):
        pytest.skip("this machine has a usable GPU")


def assert_clear_gpu_error(result):
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-2000:]
    assert "E441" in out and "--gpu-id 0" in out and "--gpu-id -1" in out, out[-2000:]
    assert "Traceback" not in out, out[-2000:]


def test_train_gpu_id_without_gpu(tmp_path):
    result = run_spacy("train", str(REPO_ROOT / "configs" / "global_pointer.cfg"), "--gpu-id", "0",
                       "--output", str(tmp_path / "out"), "--paths.train", "x", "--paths.dev", "y",
                       cwd=tmp_path)
    assert_clear_gpu_error(result)
    assert not (tmp_path / "out" / "model-last").exists()


def test_evaluate_gpu_id_without_gpu(tmp_path):
    DocBin().to_disk(tmp_path / "dev.spacy")
    result = run_spacy("evaluate", str(trained_dir("global_pointer")), str(tmp_path / "dev.spacy"),
                       "--gpu-id", "0", cwd=tmp_path)
    assert_clear_gpu_error(result)


def test_cpu_is_no_problem():
    assert gpu_problem(-1) == ""


def test_gpu_without_torch_cuda_warns_and_goes_on(monkeypatch, capsys):
    """CuPy sees a GPU but torch is a CPU build: spaCy's own components can
    still use the GPU, so the check warns (W007) instead of stopping."""
    from spacy_globalner import gpu

    calls = []
    monkeypatch.setattr(gpu, "gpu_problem", lambda gpu_id: "")
    monkeypatch.setattr(gpu, "torch_gpu_problem", lambda gpu_id: "torch 2.13.0 has no CUDA support")
    gpu._checked(lambda use_gpu: calls.append(use_gpu))(0)
    assert calls == [0]
    assert "W007" in capsys.readouterr().out
    monkeypatch.setattr(gpu, "gpu_problem", lambda gpu_id: "CuPy is not installed")
    with pytest.raises(SystemExit):
        gpu._checked(lambda use_gpu: calls.append(use_gpu))(0)
    assert calls == [0]
