"""Run a command with torch (and BLAS) on N threads per process, or `spacy
train` for a number of updates with its learning-rate schedule ending there.

python scripts/run.py THREADS COMMAND [ARGS ...]
python scripts/run.py THREADS train CONFIG STEPS [spacy train arguments ...]

For spaCy's own commands (`spacy train`, `spacy evaluate`), which have no
threads option: torch reads OMP_NUM_THREADS when it starts, so the child is
started with it set. THREADS 0 leaves the environment as it is (torch's
default, one thread per core); the project passes ${vars.threads}, 1 unless
told, as torch's default threads slow training on a busy machine
(docs/shipping.md). `train` gives `spacy train` the overrides
common.budget_overrides sets for CONFIG, so the project's `train` step works
for every config.
"""
import subprocess
import sys
from pathlib import Path
from typing import List

from common import budget_overrides, thread_env


def main(argv: List[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    threads, *command = argv
    if command[0] == "train":
        if len(command) < 3 or not command[2].isdigit():
            print(__doc__, file=sys.stderr)
            return 2
        _, config, steps, *rest = command
        command = [sys.executable, "-m", "spacy", "train", config, *budget_overrides(Path(config), int(steps)), *rest]
    elif command[0] == "python":  # the project's python, as spacy project run gives it
        command[0] = sys.executable
    return subprocess.call(command, env=thread_env(int(threads)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
