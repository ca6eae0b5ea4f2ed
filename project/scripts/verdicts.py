"""What a pair of rows supports: the gap of their mean F and the verdict
every table and the chooser read, and whether both sides trained on one
package.

A claim needs all of: MIN_SEEDS seeds a side, an unrounded gap of at least
MIN_GAP F, the seeds' ranges apart (every seed of the leader above every seed
of the other), and a paired test on the test sentences (approximate
randomization over the seed pairings, significance.py) at p < ALPHA. A lead
that holds only with a threshold tuned on dev, where the other head has none,
says so."""
import subprocess
from pathlib import Path
from typing import Optional, Tuple

from run_groups import Group, dev_score, head_label
from significance import ALPHA, pooled_p

from common import PACKAGE_CONFIGS

MIN_GAP = 1.0
MIN_SEEDS = 3
# A side whose training ended on dev at under this share of the other's dev
# score did not converge: its gap says nothing of the head.
CONVERGED_SHARE = 0.5

SEED_WORDS = {1: "one seed", 2: "two seeds"}


def seeds_a_side(head: Group, baseline: Group) -> int:
    return min(len(head.seeds), len(baseline.seeds))


def ranges_apart(head: Group, baseline: Group, view: str) -> bool:
    ours, theirs = head.values(view), baseline.values(view)
    return bool(ours and theirs) and (min(ours) > max(theirs) or max(ours) < min(theirs))


def p_value(head: Group, baseline: Group, view: str) -> Optional[float]:
    """The paired test's p on VIEW, or None where a run has no per-sentence record."""
    return pooled_p(head.runs, baseline.runs, view)


def is_claim(head: Group, baseline: Group, view: str) -> bool:
    """The rule every verdict and the chooser read (the module's docstring), either way."""
    ours, theirs = head.mean(view), baseline.mean(view)
    if ours is None or theirs is None or seeds_a_side(head, baseline) < MIN_SEEDS:
        return False
    if abs(ours - theirs) < MIN_GAP or not ranges_apart(head, baseline, view):
        return False
    p = p_value(head, baseline, view)
    return p is not None and p < ALPHA


def format_p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def threshold_note(head: Group, baseline: Group, view: str, gap: float) -> str:
    """'' unless the leader alone had a threshold tuned on dev and, at the
    thresholds its config ships, the lead falls under MIN_GAP F."""
    leader, other = (head, baseline) if gap > 0 else (baseline, head)
    if not leader.tuned(view).strip("-") or other.tuned(view).strip("-"):
        return ""
    ours, theirs = head.mean(view, scores="scores_at_default"), baseline.mean(view, scores="scores_at_default")
    if ours is None or theirs is None or (abs(ours - theirs) >= MIN_GAP and (ours - theirs) * gap > 0):
        return ""
    return f"; only with its threshold tuned on dev ({ours - theirs:+.2f} at the shipped one)"


def verdict(head: Group, baseline: Group, view: str) -> Tuple[str, str]:
    """(head minus baseline, in mean F, to two decimals, and what it
    supports): the claim rule of the module's docstring, with the p-value
    wherever both sides have their test sentences' record."""
    ours, theirs = head.mean(view), baseline.mean(view)
    if ours is None or theirs is None:
        return "-", "-"
    gap = ours - theirs
    for side, other in ((head, baseline), (baseline, head)):
        dev, other_dev = dev_score(side), dev_score(other)
        if dev is not None and other_dev is not None and dev < CONVERGED_SHARE * other_dev:
            return "-", f"{head_label(side)} did not converge (dev F {100 * dev:.1f})"
    seeds = seeds_a_side(head, baseline)
    winner = head_label(head) if gap > 0 else head_label(baseline)
    p = p_value(head, baseline, view)
    tested = f", {format_p(p)}" if p is not None else ""
    if seeds < MIN_SEEDS:
        what = f"{SEED_WORDS.get(seeds, f'{seeds} seeds')}: not a claim{tested}"
    elif abs(gap) < MIN_GAP:
        what = f"level: under {MIN_GAP:g} F{tested}"
    elif not ranges_apart(head, baseline, view):
        what = f"not a claim: the seeds' ranges overlap{tested}"
    elif p is None:
        what = "not a claim: no test-sentence record for the paired test (runs before it)"
    elif p >= ALPHA:
        what = f"not a claim: {format_p(p)}"
    else:
        what = f"{winner} ahead, {format_p(p)}" + threshold_note(head, baseline, view, gap)
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


