"""Lint: no mask constant that overflows half precision in the model code.

A literal like -1e12 or float("-inf") used as a mask overflows to -inf in
fp16 and turns softmaxes and losses into NaN; masks use torch.finfo(dtype).min.
Ruff bans math.inf, numpy.inf and torch.inf (pyproject.toml); this covers
what no ruff rule does: float("inf") and numeric literals of 1e9 or more.

Usage: python .ci/check_mask_literals.py [FOLDER ...]  (exit 1 on offenders)
"""
import ast
import sys
from pathlib import Path
from typing import Iterable, List

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_globalner"
CHECKED = ("ml", "decoding", "pipeline")
LARGEST_LITERAL = 1e9


def offenders(source: str, filename: str = "<source>") -> List[str]:
    """RETURNS (List[str]): 'file:line: why' for each overflowing constant."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool) and abs(node.value) >= LARGEST_LITERAL:
            found.append(f"{filename}:{node.lineno}: literal {node.value!r} overflows fp16 as a mask")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "float"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).strip().lstrip("+-").lower() in ("inf", "infinity")
        ):
            found.append(f"{filename}:{node.lineno}: float({node.args[0].value!r}) as a mask is not fp16-safe")
    return found


def check(folders: Iterable[Path]) -> List[str]:
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            found.extend(offenders(path.read_text(encoding="utf8"), str(path)))
    return found


def main(argv: List[str]) -> int:
    folders = [Path(arg) for arg in argv] or [PACKAGE / name for name in CHECKED]
    found = check(folders)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
