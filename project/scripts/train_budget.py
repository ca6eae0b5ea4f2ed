"""`spacy train` for a number of updates, with the config's learning-rate
schedule (where it has one) ending at the same update.

python scripts/train_budget.py CONFIG STEPS [--threads N] [spacy train arguments ...]

The configs with a schedule write its total_steps and warmup_steps as numbers,
checked against training.max_steps (E440, E442); the others have a constant
learning rate, where overriding them is a config error. This passes the
overrides each config takes: total_steps at the budget, and the warm-up
scaled with it (its share of the config's own max_steps), so a short run keeps
the schedule's shape and the project's `train` step works for every config.
`spacy train` runs on --threads torch threads (default 1; 0: torch's default).
"""
import subprocess
import sys
from pathlib import Path
from typing import List

from run_threads import threads_env
from spacy.util import load_config

# docs/shipping.md: torch's default threads slow training on a busy machine.
DEFAULT_THREADS = 1


def budget_overrides(config_path: Path, steps: int, warmup: int = 0) -> List[str]:
    """The `spacy train` overrides that set a budget of `steps` updates, with
    `warmup` of them warming up where given (else the config's share)."""
    training = load_config(config_path, interpolate=False)["training"]
    overrides = ["--training.max_steps", str(steps)]
    learn_rate = training["optimizer"].get("learn_rate")
    if isinstance(learn_rate, dict) and "total_steps" in learn_rate:
        overrides += ["--training.optimizer.learn_rate.total_steps", str(steps)]
    if isinstance(learn_rate, dict) and "warmup_steps" in learn_rate:
        own_steps = int(training["max_steps"]) or steps
        warmup = warmup or max(1, round(int(learn_rate["warmup_steps"]) * steps / own_steps))
        overrides += ["--training.optimizer.learn_rate.warmup_steps", str(min(warmup, max(1, steps - 1)))]
    return overrides


def main(argv: List[str]) -> int:
    if len(argv) < 2 or not argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    config, steps, *rest = argv
    threads = DEFAULT_THREADS
    if "--threads" in rest:
        at = rest.index("--threads")
        threads = int(rest[at + 1])
        del rest[at:at + 2]
    command = [sys.executable, "-m", "spacy", "train", config, *budget_overrides(Path(config), int(steps)), *rest]
    return subprocess.call(command, env=threads_env(threads))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
