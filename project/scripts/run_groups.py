"""The runs of the `compare` workflow as rows: one Group per head on one
encoder, corpus and budget, read from RUNS_DIR/CORPUS/ENCODER/HEAD/BUDGET/seedS.json
(compare.py), with the names the tables give them."""
import re
import statistics
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

import srsly

from common import CORPORA

NAMES = {"genia": "GENIA", "germeval2014": "GermEval 2014", "wnut17": "WNUT-17", "weibo": "Weibo",
         "resume": "Resume", "cluener": "CLUENER"}
VIEWS = {"spans": "all spans", "ents": "`doc.ents`"}
SPACY_HEADS = {"spancat": "spans", "ner": "ents", "span_finder": "spans"}
# How the tables name a spaCy head that is more than one component.
SPACY_HEAD_LABELS = {"span_finder": "`span_finder`+`spancat`"}
TRANSFORMER_SUFFIX = "_trf"
# A run whose package commit was not recorded (its JSON's code.note says why).
UNRECORDED = "unknown"


def corpus_name(corpus: str) -> str:
    """How the tables name a corpus: 'GermEval 2014' for germeval2014."""
    return NAMES.get(corpus, corpus)


class Key(NamedTuple):
    corpus: str
    encoder: str
    head: str
    budget: str


class Group:
    """The seeds of one head on one encoder, corpus and budget: one row."""

    def __init__(self, key: Key, runs: List[Dict]):
        self.key = key
        self.runs = sorted(runs, key=lambda run: run["seed"])

    @property
    def seeds(self) -> List[int]:
        return [run["seed"] for run in self.runs]

    @property
    def base(self) -> str:
        """The head without its changed settings: `ner` of `ner,learn_rate_scale=5`."""
        return self.key.head.split(",")[0]

    @property
    def is_spacy(self) -> bool:
        return self.base in SPACY_HEADS

    @property
    def nested(self) -> bool:
        return bool(self.runs[0]["data"]["nested"])

    @property
    def on_test(self) -> bool:
        """Scored on the official test split; else on the reporting half of dev."""
        return scored_on_test(self.runs[0])

    @property
    def split(self) -> str:
        return split_name(self.on_test)

    @property
    def commits(self) -> List[str]:
        return sorted({run["code"]["commit"] or UNRECORDED for run in self.runs})

    def values(self, view: str, key: str = "f", scores: str = "scores") -> List[float]:
        return [100 * run[scores][view][key] for run in self.runs
                if view in run[scores] and run[scores][view].get(key) is not None]

    def mean(self, view: str, key: str = "f", scores: str = "scores") -> Optional[float]:
        values = self.values(view, key, scores)
        return statistics.mean(values) if values else None

    def f(self, view: str, scores: str = "scores") -> str:
        values = self.values(view, "f", scores)
        if not values:
            return "-"
        if len(values) == 1:
            return f"{values[0]:.1f}"
        return f"{statistics.mean(values):.1f} ({min(values):.1f}-{max(values):.1f})"

    def figure(self, view: str, key: str, scores: str = "scores") -> str:
        value = self.mean(view, key, scores)
        return "-" if value is None else f"{value:.1f}"

    def train(self, key: str) -> str:
        values = [run["train"][key] for run in self.runs if (run.get("train") or {}).get(key)]
        return f"{statistics.mean(values):,.0f}" if values else "-"

    def tuned(self, view: str) -> str:
        """What the tuning half chose for VIEW, per seed: a threshold, 'per label', or '-'."""
        target = "spans_sc_f" if view == "spans" else "ents_f"
        tunings = [(run.get("tuning") or {}).get(target) for run in self.runs]
        if not any(tunings):
            return "-"
        return ", ".join(f"{tuning['threshold']:.2f}" if "threshold" in tuning else "per label"
                         for tuning in tunings if tuning)

    def command(self) -> str:
        seeds = ",".join(str(seed) for seed in self.seeds)
        return re.sub(r"--vars\.seeds \d+", f"--vars.seeds {seeds}", self.runs[0]["command"])

    def trained_with(self) -> str:
        first = self.runs[0]
        commits = sorted({(run["code"]["commit"] or UNRECORDED)[:7]
                          + ("+" if run["code"]["uncommitted_changes"] else "") for run in self.runs})
        machines = sorted({run["machine"]["gpu"] or f"{run['machine']['cpu']} x{run['machine']['cpu_count']}, "
                           f"{run['machine']['threads']} thread" for run in self.runs})
        # seeds run before and after an edit of the config file (a comment, a shipped threshold) name each version
        hashes = dict.fromkeys(run["config_sha256"][:10] for run in self.runs)
        return (f"`{first['config_file']}` (sha256 {', '.join(hashes)}), "
                f"{first['budget']['max_steps']:,} updates, {first['data']['train_sentences']:,} train sentences, "
                f"code {', '.join(commits)}, {'; '.join(machines)}")

    def path(self) -> str:
        return "/".join(self.key) + "/seed{" + ",".join(str(seed) for seed in self.seeds) + "}.json"


def scored_on_test(run: Dict) -> bool:
    return run["data"].get("scored_on", "").startswith("test")


def split_name(on_test: bool) -> str:
    """How the tables name the split a run was scored on (or a pipeline timed on)."""
    return "test" if on_test else "dev half"


def read_runs(runs_dir: Path) -> Dict[Key, Group]:
    """Every run folder's seeds as one group; where some of its seeds were
    scored on the test split and others on the reporting half of dev (the
    split runs scored on before the test splits), the test seeds alone.
    Dev-half runs at an uncut budget live under BUDGET-devhalf: their reruns
    on test train and write in the folder they trained in."""
    found: Dict[Key, List[Dict]] = {}
    for path in sorted(runs_dir.glob("*/*/*/*/seed*.json")):
        key = Key(*path.relative_to(runs_dir).parts[:4])
        found.setdefault(key, []).append(srsly.read_json(path))
    for key, runs in found.items():
        if any(scored_on_test(run) for run in runs):
            found[key] = [run for run in runs if scored_on_test(run)]
    return {key: Group(key, runs) for key, runs in found.items()}


def corpus_order(corpora) -> List[str]:
    return [c for c in CORPORA if c in corpora] + sorted(c for c in corpora if c not in CORPORA)


def is_transformer(encoder: str) -> bool:
    return encoder.endswith(TRANSFORMER_SUFFIX)


def head_label(group: Group) -> str:
    """`global_pointer`; `lcrf_ner_trf`, `transitions=crf`; spaCy `ner`, `learn_rate_scale=5`."""
    base, *settings = group.key.head.split(",")
    name = SPACY_HEAD_LABELS.get(base, f"`{base}`")
    return ("spaCy " if group.is_spacy else "") + name + "".join(f", `{setting}`" for setting in settings)


def updates_cell(group: Group) -> str:
    """'1,000'; '1,000 on 3,000 train sentences' where the run's corpus was cut."""
    first = group.runs[0]
    limit = first.get("data", {}).get("train_limit", 0)
    return f"{first['budget']['max_steps']:,}" + (f" on {limit:,} train sentences" if limit else "")




def dev_score(group: Group) -> Optional[float]:
    """The mean over seeds of the dev score each run's training ended on."""
    values = [run["train"]["final_dev_score"] for run in group.runs
              if (run.get("train") or {}).get("final_dev_score") is not None]
    return statistics.mean(values) if values else None

