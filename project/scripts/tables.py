"""Write every results table from the `compare` workflow's JSON files.

python scripts/tables.py RUNS_DIR BENCHMARKS_MD README_TABLE_MD [--readme README_MD]
    [--speed benchmarks/speed]

Reads RUNS_DIR/CORPUS/ENCODER/HEAD/BUDGET/seedS.json (compare.py) and writes:

- BENCHMARKS_MD, between <!-- compare:start/end -->: per corpus and encoder,
  every head trained on that encoder at that budget, its P/R/F on the test
  split (or the reporting half of dev, for runs made before the test splits)
  at a threshold chosen on dev and at the config's own settings,
  the threshold chosen, training time and memory, and what ran (config hash,
  commit, machine, command).
- The fair comparison (README_TABLE_MD, and README_MD between
  <!-- results:start/end --> for the CPU encoders, <!-- results-trf:start/end -->
  for the transformer ones): each package head beside spaCy's head trained on
  the same encoder, optimizer, schedule, batcher, budget and data, the
  difference of their mean F, and a verdict that claims a difference only
  where it is at least MIN_GAP F over at least MIN_SEEDS seeds each; where
  `measure.py pipeline-speed` timed both pipelines side by side (--speed:
  SPEED_DIR/CORPUS.json), their predict words/s.
- BENCHMARKS_MD, between <!-- claims:start/end -->: the papers' claims
  (CLAIMS), each as two package heads run on the same transformer, data and
  budget, with the same verdict rule.
"""
import os
import re
import statistics
import subprocess
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

import srsly
import typer
from compare import LEARN_RATE_SCALE, setting_block
from thinc.api import Config

from common import CORPORA, PACKAGE_CONFIGS, Arg, Opt

NAMES = {"genia": "GENIA", "germeval2014": "GermEval 2014", "wnut17": "WNUT-17", "weibo": "Weibo",
         "resume": "Resume", "cluener": "CLUENER"}
VIEWS = {"spans": "all spans", "ents": "`doc.ents`"}
SPACY_HEADS = {"spancat": "spans", "ner": "ents"}
TRANSFORMER_SUFFIX = "_trf"
# Heads with encoder layers of their own on top of the shared encoder.
OWN_LAYERS = {"crener": "crener adds a BiLSTM of its own in the head"}
MIN_GAP = 1.0
MIN_SEEDS = 3


class Claim(NamedTuple):
    """A paper's claim as two package heads, each an ENCODER/HEAD run folder."""
    paper: str
    says: str
    head: str
    against: str
    view: str = "ents"


# The papers' claims on the transformer, each pair at one head learning rate
# (20 x the encoder's: lcrf_ner_trf and cse_ner_trf ship it).
CLAIMS = [
    Claim("GlobalPointer (Su et al.)", "a span pointer beats a CRF over the same encoder",
          "global_pointer_trf/global_pointer_trf,head_lr_scale=20", "lcrf_ner_trf/lcrf_ner_trf,transitions=crf"),
    Claim("Zöllner et al.", "learned penalties on forbidden transitions beat a plain CRF",
          "lcrf_ner_trf/lcrf_ner_trf", "lcrf_ner_trf/lcrf_ner_trf,transitions=crf"),
    Claim("Zöllner et al.", "CSE tagging beats IOB tagging under LCRF_NER",
          "cse_ner_trf/cse_ner_trf", "lcrf_ner_trf/lcrf_ner_trf"),
]
# What two runs of different package configs must share to be set side by side.
SHARED = ("transformer", "budget", "data")


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
        return sorted({run["code"]["commit"] or "?" for run in self.runs})

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
        commits = sorted({(run["code"]["commit"] or "?")[:7] + ("+" if run["code"]["uncommitted_changes"] else "")
                          for run in self.runs})
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
    return ("spaCy " if group.is_spacy else "") + f"`{base}`" + "".join(f", `{setting}`" for setting in settings)


def updates_cell(group: Group) -> str:
    """'1,000'; '1,000 on 3,000 train sentences' where the run's corpus was cut."""
    first = group.runs[0]
    limit = first.get("data", {}).get("train_limit", 0)
    return f"{first['budget']['max_steps']:,}" + (f" on {limit:,} train sentences" if limit else "")


def encoder_label(encoder: str) -> str:
    own = OWN_LAYERS.get(encoder.removesuffix(TRANSFORMER_SUFFIX))
    return f"`{encoder}.cfg`" + (f" ({own})" if own else "")


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


def as_shipped(group: Group, configs_dir: Path = PACKAGE_CONFIGS) -> bool:
    """Whether the group ran its config as the package ships it: with no setting
    changed, or only with ones the config now ships (a sweep's choice)."""
    settings = group.runs[0].get("settings") or {}
    if not settings:
        return True
    config = shipped_config(group.key.encoder, configs_dir)
    if config is None:
        return False
    holders = {key: setting_block(config, key) for key in settings}
    return all(holders[key] is not None and holders[key][key] == value for key, value in settings.items())


def shipped_config(name: str, configs_dir: Path = PACKAGE_CONFIGS) -> Optional[Config]:
    path = configs_dir / f"{name}.cfg"
    return Config().from_disk(path, interpolate=False) if path.exists() else None


HEAD_RATE = "head_lr_scale"


def head_rate(group: Group, configs_dir: Path = PACKAGE_CONFIGS) -> float:
    """How many times the encoder's learning rate the head learns at: its
    run's setting, else its config's; spaCy's heads learn at the encoder's."""
    settings = group.runs[0].get("settings") or {}
    if HEAD_RATE in settings:
        return float(settings[HEAD_RATE])
    config = None if group.is_spacy else shipped_config(group.key.encoder, configs_dir)
    block = setting_block(config, HEAD_RATE) if config is not None else None
    return float(block[HEAD_RATE]) if block is not None else 1.0


def at_encoder_rate(group: Group) -> bool:
    """A run of the package config with its head learning at the encoder's
    rate, its one change: the transformer table sets it beside the shipped rate."""
    return (group.runs[0].get("settings") or {}) == {HEAD_RATE: 1}


def rerun_on_test(head: Group, groups: Dict[Key, Group]) -> bool:
    """Whether a head scored on the reporting half of dev has been rerun on
    test, with spaCy's head beside it there: the same head on the same corpus
    and encoder at the same head rate, at another budget or data cut (a rerun
    on all of GENIA's train split). Until its pair is whole, the old row stays."""
    if head.on_test:
        return False

    def paired_on_test(other: Group) -> bool:
        return any((baseline := groups.get(other.key._replace(head=spacy_head))) is not None and baseline.on_test
                   for spacy_head in SPACY_HEADS)

    return any(other.on_test and other.base == head.base and head_rate(other) == head_rate(head)
               and other.key[:2] == head.key[:2] and paired_on_test(other) for other in groups.values())


def dev_score(group: Group) -> Optional[float]:
    """The mean over seeds of the dev score each run's training ended on."""
    values = [run["train"]["final_dev_score"] for run in group.runs
              if (run.get("train") or {}).get("final_dev_score") is not None]
    return statistics.mean(values) if values else None


def raised_rates(groups: Dict[Key, Group], key: Key, spacy_head: str) -> List[Group]:
    """spaCy's head on KEY's encoder and budget with the whole optimizer's rate
    raised (`learn_rate_scale`, as a spaCy user can), one group per scale."""
    prefix = f"{spacy_head},{LEARN_RATE_SCALE}="
    return [group for other, group in sorted(groups.items())
            if other[:2] == key[:2] and other.budget == key.budget and other.head.startswith(prefix)
            and other.head.count(",") == 1]


def rate_chosen_on_dev(groups: Dict[Key, Group], key: Key, spacy_head: str) -> Optional[Group]:
    """spaCy's head at the raised rate whose runs ended best on dev, where one
    ended better there than the config's own rate; else None."""
    raised = [group for group in raised_rates(groups, key, spacy_head) if dev_score(group) is not None]
    if not raised:
        return None
    best = max(raised, key=dev_score)
    own = groups.get(key._replace(head=spacy_head))
    own_dev = dev_score(own) if own is not None else None
    return best if own_dev is None or dev_score(best) > own_dev else None


def pairs(groups: Dict[Key, Group], transformer: bool, same_split: bool = True) -> List[Tuple[Group, Group, str]]:
    """(package head, spaCy head on its encoder and budget, view) for every
    pair the runs hold, both sides scored on the same split (or, with
    SAME_SPLIT false, the pairs left out for scoring on two splits): the
    heads as shipped, and on a transformer the same heads at another head
    learning rate, and the shipped head beside spaCy's head at the whole
    optimizer's rate chosen on dev, where a raised rate won there; runs of
    other settings, and rows on the dev half a rerun on test replaces, are in
    BENCHMARKS.md only."""
    found = []
    for corpus in corpus_order({key.corpus for key in groups}):
        keys = sorted((key for key in groups if key.corpus == corpus and is_transformer(key.encoder) == transformer),
                      key=lambda key: (key.encoder, key.budget, -head_rate(groups[key]), key.head))
        for key in keys:
            head = groups[key]
            if head.base != key.encoder:
                continue
            shipped = as_shipped(head)
            if not (shipped or (transformer and at_encoder_rate(head))) or rerun_on_test(head, groups):
                continue
            for spacy_head, view in SPACY_HEADS.items():
                raised = rate_chosen_on_dev(groups, key, spacy_head) if shipped else None
                for baseline in (groups.get(key._replace(head=spacy_head)), raised):
                    if baseline is None or (baseline.on_test == head.on_test) != same_split:
                        continue
                    if view == "ents" or head.nested:
                        found.append((head, baseline, view))
    return found


def rate_choices(groups: Dict[Key, Group]) -> List[str]:
    """A line per encoder where spaCy's head ran at raised rates: the scales
    tried and the one the dev scores chose, so a row at 1x says why."""
    lines = []
    for key, group in sorted(groups.items()):
        if not (group.is_spacy and key.head == group.base and is_transformer(key.encoder)):
            continue
        raised = raised_rates(groups, key, key.head)
        if not raised:
            continue
        chosen = rate_chosen_on_dev(groups, key, key.head)
        choice = head_label(chosen) if chosen else "the config's own rate (1x)"
        tried = [group, *raised]
        scales = ", ".join(f"{float((g.runs[0].get('settings') or {}).get(LEARN_RATE_SCALE, 1)):g}x "
                           f"({100 * (dev_score(g) or 0):.1f})" for g in tried)
        lines.append(f"{NAMES.get(key.corpus, key.corpus)} spaCy `{key.head}` on `{key.encoder}.cfg`, whole "
                     f"optimizer's rate by dev F: {scales}; chosen: {choice}.")
    return lines


# (corpus, ENCODER/HEAD/BUDGET, split) -> a pipeline's predict words/s.
Speed = Dict[Tuple[str, str, str], Dict]


def read_speed(speed_dir: Optional[Path]) -> Speed:
    """(corpus, ENCODER/HEAD/BUDGET, split) -> predict words/s, from measure.py
    pipeline-speed's JSON files; the split is the one its docs came from."""
    found: Speed = {}
    for path in sorted(speed_dir.glob("*.json")) if speed_dir is not None and speed_dir.exists() else []:
        measured = srsly.read_json(path)
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


# The transformers the runs fine-tuned, by a part of the path they were loaded from.
TRANSFORMER_NAMES = {"minilm_l6_v2": "all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, 22.7M parameters)"}


def transformer_name(group: Group) -> str:
    path = str(group.runs[0].get("transformer") or "")
    if not path:
        return "-"
    return next((name for part, name in TRANSFORMER_NAMES.items() if part in path.lower()), f"`{path}`")


def passes(group: Group) -> str:
    """Passes over the training data: the words the updates read over the words in train."""
    first = group.runs[0]
    words, tokens = (first.get("train") or {}).get("words"), first["data"].get("train_tokens")
    return f"{words / tokens:.1f}" if words and tokens else "-"


TABLE_HEADER = [
    "| corpus | score | encoder of | updates | head | F | spaCy head | F | head - spaCy | verdict | scored on "
    "| predict words/s, head / spaCy |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|"]
TRF_HEADER = [
    "| corpus | score | transformer | train sentences | updates (passes) | head | head rate | F | spaCy head "
    "| F | head - spaCy | verdict | scored on | predict words/s, head / spaCy |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def explanation(link: str) -> List[str]:
    return [
        "Each package head beside spaCy's head trained by the `compare` workflow on the **same encoder,",
        "optimizer, schedule, batcher, budget and data** (the package config named in the encoder column;",
        "spaCy's head as `spacy init config` writes it). F in % on the **official test split**, model-last,",
        "mean (min-max) over the seeds; every threshold (`global_pointer`'s, `crener`'s, `spancat`'s) chosen",
        "on the whole dev split, test read once, by each run's final scoring step. All spans: every gold",
        "entity, nested ones included; `doc.ents`: the flat layer against the outermost gold layer. A gap is",
        f"claimed only at {MIN_SEEDS} seeds a side and {MIN_GAP:g} F or more, unrounded. Rows marked `dev half`",
        "were scored before the test splits, on the odd-numbered half of dev with thresholds from the other",
        "half, a half that helped choose the package configs' settings. Predict words/s: one seed's pipelines",
        "(the command under the table names it) taking turns in one process, one thread (CPU time);",
        "`spancat`'s n-gram sizes run 1 to the longest",
        "training entity (spaCy's default is 1-3), so it covers the spans the other heads can find. Each",
        f"row's runs, P, R and commands: [project/BENCHMARKS.md]({link}).", ""]


TRF_EXPLANATION = [
    "Made as the table above on a fine-tuned transformer, spaCy's heads as `spacy init config -G` writes",
    "them. The configs ship `bert-base-cased` and 20,000 updates; these rows ran the offline encoder named",
    "below for the updates shown, the corpus cut where the train sentences say so. Head rate: how many",
    "times the transformer's learning rate the head learns at (`head_lr_scale`, a setting of the package's",
    "heads; spaCy's heads learn at the transformer's rate): a package head at its shipped rate and at 1x",
    "shows what the head gives and what the rate gives. spaCy's head with `learn_rate_scale=K`: the whole",
    "optimizer's rate K times, as a spaCy user can raise it, K chosen by the runs' dev F.", ""]


def left_out(groups: Dict[Key, Group], transformer: bool) -> List[str]:
    """A line naming the pairs whose sides were scored on two splits, so a
    row never leaves the table unsaid."""
    def side(group: Group) -> str:
        return f"{head_label(group)} ({group.split}, {len(group.seeds)} seed{'s' * (len(group.seeds) > 1)})"

    apart = [f"{NAMES.get(head.key.corpus, head.key.corpus)} {VIEWS[view]} {side(head)} and {side(baseline)}"
             for head, baseline, view in pairs(groups, transformer, same_split=False)]
    return ["", "Left out until both sides are scored on one split: " + "; ".join(apart) + "."] if apart else []


def fair_table(groups: Dict[Key, Group], transformer: bool, link: str,
               speed: Optional[Speed] = None, explain: bool = True) -> List[str]:
    """The fair table; EXPLAIN=False leaves out the paragraph on how the CPU
    table was made (for the transformer table printed under it)."""
    speed = speed or {}
    rows = pairs(groups, transformer)
    if not rows:
        config = "global_pointer_trf" if transformer else "global_pointer"
        return ["No pair of runs yet: `spacy project run compare project/ --vars.corpus genia "
                f"--vars.config {config}` and `--vars.config spancat@{config}`.", *left_out(groups, transformer)]
    lines = [*(TRF_EXPLANATION if transformer else explanation(link) if explain else []),
             *(TRF_HEADER if transformer else TABLE_HEADER)]
    for head, baseline, view in rows:
        gap, what = verdict(head, baseline, view)
        seeds = f"{len(head.seeds)} / {len(baseline.seeds)}"
        corpus = NAMES.get(head.key.corpus, head.key.corpus)
        judged = f"{gap} | {what} (seeds {seeds}{code_note(head, baseline)}) | {head.split}"
        if transformer:
            first = head.runs[0]
            lines.append(
                f"| {corpus} | {VIEWS[view]} | {transformer_name(head)} | {first['data']['train_sentences']:,} "
                f"| {first['budget']['max_steps']:,} ({passes(head)}) | {head_label(head)} "
                f"| {head_rate(head):g}x | {head.f(view)} | {head_label(baseline)} | {baseline.f(view)} "
                f"| {judged} | {speed_cell(head, baseline, speed)} |")
        else:
            lines.append(
                f"| {corpus} | {VIEWS[view]} | {encoder_label(head.key.encoder)} | {updates_cell(head)} "
                f"| {head_label(head)} | {head.f(view)} | {head_label(baseline)} | {baseline.f(view)} "
                f"| {judged} | {speed_cell(head, baseline, speed)} |")
    lines += left_out(groups, transformer)
    choices = rate_choices(groups) if transformer else []
    lines += ["", "spaCy's head at a raised rate: " + " ".join(choices)] if choices else []
    commands = sorted({timed(group, speed)["command"] for head, baseline, _ in rows
                       for group in (head, baseline) if speed_cell(head, baseline, speed) != "-"})
    lines += ["", "Regenerate: `spacy project run tables project/`; rerun a row: its command in "
              f"[project/BENCHMARKS.md]({link}).",
              *(f"Predict words/s: `{command}` (in project/)." for command in commands)]
    return lines


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


def chooser(groups: Dict[Key, Group], speed: Optional[Speed] = None) -> List[str]:
    """Per package head on a CPU encoder, from the fair table's pairs: where it
    leads spaCy's head (a claim: MIN_SEEDS seeds a side, MIN_GAP F or more),
    where it is ahead without a claim, where it is level or behind, what its
    training cost (words/s and peak memory over its rows' runs) and how fast
    it predicts beside spaCy's head, per corpus timed (SPEED, read_speed's)."""
    speed = speed or {}
    found: Dict[str, List[Tuple[Group, Group, str]]] = {}
    for head, baseline, view in pairs(groups, transformer=False):
        found.setdefault(head.key.encoder, []).append((head, baseline, view))
    lines = list(CHOOSER_HEADER)
    for encoder, rows in found.items():
        cells: Dict[str, List[str]] = {"claimed": [], "ahead": [], "behind": []}
        for head, baseline, view in rows:
            gap, what = verdict(head, baseline, view)
            seeds = seeds_a_side(head, baseline)
            where = (f"{NAMES.get(head.key.corpus, head.key.corpus)} {VIEWS[view]} {gap} on "
                     f"{head_label(baseline)} ({seeds} seed{'s' * (seeds > 1)}, {head.split})")
            claim = is_claim(head, baseline, view)
            if head.mean(view) > baseline.mean(view):
                cells["claimed" if claim else "ahead"].append(where)
            else:
                cells["behind"].append(where + (f": {head_label(baseline)} ahead, a claim" if claim else ""))
        runs = [run for head, _, _ in rows for run in head.runs]
        speeds = [run["train"]["words_per_second"] for run in runs if (run.get("train") or {}).get("words_per_second")]
        peaks = [run["train"]["peak_rss_mb"] for run in runs if (run.get("train") or {}).get("peak_rss_mb")]
        timed = dict.fromkeys(f"{NAMES.get(head.key.corpus, head.key.corpus)} {speed_cell(head, baseline, speed)} "
                              f"(`{baseline.base}`)"
                              for head, baseline, _ in rows if speed_cell(head, baseline, speed) != "-")
        lines.append(
            f"| `{encoder}` | {PURPOSE.get(encoder, '-')} | {'; '.join(cells['claimed']) or 'nowhere yet'} "
            f"| {'; '.join(cells['ahead']) or '-'} | {'; '.join(cells['behind']) or '-'} "
            f"| {f'{min(speeds):,.0f}-{max(speeds):,.0f}' if speeds else '-'} "
            f"| {f'{max(peaks):,.0f}' if peaks else '-'} | {'; '.join(timed) or '-'} |")
    for encoder in PURPOSE:
        if encoder not in found and not any(key.encoder == encoder for key in groups):
            lines.append(f"| `{encoder}` | {PURPOSE[encoder]} | no run beside spaCy's head yet | - | - | - | - | - |")
    return lines


def compare_tables(groups: Dict[Key, Group]) -> List[str]:
    lines = [
        "Every run of the `compare` workflow, by corpus and by the package config whose encoder, optimizer,",
        "schedule, batcher and budget it trained with. P/R/F in % on the split the row names: the official",
        "test split, or for runs made before it, the reporting half of dev (`dev half`), model-last. F: at the",
        "threshold chosen on dev (on the tuning half for `dev half` rows) by the head's own tool",
        "(`spacy find-threshold`'s scan for `global_pointer`, `spancat` and `cse_ner`, `spacy globalner calibrate`",
        "for `crener`; the others have none), mean (min-max) over the seeds; F at default: the config's own setting.",
        "Runs whose JSON's `tuning` names the scan predicted dev once (scripts/threshold_scan.py, which chooses",
        "what `spacy find-threshold` chooses); the others ran `spacy find-threshold` itself.",
        "Train words/s leave out evaluation; runs may have shared the machine (each JSON records the load",
        "average before and after), so they are not a side-by-side timing.",
        ""]
    for corpus in corpus_order({key.corpus for key in groups}):
        lines += [f"#### {NAMES.get(corpus, corpus)}", ""]
        keys = sorted((key for key in groups if key.corpus == corpus),
                      key=lambda key: (is_transformer(key.encoder), key.encoder, key.budget,
                                       key.head.split(",")[0] in SPACY_HEADS, key.head))
        lines += ["| encoder of | updates | head | seeds | scored on | score | F | P | R | F at default "
                  "| threshold chosen | train words/s | wall s | peak MiB |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for key in keys:
            group = groups[key]
            views = [SPACY_HEADS[group.base]] if group.is_spacy else (["spans", "ents"] if group.nested else ["ents"])
            for view in views:
                lines.append(
                    f"| `{key.encoder}` | {updates_cell(group)} | {head_label(group)} "
                    f"| {len(group.seeds)} | {group.split} | {VIEWS[view]} | {group.f(view)} "
                    f"| {group.figure(view, 'p')} "
                    f"| {group.figure(view, 'r')} | {group.f(view, 'scores_at_default')} | {group.tuned(view)} "
                    f"| {group.train('words_per_second')} | {group.train('wall_seconds')} "
                    f"| {group.train('peak_rss_mb')} |")
        lines.append("")
        for key in keys:
            group = groups[key]
            twins = sorted({run["trained_as"] for run in group.runs if run.get("trained_as")})
            shared = f" (the same training as `runs/{'`, `runs/'.join(twins)}`)" if twins else ""
            lines.append(f"- {head_label(group)} on `{key.encoder}`: {group.trained_with()}; "
                         f"`runs/{group.path()}`{shared}. Rerun: `{group.command()}`")
        lines.append("")
    return lines


def claim_pairs(groups: Dict[Key, Group], claims: List[Claim]) -> List[Tuple[Claim, Group, Group]]:
    """(claim, its head's runs, the runs it is set against) wherever both ran on
    one corpus and budget with the same transformer and data."""
    found = []
    order = corpus_order({key.corpus for key in groups})
    for claim in claims:
        for key in sorted(groups, key=lambda key: (order.index(key.corpus), key.budget)):
            if "/".join(key[1:3]) != claim.head:
                continue
            encoder, head = claim.against.split("/")
            ours, against = groups[key], groups.get(key._replace(encoder=encoder, head=head))
            if against is not None and all(ours.runs[0].get(field) == against.runs[0].get(field)
                                           for field in SHARED):
                found.append((claim, ours, against))
    return found


CLAIMS_HEADER = [
    "| paper | claims | corpus | score | updates | head | F | P / R | against | F | P / R | difference | verdict |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def claims_table(groups: Dict[Key, Group], claims: List[Claim] = CLAIMS) -> List[str]:
    rows = claim_pairs(groups, claims)
    lines = [
        "Each claim as two package heads trained by the `compare` workflow on the same transformer, data,",
        "optimizer, schedule, batcher and budget, both heads at 20 x the encoder's learning rate; F in % on",
        "the split the verdict names (test, or the reporting half of dev for runs made before the test",
        "splits), thresholds (where a head has one) chosen on dev (its tuning half). A gap is claimed only",
        f"at {MIN_SEEDS} seeds a side and {MIN_GAP:g} F or more, unrounded.", "",
        *(CLAIMS_HEADER if rows else [])]
    for claim, head, against in rows:
        gap, what = verdict(head, against, claim.view)
        cells = [f"{group.f(claim.view)} | {group.figure(claim.view, 'p')} / {group.figure(claim.view, 'r')}"
                 for group in (head, against)]
        lines.append(
            f"| {claim.paper} | {claim.says} | {NAMES.get(head.key.corpus, head.key.corpus)} | {VIEWS[claim.view]} "
            f"| {updates_cell(head)} | {head_label(head)} | {cells[0]} | {head_label(against)} "
            f"| {cells[1]} | {gap} | {what} (seeds {len(head.seeds)} / {len(against.seeds)}; {head.split}) |")
    missing = [claim for claim in claims if not any(row[0] is claim for row in rows)]
    if rows and missing:
        lines.append("")
    lines += [f"- Not run yet: {claim.paper}, {claim.says} (`spacy project run compare project/ --vars.config "
              f"{claim.head.split('/')[1]}` and `--vars.config {claim.against.split('/')[1]}`, on one corpus "
              "and budget)." for claim in missing]
    return lines


def replace_block(text: str, name: str, lines: List[str]) -> Optional[str]:
    """TEXT with the lines between <!-- NAME:start --> and <!-- NAME:end --> replaced, or None without markers."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        return None
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + start + "\n" + "\n".join(lines).strip("\n") + "\n" + end + tail


def main(
    # fmt: off
    runs_dir: Path = Arg(..., help="RUNS_DIR/CORPUS/ENCODER/HEAD/BUDGET/seedS.json"),
    benchmarks_md: Path = Arg(..., help="The page whose <!-- compare:start/end --> block gets every run"),
    readme_table: Path = Arg(..., help="Where the fair comparison tables go"),
    readme: Optional[Path] = Opt(None, "--readme", help="A README with <!-- results(-trf):start/end --> markers"),
    speed_dir: Optional[Path] = Opt(None, "--speed", help="measure.py pipeline-speed's CORPUS.json files"),
    # fmt: on
):
    groups = read_runs(runs_dir)
    speed = read_speed(speed_dir)
    link = Path(os.path.relpath(benchmarks_md.resolve(), readme_table.resolve().parent)).as_posix()
    cpu, trf = fair_table(groups, False, link, speed), fair_table(groups, True, link, speed)
    readme_table.write_text("\n".join(cpu + ["", "On a transformer:", ""] + trf) + "\n", encoding="utf8")
    text = replace_block(benchmarks_md.read_text(encoding="utf8"), "compare", compare_tables(groups))
    if text is None:
        raise SystemExit(f"{benchmarks_md} has no <!-- compare:start --> ... <!-- compare:end --> block")
    text = replace_block(text, "claims", claims_table(groups)) or text
    benchmarks_md.write_text(text, encoding="utf8")
    print(f"wrote {benchmarks_md} and {readme_table}")
    if readme is not None and readme.exists():
        text = readme.read_text(encoding="utf8")
        readme_link = Path(os.path.relpath(benchmarks_md.resolve(), readme.resolve().parent)).as_posix()
        for name, lines in (("chooser", chooser(groups, speed)),
                            ("results", fair_table(groups, False, readme_link, speed)),
                            ("results-trf", fair_table(groups, True, readme_link, speed, explain=False))):
            replaced = replace_block(text, name, lines)
            if replaced is None:
                print(f"{readme} has no <!-- {name}:start --> ... <!-- {name}:end --> block: left as it is")
            else:
                text = replaced
        readme.write_text(text, encoding="utf8")
        print(f"wrote the results tables into {readme}")


if __name__ == "__main__":
    typer.run(main)
