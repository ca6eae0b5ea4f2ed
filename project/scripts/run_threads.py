"""Run a command with torch (and BLAS) on N threads per process.

python scripts/run_threads.py THREADS COMMAND [ARGS ...]

For spaCy's own commands (`spacy evaluate`), which have no threads option:
torch reads OMP_NUM_THREADS when it starts, so the child is started with it
set. THREADS 0 leaves the environment as it is (torch's default, one thread
per core).
"""
import os
import subprocess
import sys
from typing import Dict, List

from common import THREAD_VARS


def threads_env(threads: int) -> Dict[str, str]:
    """This process's environment with `threads` threads for a child (0: as is)."""
    env = dict(os.environ)
    if threads > 0:
        env.update({name: str(threads) for name in THREAD_VARS})
    return env


def main(argv: List[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    threads, *command = argv
    if command[0] == "python":  # the project's python, as spacy project run gives it
        command[0] = sys.executable
    return subprocess.call(command, env=threads_env(int(threads)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
