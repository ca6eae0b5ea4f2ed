"""What a pair of rows supports: the gap of their mean F and the verdict
every table and the chooser read (a claim needs MIN_SEEDS seeds a side and
an unrounded gap of at least MIN_GAP F), and whether both sides trained on
one package."""
import subprocess
from pathlib import Path
from typing import Tuple

from run_groups import Group, head_label

from common import PACKAGE_CONFIGS

MIN_GAP = 1.0
MIN_SEEDS = 3

SEED_WORDS = {1: "one seed", 2: "two seeds"}


def seeds_a_side(head: Group, baseline: Group) -> int:
    return min(len(head.seeds), len(baseline.seeds))


def is_claim(head: Group, baseline: Group, view: str) -> bool:
    """The rule every verdict and the chooser read: MIN_SEEDS seeds a side and
    an unrounded gap of at least MIN_GAP F, either way."""
    ours, theirs = head.mean(view), baseline.mean(view)
    if ours is None or theirs is None or seeds_a_side(head, baseline) < MIN_SEEDS:
        return False
    return abs(ours - theirs) >= MIN_GAP


def verdict(head: Group, baseline: Group, view: str) -> Tuple[str, str]:
    """(head minus baseline, in mean F, to two decimals, and what it
    supports): a claim needs MIN_SEEDS seeds a side and an unrounded gap of
    at least MIN_GAP F; fewer seeds say so and nothing more."""
    ours, theirs = head.mean(view), baseline.mean(view)
    if ours is None or theirs is None:
        return "-", "-"
    gap = ours - theirs
    seeds = seeds_a_side(head, baseline)
    winner = head_label(head) if gap > 0 else head_label(baseline)
    if seeds < MIN_SEEDS:
        what = f"{SEED_WORDS.get(seeds, f'{seeds} seeds')}: not a claim"
    elif not is_claim(head, baseline, view):
        what = f"level: under {MIN_GAP:g} F"
    else:
        ranges_apart = (min(head.values(view)) > max(baseline.values(view)) if gap > 0
                        else max(head.values(view)) < min(baseline.values(view)))
        what = f"{winner} ahead" + ("" if ranges_apart else " (the seeds' ranges overlap)")
    return f"{gap:+.2f}", what


def package_code_differs(first: str, second: str, repo: Path = PACKAGE_CONFIGS.parent) -> bool:
    """Whether the package or its configs differ between two commits (True
    where git cannot tell, e.g. a commit this clone lacks)."""
    done = subprocess.run(["git", "diff", "--quiet", first, second, "--", "spacy_globalner", "configs"],
                          cwd=repo, capture_output=True)
    return done.returncode != 0


def code_note(head: Group, baseline: Group) -> str:
    """'' where both sides of a pair trained on one package; else the commits."""
    commits = sorted(set(head.commits) | set(baseline.commits))
    if all(not package_code_differs(commits[0], other) for other in commits[1:]):
        return ""
    return "; package commits differ: " + ", ".join(commit[:7] for commit in commits)


