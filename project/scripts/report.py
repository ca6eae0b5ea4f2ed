"""Gather a benchmark run into one JSON file, and render it: a Markdown
table, the target checks and PNG plots.

    python scripts/report.py collect CORPUS ENCODER STATS_JSON MODELS_DIR METRICS_DIR RESULTS_JSON
        [--threads 1] [--command "..."]
    python scripts/report.py render RESULTS_JSON OUTPUT_DIR [--targets TARGETS_YML]

`collect` keeps every corpus and encoder run so far in RESULTS_JSON; this
run's entry (results["runs"][CORPUS][ENCODER]) is replaced. `render` writes
OUTPUT_DIR/table.md, f1.png, throughput.png and memory_vs_length.png; the
targets it checks are data (configs/benchmark/targets.yml), not code.
"""
import json
import os
import platform
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import matplotlib
import srsly
import typer

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from common import HEADS, PROJECT_DIR, Arg, Opt, read_json, write_json  # noqa: E402

HEAD_ORDER = list(HEADS)
TARGETS = PROJECT_DIR / "configs" / "benchmark" / "targets.yml"
LOAD_CAVEAT = (
    "Timings come from a shared machine; other processes' load (recorded as the "
    "load average) inflates and scatters them. Each prediction time is the best of "
    "3 runs to damp that; training times are single runs."
)

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)


def ordered(heads: Dict) -> List[str]:
    return [h for h in HEAD_ORDER if h in heads] + sorted(h for h in heads if h not in HEAD_ORDER)


def get(entry: Optional[Dict], *keys, default=None):
    for key in keys:
        if not isinstance(entry, dict) or entry.get(key) is None:
            return default
        entry = entry[key]
    return entry


def pct(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def num(value: Optional[float], digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def main_f(run: Dict, head: str) -> Optional[float]:
    """The headline F: all spans on nested corpora, the flat layer on flat ones."""
    view = "spans" if run["corpus"].get("nested") else "ents"
    return get(run["heads"][head], "accuracy", view, "f")


def length_point(head_entry: Dict, length: int, key: str) -> Optional[float]:
    for point in get(head_entry, "length_scaling", "points", default=[]):
        if point.get("n_tokens") == length and key in point:
            return point[key]
    return None


def max_length(head_entry: Dict) -> Optional[int]:
    points = [p for p in get(head_entry, "length_scaling", "points", default=[]) if "error" not in p]
    return max((p["n_tokens"] for p in points), default=None)


def run_table(corpus: str, encoder: str, run: Dict) -> List[str]:
    nested = run["corpus"].get("nested")
    heads = run["heads"]
    longest = max((max_length(heads[h]) or 0 for h in heads), default=0)
    accuracy_cols = ["spans F", "spans P", "spans R", "outer F"] if nested else ["ents F", "ents P", "ents R"]
    header = ["head", *accuracy_cols, "train words/s", "train s (wall)", "predict words/s",
              "encoder-only words/s", "head adds %", "predict peak MB",
              f"MB at {longest:,} tok", "memory exponent"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for head in ordered(heads):
        entry = heads[head]
        view = "spans" if nested else "ents"
        acc = [pct(get(entry, "accuracy", view, k)) for k in ("f", "p", "r")]
        if nested:
            acc.append(pct(get(entry, "accuracy", "outer", "f")))
        train = entry.get("train") or {}
        row = [
            head, *acc,
            num(train.get("train_words_per_second")),
            num(train.get("train_seconds"), 0) + f" ({num(train.get('wall_seconds'), 0)})",
            num(get(entry, "prediction", "full", "words_per_second")),
            num(get(entry, "prediction", "encoder", "words_per_second")),
            pct(get(entry, "prediction", "head_overhead")),
            num(get(entry, "prediction", "full", "peak_rss_growth_mb"), 1),
            num(length_point(entry, longest, "peak_rss_growth_mb"), 1),
            num(get(entry, "length_scaling", "memory_exponent"), 2),
        ]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def check(name: str, ok: Optional[bool], figures: str) -> Tuple[str, Optional[bool], str]:
    return name, ok, figures


def compare(run: Dict, head: str, other: str, view: str) -> Tuple[Optional[bool], str]:
    mine = get(run["heads"].get(head), "accuracy", view, "f")
    theirs = get(run["heads"].get(other), "accuracy", view, "f")
    if mine is None or theirs is None:
        return None, "not measured"
    return mine >= theirs, f"{head} {pct(mine)} vs {other} {pct(theirs)}"


def goals(run: Dict, targets: Dict) -> List[Tuple[str, Optional[bool], str]]:
    """Each target of `targets` (targets.yml) checked against one run."""
    heads = run["heads"]
    nested = run["corpus"].get("nested")
    found = []
    for target in targets.get("accuracy", []):
        head, other = target["head"], target["other"]
        if target["view"] == "spans":
            if not nested:
                continue
            view, label = "spans", "all spans F"
        else:
            view, label = ("outer", "outer-layer F") if nested else ("ents", "ents F")
        found.append(check(f"{head} >= {other} ({label})", *compare(run, head, other, view)))
    for target in targets.get("head_overhead", []):
        overhead = get(heads.get(target["head"]), "prediction", "head_overhead")
        found.append(check(
            f"{target['head']} adds <= {target['max']:.0%} to encoder-only prediction",
            None if overhead is None else overhead <= target["max"],
            f"adds {pct(overhead)}%",
        ))
    for target in targets.get("training_throughput", []):
        mine = get(heads.get(target["head"]), "train", "train_words_per_second")
        theirs = get(heads.get(target["other"]), "train", "train_words_per_second")
        found.append(check(
            f"{target['head']} training throughput >= {target['other']}",
            None if mine is None or theirs is None else mine >= theirs,
            f"{num(mine)} vs {num(theirs)} words/s",
        ))
    for target in targets.get("memory_exponent", []):
        exponent = get(heads.get(target["head"]), "length_scaling", "memory_exponent")
        found.append(check(
            f"{target['head']} prediction memory grows linearly (exponent <= {target['max']})",
            None if exponent is None else exponent <= target["max"],
            f"exponent {num(exponent, 2)}",
        ))
    return found


LEGEND = (
    "F, P, R in %; \"spans\" scores every entity (nested allowed), \"outer\" the "
    "longest-first view against the outermost gold layer, \"ents\" doc.ents. "
    "Train words/s leaves out evaluation; train s is the time of the updates, "
    "(wall) the whole `spacy train`. Prediction on a batch of dev sentences, "
    "best of 3; \"predict peak MB\" is the growth of peak RSS over the loaded "
    "model. Memory exponent: slope of log memory vs log length between the two "
    "longest docs (1 = linear)."
)


def write_markdown(results: Dict, path: Path, targets: Dict) -> None:
    lines = ["# Benchmark figures", "",
             "Generated by `project/scripts/report.py render` from `results.json`; "
             "the targets are in `project/configs/benchmark/targets.yml`.", LEGEND, ""]
    lines += markdown_sections(results, targets)
    path.write_text("\n".join(lines) + "\n")


def markdown_sections(results: Dict, targets: Dict, heading: str = "##") -> List[str]:
    """One section per corpus and encoder: the run, its table and its target checks."""
    lines: List[str] = []
    for corpus, encoders in results.get("runs", {}).items():
        for encoder, run in encoders.items():
            machine = run.get("machine", {})
            corpus_info = run.get("corpus", {})
            steps = {get(e, "train", "steps") for e in run["heads"].values()} - {None}
            lines += [
                f"{heading} {corpus} ({encoder} encoder)", "",
                f"Train slice: {corpus_info.get('train_limit') or 'all'} sentences "
                f"({get(run, 'corpus_stats', 'train', 'n_tokens', default='?')} tokens); "
                f"updates per head: {', '.join(str(s) for s in sorted(steps)) or '?'}; "
                f"dev: {get(run, 'corpus_stats', 'dev', 'n_docs', default='?')} sentences. "
                f"Machine: {machine.get('cpu')} x{machine.get('cpu_count')}, "
                f"{machine.get('memory_gb')} GB, GPU {machine.get('gpu') or 'none'}; "
                f"threads {machine.get('threads', {}).get('torch')}; "
                f"load average {machine.get('load_average_1_5_15')}. {run.get('date', '')}",
                "",
            ]
            if run.get("command"):
                lines += [f"Command: `{run['command']}`", ""]
            lines += run_table(corpus, encoder, run)
            lines += ["", "| goal | holds | figures |", "|---|---|---|"]
            for name, ok, figures in goals(run, targets):
                mark = "n/a" if ok is None else ("yes" if ok else "**no**")
                lines.append(f"| {name} | {mark} | {figures} |")
            lines.append("")
    return lines


def runs(results: Dict) -> List[Tuple[str, str, Dict]]:
    return [(c, e, r) for c, encs in results.get("runs", {}).items() for e, r in encs.items()]


def all_heads(results: Dict) -> List[str]:
    heads = {h for _, _, run in runs(results) for h in run["heads"]}
    return ordered({h: None for h in heads})


def plot_f1(results: Dict, path: Path) -> None:
    items = runs(results)
    heads = all_heads(results)
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * len(items) + 2), 4))
    width = 0.8 / max(1, len(heads))
    for i, head in enumerate(heads):
        values = [100 * (main_f(run, head) or 0.0) if head in run["heads"] else 0.0
                  for _, _, run in items]
        ax.bar([x + i * width for x in range(len(items))], values, width, label=head)
    ax.set_xticks([x + width * (len(heads) - 1) / 2 for x in range(len(items))])
    ax.set_xticklabels([f"{c}\n({e}, {'spans' if r['corpus'].get('nested') else 'ents'} F)"
                        for c, e, r in items])
    ax.set_ylabel("dev F1 (%)")
    ax.set_title("F1 per head and corpus (same encoder and budget)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_throughput(results: Dict, path: Path) -> None:
    items = runs(results)
    heads = all_heads(results)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    width = 0.8 / max(1, len(heads))
    for ax, (key, title) in zip(axes, [(("train", "train_words_per_second"), "training"),
                                       (("prediction", "full", "words_per_second"), "prediction")]):
        for i, head in enumerate(heads):
            values = [get(run["heads"].get(head), *key, default=0.0) for _, _, run in items]
            ax.bar([x + i * width for x in range(len(items))], values, width, label=head)
        if title == "prediction":
            for x, (_, _, run) in enumerate(items):
                encoder = [get(e, "prediction", "encoder", "words_per_second") for e in run["heads"].values()]
                encoder = [v for v in encoder if v]
                if encoder:
                    ax.hlines(max(encoder), x - width / 2, x + 0.8, colors="black",
                              linestyles="dashed", label="encoder only" if x == 0 else None)
        ax.set_xticks([x + width * (len(heads) - 1) / 2 for x in range(len(items))])
        ax.set_xticklabels([f"{c} ({e})" for c, e, _ in items])
        ax.set_ylabel("words / second")
        ax.set_title(f"{title} throughput")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_length(results: Dict, path: Path) -> None:
    items = runs(results)
    fig, axes = plt.subplots(2, max(1, len(items)), figsize=(4.5 * max(1, len(items)), 7), squeeze=False)
    for col, (corpus, encoder, run) in enumerate(items):
        for head in ordered(run["heads"]):
            points = [p for p in get(run["heads"][head], "length_scaling", "points", default=[])
                      if "error" not in p]
            if not points:
                continue
            xs = [p["n_tokens"] for p in points]
            axes[0][col].plot(xs, [max(p["seconds"], 1e-4) for p in points], marker="o", label=head)
            axes[1][col].plot(xs, [max(p["peak_rss_growth_mb"], 0.1) for p in points], marker="o", label=head)
        for row, label in enumerate(["prediction seconds", "peak memory growth (MB)"]):
            ax = axes[row][col]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("tokens in the doc")
            ax.set_ylabel(label)
            ax.set_title(f"{corpus} ({encoder})")
        axes[0][col].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render(results_path: Path, output_dir: Path, targets_path: Path = TARGETS) -> None:
    results = json.loads(results_path.read_text())
    targets = srsly.read_yaml(targets_path)
    output_dir.mkdir(parents=True, exist_ok=True)
    write_markdown(results, output_dir / "table.md", targets)
    plot_f1(results, output_dir / "f1.png")
    plot_throughput(results, output_dir / "throughput.png")
    plot_length(results, output_dir / "memory_vs_length.png")
    print(f"wrote table.md, f1.png, throughput.png, memory_vs_length.png to {output_dir}")


@app.command("render")
def render_cli(
    # fmt: off
    results_path: Path = Arg(..., help="results.json written by `collect`", metavar="RESULTS_JSON"),
    output_dir: Path = Arg(..., help="Where table.md and the plots go"),
    targets_path: Path = Opt(TARGETS, "--targets", help="The targets to check (YAML)"),
    # fmt: on
):
    """Write table.md (figures and target checks) and the PNG plots."""
    render(results_path, output_dir, targets_path)


# collect: one run's figures and the machine they ran on


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return 0.0


def machine(threads: int) -> Dict:
    import spacy
    import thinc
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_gb": memory_gb(),
        "gpu": gpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {"spacy": spacy.__version__, "thinc": thinc.__version__, "torch": torch.__version__},
        "threads": {"torch": threads, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads},
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "load_caveat": LOAD_CAVEAT,
    }


@app.command("collect")
def collect(
    # fmt: off
    corpus: str = Arg(..., help="The corpus name"),
    encoder: str = Arg(..., help="The encoder name (cpu, trf)"),
    stats_path: Path = Arg(..., help="stats.json of corpus.py", metavar="STATS_JSON"),
    models_dir: Path = Arg(..., help="MODELS_DIR/HEAD/train_stats.json per head"),
    metrics_dir: Path = Arg(..., help="accuracy.json, speed.json and length.json"),
    results_path: Path = Arg(..., help="The benchmark's results.json", metavar="RESULTS_JSON"),
    threads: int = Opt(1, "--threads", help="The threads the run used"),
    command: str = Opt("", "--command", help="The command line of the run, for the record"),
    # fmt: on
):
    """Gather one run's figures, and the machine they ran on, into RESULTS_JSON."""
    stats = read_json(stats_path)
    accuracy = read_json(metrics_dir / "accuracy.json")
    speed = read_json(metrics_dir / "speed.json")
    length = read_json(metrics_dir / "length.json")
    heads = {}
    for head in sorted(set(accuracy) | set(speed) | set(length)):
        heads[head] = {
            "train": read_json(models_dir / head / "train_stats.json"),
            "accuracy": accuracy.get(head),
            "prediction": speed.get(head),
            "length_scaling": length.get(head),
        }
    run = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": command,
        "machine": machine(threads),
        "corpus": {key: stats.get(key) for key in ("lang", "nested", "train_limit", "steps")},
        "corpus_stats": {split: {k: v for k, v in stats.get(split, {}).items() if k != "labels"}
                         for split in ("train", "dev")},
        "heads": heads,
    }
    results = read_json(results_path) or {"runs": {}}
    results["runs"].setdefault(corpus, {})[encoder] = run
    write_json(results_path, results)
    print(f"{results_path}: {corpus}/{encoder} with {len(heads)} heads")


if __name__ == "__main__":
    app()
