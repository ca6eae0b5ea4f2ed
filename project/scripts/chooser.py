"""The head chooser of BENCHMARKS.md: per package head on a CPU encoder, where
it leads spaCy's head, where it is ahead without a claim, where it is level or
behind, and what it costs to train and to predict; and the README's summary of
it, a line per head."""
from typing import Dict, List, Optional, Tuple

from pairing import pairs, tuned_pairs, tuned_study
from run_groups import VIEWS, Group, Key, corpus_name, head_label, is_transformer
from speeds import Speed, speed_cell
from verdicts import is_claim, seeds_a_side, verdict

# What each head is for, beside what the table says of it.
PURPOSE = {
    "global_pointer": "nested or flat entities at the lowest cost of the four",
    "crener": "the CRENER/W2NER grid over token pairs",
    "crener_zh": "the CRENER/W2NER grid over token pairs, on Chinese one token per character as its paper",
    "lcrf_ner": "flat entities as a CRF over tags, well-formed by construction (Entity-Fix)",
    "cse_ner": "flat entities from start and end markers, inconsistent output impossible by construction",
}
CHOOSER_HEADER = [
    "| head | for | ahead, claimed | ahead, not a claim | level or behind | train words/s | peak MiB "
    "| predict words/s, head / spaCy |",
    "|---|---|---|---|---|---|---|---|"]


Pair = Tuple[Group, Group, str]


def cpu_pairs(groups: Dict[Key, Group]) -> Dict[str, List[Pair]]:
    """The fair table's pairs on CPU encoders and the pairs tuned equally, by
    the package head's encoder."""
    found: Dict[str, List[Pair]] = {}
    tuned = [pair for pair in tuned_pairs(groups) if not is_transformer(pair[0].key.encoder)]
    for head, baseline, view in [*pairs(groups, transformer=False), *tuned]:
        found.setdefault(head.key.encoder, []).append((head, baseline, view))
    return found


def standings(rows: List[Pair]) -> Dict[str, List[str]]:
    """Where a head is ahead of spaCy's head with a claim (MIN_SEEDS seeds a
    side, MIN_GAP F or more), ahead without one, and level or behind."""
    cells: Dict[str, List[str]] = {"claimed": [], "ahead": [], "behind": []}
    for head, baseline, view in rows:
        gap, _ = verdict(head, baseline, view)
        seeds = seeds_a_side(head, baseline)
        equally = ", tuned equally" if tuned_study(head) else ""
        where = (f"{corpus_name(head.key.corpus)} {VIEWS[view]} {gap} on "
                 f"{head_label(baseline)} ({seeds} seed{'s' * (seeds > 1)}, {head.split}{equally})")
        claim = is_claim(head, baseline, view)
        if head.mean(view) > baseline.mean(view):
            cells["claimed" if claim else "ahead"].append(where)
        else:
            cells["behind"].append(where + (f": {head_label(baseline)} ahead, a claim" if claim else ""))
    return cells


def summary(groups: Dict[Key, Group]) -> List[str]:
    """The chooser in a line per head: where it leads spaCy's head, with a
    claim and without, and where it is level or behind."""
    lines = []
    for encoder, rows in cpu_pairs(groups).items():
        cells = standings(rows)
        parts = [f"ahead, a claim: {'; '.join(cells['claimed'])}" if cells["claimed"] else "no claim yet",
                 *([f"Ahead, not a claim: {'; '.join(cells['ahead'])}"] if cells["ahead"] else []),
                 *([f"Level or behind: {'; '.join(cells['behind'])}"] if cells["behind"] else [])]
        lines.append(f"- `{encoder}`: {'. '.join(parts)}.")
    return lines


def chooser(groups: Dict[Key, Group], speed: Optional[Speed] = None) -> List[str]:
    """Per package head on a CPU encoder, from the fair table's pairs: where it
    leads spaCy's head (a claim: MIN_SEEDS seeds a side, MIN_GAP F or more),
    where it is ahead without a claim, where it is level or behind, what its
    training cost (words/s and peak memory over its rows' runs) and how fast
    it predicts beside spaCy's head, per corpus timed (SPEED, read_speed's)."""
    speed = speed or {}
    found = cpu_pairs(groups)
    lines = list(CHOOSER_HEADER)
    for encoder, rows in found.items():
        cells = standings(rows)
        runs = [run for head, _, _ in rows for run in head.runs]
        speeds = [run["train"]["words_per_second"] for run in runs if (run.get("train") or {}).get("words_per_second")]
        peaks = [run["train"]["peak_rss_mb"] for run in runs if (run.get("train") or {}).get("peak_rss_mb")]
        predict = dict.fromkeys(f"{corpus_name(head.key.corpus)} {cell} (`{baseline.base}`)"
                                for head, baseline, _ in rows if (cell := speed_cell(head, baseline, speed)) != "-")
        lines.append(
            f"| `{encoder}` | {PURPOSE.get(encoder, '-')} | {'; '.join(cells['claimed']) or 'nowhere yet'} "
            f"| {'; '.join(cells['ahead']) or '-'} | {'; '.join(cells['behind']) or '-'} "
            f"| {f'{min(speeds):,.0f}-{max(speeds):,.0f}' if speeds else '-'} "
            f"| {f'{max(peaks):,.0f}' if peaks else '-'} | {'; '.join(predict) or '-'} |")
    for encoder in PURPOSE:
        if encoder not in found and not any(key.encoder == encoder for key in groups):
            lines.append(f"| `{encoder}` | {PURPOSE[encoder]} | no run beside spaCy's head yet | - | - | - | - | - |")
    return lines


