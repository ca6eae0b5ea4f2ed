"""Predict words/s of the pipelines `measure.py pipeline-speed` timed side
by side (SPEED_DIR/CORPUS.json), found for a row and set beside its pair's."""
import re
from pathlib import Path
from typing import Dict, Optional, Tuple

import srsly
from run_groups import Group, split_name

# (corpus, ENCODER/HEAD/BUDGET, split) -> a pipeline's predict words/s.
Speed = Dict[Tuple[str, str, str], Dict]


def read_speed(speed_dir: Optional[Path]) -> Speed:
    """(corpus, ENCODER/HEAD/BUDGET, split) -> predict words/s, from measure.py
    pipeline-speed's JSON files; the split is the one its docs came from."""
    found: Speed = {}
    for path in sorted(speed_dir.glob("*.json")) if speed_dir is not None and speed_dir.exists() else []:
        measured = srsly.read_json(path)
        if "pipelines" not in measured:
            # another side-by-side measurement kept beside the pipelines' timings
            # (crener_band_genia.json: crener's band against its whole grid)
            continue
        split = split_name("test.spacy" in measured["command"])
        for run, figures in measured["pipelines"].items():
            found[(measured["corpus"], run, split)] = {**figures, "path": path.name, "command": measured["command"]}
    return found


def speed_key(group: Group) -> str:
    """ENCODER/HEAD/BUDGET of the training folder whose pipeline predicts for
    GROUP: a run taken from another encoder's training (`trained_as`) is that
    run's pipeline; a run kept under another folder than it trained in (a
    `-devhalf` budget) names its own in its train command."""
    run = group.runs[0]
    if run.get("trained_as"):
        return "/".join(Path(run["trained_as"]).parts[1:-1])
    output = re.search(r"--output training/compare/[^/\s]+/(\S+)/seed\d+", run.get("train_command") or "")
    return output.group(1) if output else "/".join(group.key[1:])


def timed(group: Group, speed: Speed) -> Optional[Dict]:
    """GROUP's pipeline's predict words/s on the split GROUP was scored on."""
    return speed.get((group.key.corpus, speed_key(group), group.split))


def speed_cell(head: Group, baseline: Group, speed: Speed) -> str:
    """'37,130 / 6,201': both pipelines' predict words/s, where one run timed
    them side by side on the split the pair was scored on."""
    ours, theirs = timed(head, speed), timed(baseline, speed)
    if ours is None or theirs is None or ours["path"] != theirs["path"]:
        return "-"
    return f"{ours['words_per_second']:,.0f} / {theirs['words_per_second']:,.0f}"


