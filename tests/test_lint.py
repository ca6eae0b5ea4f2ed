"""The mask-literal lint that .ci/run applies (see .ci/check_mask_literals.py)."""
import importlib.util
import subprocess
import sys

from tests.helpers import REPO_ROOT

SCRIPT = REPO_ROOT / ".ci" / "check_mask_literals.py"


def load_lint():
    spec = importlib.util.spec_from_file_location("check_mask_literals", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lint_flags_overflowing_mask_constants():
    lint = load_lint()
    bad = "x = scores.masked_fill(mask, -1e12)\ny = float('-inf')\nz = float(' INF ')\n"
    found = lint.offenders(bad)
    assert sorted(line.split(":")[1] for line in found) == ["1", "2", "3"]
    fine = "x = scores.masked_fill(mask, torch.finfo(scores.dtype).min)\nn = 2 ** 18\nok = True\n"
    assert lint.offenders(fine) == []


def test_model_code_passes_the_mask_lint():
    """A literal like -1e12 or float('-inf') as a mask overflows to -inf in
    fp16 and turns softmaxes and losses into NaN; masks use torch.finfo."""
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
