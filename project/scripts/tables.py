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
- The fair comparison (README_TABLE_MD, and BENCHMARKS_MD between
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

- BENCHMARKS_MD, between <!-- chooser:start/end -->: the head chooser; and
  README_MD (--readme), between <!-- summary:start/end -->: its summary, a
  line per head.

The rows are run_groups.py's, the pairs pairing.py's, each verdict
verdicts.py's and the timings speeds.py's; chooser.py writes the head chooser
and its summary, claims.py BENCHMARKS.md's claims.
"""
import os
from pathlib import Path
from typing import Dict, List, Optional

import typer
from chooser import chooser, summary
from claims import claims_table
from compare import LEARN_RATE_SCALE
from pairing import head_rate, pairs, raised_rates, rate_chosen_on_dev, tuned_pairs, tuned_study
from run_groups import (
    SPACY_HEADS,
    TRANSFORMER_SUFFIX,
    VIEWS,
    Group,
    Key,
    corpus_name,
    corpus_order,
    dev_score,
    head_label,
    is_transformer,
    read_runs,
    updates_cell,
)
from speeds import Speed, read_speed, speed_cell, timed
from verdicts import MIN_GAP, MIN_SEEDS, code_note, verdict

from common import Arg, Opt

# Heads with encoder layers of their own on top of the shared encoder.
OWN_LAYERS = {"crener": "crener adds a BiLSTM of its own in the head"}


# The anchor of BENCHMARKS.md's list of every run, where its fair tables link.
RUNS = "#every-run"


def link_label(link: str) -> str:
    """How a fair table names the list of runs it links to: on its own page, or another."""
    return "the list of every run" if link.startswith("#") else "project/BENCHMARKS.md"


def encoder_label(encoder: str) -> str:
    own = OWN_LAYERS.get(encoder.removesuffix(TRANSFORMER_SUFFIX))
    return f"`{encoder}.cfg`" + (f" ({own})" if own else "")



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
        lines.append(f"{corpus_name(key.corpus)} spaCy `{key.head}` on `{key.encoder}.cfg`, whole "
                     f"optimizer's rate by dev F: {scales}; chosen: {choice}.")
    return lines

# The transformers the runs fine-tuned, by a part of the path they were loaded from.
TRANSFORMER_NAMES = {part: "all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, 22.7M parameters)"
                     for part in ("minilm_l6_v2", "minilm-l6-v2")}


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
        f"claimed only at {MIN_SEEDS} seeds a side, {MIN_GAP:g} F or more unrounded, the seeds' ranges apart and",
        "a paired test on the test sentences at p < 0.05 (approximate randomization, scripts/significance.py),",
        "whose p the verdict prints where the runs kept their sentences' counts. spaCy's head runs on the",
        "package config's settings, which were chosen for the package head: the table of heads tuned",
        "equally, below, is the one that separates the head from its settings. Rows marked `dev half`",
        "were scored before the test splits, on the odd-numbered half of dev with thresholds from the other",
        "half, a half that helped choose the package configs' settings. Predict words/s: one seed's pipelines",
        "(the command under the table names it) taking turns in one process, one thread (CPU time);",
        "`spancat`'s n-gram sizes run 1 to the longest",
        "training entity (spaCy's default is 1-3), so it covers the spans the other heads can find. Each",
        f"row's runs, P, R and commands: [{link_label(link)}]({link}).", ""]


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

    apart = [f"{corpus_name(head.key.corpus)} {VIEWS[view]} {side(head)} and {side(baseline)}"
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
    timed_side_by_side: List[Group] = []
    for head, baseline, view in rows:
        gap, what = verdict(head, baseline, view)
        words_per_second = speed_cell(head, baseline, speed)
        if words_per_second != "-":
            timed_side_by_side += [head, baseline]
        seeds = f"{len(head.seeds)} / {len(baseline.seeds)}"
        corpus = corpus_name(head.key.corpus)
        judged = f"{gap} | {what} (seeds {seeds}{code_note(head, baseline)}) | {head.split}"
        if transformer:
            first = head.runs[0]
            lines.append(
                f"| {corpus} | {VIEWS[view]} | {transformer_name(head)} | {first['data']['train_sentences']:,} "
                f"| {first['budget']['max_steps']:,} ({passes(head)}) | {head_label(head)} "
                f"| {head_rate(head):g}x | {head.f(view)} | {head_label(baseline)} | {baseline.f(view)} "
                f"| {judged} | {words_per_second} |")
        else:
            lines.append(
                f"| {corpus} | {VIEWS[view]} | {encoder_label(head.key.encoder)} | {updates_cell(head)} "
                f"| {head_label(head)} | {head.f(view)} | {head_label(baseline)} | {baseline.f(view)} "
                f"| {judged} | {words_per_second} |")
    lines += left_out(groups, transformer)
    choices = rate_choices(groups) if transformer else []
    lines += ["", "spaCy's head at a raised rate: " + " ".join(choices)] if choices else []
    commands = sorted({timed(group, speed)["command"] for group in timed_side_by_side})
    lines += ["", "Regenerate: `spacy project run tables project/`; rerun a row: its command in "
              f"[{link_label(link)}]({link}).",
              *(f"Predict words/s: `{command}` (in project/)." for command in commands)]
    return lines


TUNED_HEADER = [
    "| corpus | score | encoder of | trials a side | head | chosen | F | spaCy head | chosen | F "
    "| head - spaCy | verdict | scored on |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def chosen_cell(group: Group) -> str:
    """What a study chose, briefly: budget, rate, dropout, widths."""
    params = tuned_study(group)["params"]
    short = {"training.max_steps": "{:,} updates", "training.optimizer.learn_rate.initial_rate": "rate {:.4f}",
             "training.dropout": "dropout {:.2f}", "components.tok2vec.model.encode.width": "width {}",
             "components.tok2vec.model.encode.depth": "depth {}"}
    parts = [form.format(params[key]) for key, form in short.items() if key in params]
    parts += [f"{key.rsplit('.', 1)[-1]} {value}" for key, value in params.items() if key not in short]
    return ", ".join(parts)


def tuned_table(groups: Dict[Key, Group], link: str) -> List[str]:
    """Both sides tuned equally: the same trials over the same shared settings
    and each over its own head's, chosen on dev by the same rule, then run
    per seed at their choice and scored on test."""
    rows = tuned_pairs(groups)
    if not rows:
        return ["No pair tuned equally yet: `spacy project run tune project/ --vars.corpus wnut17 --vars.config "
                "global_pointer` and `--vars.config ner --vars.tune_space ner.json`, then `compare` with "
                "`--vars.config global_pointer,tuned=global_pointer` and `ner,tuned=ner`."]
    lines = [
        "**Tuned equally.** Both heads of a row were tuned by `spacy globalner tune` (Optuna, median pruning)",
        "on the dev split with the same number of finished trials over the same shared settings (optimizer",
        "rate, budget in updates, dropout, encoder width and depth: configs/spaces/shared.json) and over their",
        "own head's width, the same sampler seed, and the same rule (the dev score at the end of the budget);",
        "each then trained at its own choice per seed and was scored once on the official test split (F in %,",
        "thresholds chosen on dev as above). Studies: `benchmarks/tuning/CORPUS/HEAD/trials.json`.", "",
        *TUNED_HEADER]
    for head, baseline, view in rows:
        gap, what = verdict(head, baseline, view)
        seeds = f"{len(head.seeds)} / {len(baseline.seeds)}"
        lines.append(
            f"| {corpus_name(head.key.corpus)} | {VIEWS[view]} | {encoder_label(head.key.encoder)} "
            f"| {tuned_study(head)['finished_trials']} | {head_label(head)} | {chosen_cell(head)} | {head.f(view)} "
            f"| {head_label(baseline)} | {chosen_cell(baseline)} | {baseline.f(view)} "
            f"| {gap} | {what} (seeds {seeds}{code_note(head, baseline)}) | {head.split} |")
    lines += ["", f"Each row's runs and commands: [{link_label(link)}]({link})."]
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
        lines += [f"#### {corpus_name(corpus)}", ""]
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
    readme: Optional[Path] = Opt(None, "--readme", help="A README with <!-- summary:start/end --> markers"),
    speed_dir: Optional[Path] = Opt(None, "--speed", help="measure.py pipeline-speed's CORPUS.json files"),
    # fmt: on
):
    groups = read_runs(runs_dir)
    speed = read_speed(speed_dir)
    link = Path(os.path.relpath(benchmarks_md.resolve(), readme_table.resolve().parent)).as_posix()
    cpu, trf = fair_table(groups, False, link, speed), fair_table(groups, True, link, speed)
    tuned = tuned_table(groups, link)
    readme_table.write_text("\n".join(cpu + ["", "On a transformer:", ""] + trf + ["", *tuned]) + "\n",
                            encoding="utf8")
    text = replace_block(benchmarks_md.read_text(encoding="utf8"), "compare", compare_tables(groups))
    if text is None:
        raise SystemExit(f"{benchmarks_md} has no <!-- compare:start --> ... <!-- compare:end --> block")
    # The page's own fair tables link to its list of runs.
    for name, lines in (("chooser", chooser(groups, speed)), ("results", fair_table(groups, False, RUNS, speed)),
                        ("results-trf", fair_table(groups, True, RUNS, speed, explain=False)),
                        ("tuned", tuned_table(groups, RUNS)), ("claims", claims_table(groups))):
        text = replace_block(text, name, lines) or text
    benchmarks_md.write_text(text, encoding="utf8")
    print(f"wrote {benchmarks_md} and {readme_table}")
    if readme is not None and readme.exists():
        text = replace_block(readme.read_text(encoding="utf8"), "summary", summary(groups))
        if text is None:
            print(f"{readme} has no <!-- summary:start --> ... <!-- summary:end --> block: left as it is")
        else:
            readme.write_text(text, encoding="utf8")
            print(f"wrote the chooser's summary into {readme}")


if __name__ == "__main__":
    typer.run(main)
