"""Turn the benchmark JSON into a Markdown table, the goal checks and PNG plots.

python scripts/report.py RESULTS_JSON OUTPUT_DIR

Writes OUTPUT_DIR/table.md, f1.png, throughput.png and memory_vs_length.png.
"""
import argparse
import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HEAD_ORDER = ["global_pointer", "global_pointer_efficient", "crener", "lcrf_ner", "ner", "spancat"]
OVERHEAD_GOAL = 0.10
LINEAR_EXPONENT = 1.3  # above this, memory grows faster than linearly


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


def goals(corpus: str, encoder: str, run: Dict) -> List[Tuple[str, Optional[bool], str]]:
    heads = run["heads"]
    found = []
    flat_views = []
    if run["corpus"].get("nested"):
        found.append(check("global_pointer >= spancat (all spans F)", *compare(run, "global_pointer", "spancat", "spans")))
        flat_views.append(("outer", "outer-layer F"))
    else:
        flat_views.append(("ents", "ents F"))
    for view, label in flat_views:
        found.append(check(f"global_pointer >= ner ({label})", *compare(run, "global_pointer", "ner", view)))
        found.append(check(f"lcrf_ner >= ner ({label})", *compare(run, "lcrf_ner", "ner", view)))
    overhead = get(heads.get("global_pointer"), "prediction", "head_overhead")
    found.append(check(
        f"global_pointer adds <= {OVERHEAD_GOAL:.0%} to encoder-only prediction",
        None if overhead is None else overhead <= OVERHEAD_GOAL,
        f"adds {pct(overhead)}%",
    ))
    gp_train = get(heads.get("global_pointer"), "train", "train_words_per_second")
    crf_train = get(heads.get("lcrf_ner"), "train", "train_words_per_second")
    found.append(check(
        "global_pointer training throughput >= lcrf_ner",
        None if gp_train is None or crf_train is None else gp_train >= crf_train,
        f"{num(gp_train)} vs {num(crf_train)} words/s",
    ))
    for head in ("global_pointer", "crener"):
        exponent = get(heads.get(head), "length_scaling", "memory_exponent")
        found.append(check(
            f"{head} prediction memory grows linearly (exponent <= {LINEAR_EXPONENT})",
            None if exponent is None else exponent <= LINEAR_EXPONENT,
            f"exponent {num(exponent, 2)}",
        ))
    return found


def write_markdown(results: Dict, path: Path) -> None:
    lines = ["# Benchmark figures", "",
             "Generated by `project/scripts/report.py` from `results.json`.",
             "F, P, R in %; \"spans\" scores every entity (nested allowed), \"outer\" the "
             "longest-first view against the outermost gold layer, \"ents\" doc.ents. "
             "Train words/s leaves out evaluation; train s is the time of the updates, "
             "(wall) the whole `spacy train`. Prediction on a batch of dev sentences, "
             "best of 3; \"predict peak MB\" is the growth of peak RSS over the loaded "
             "model. Memory exponent: slope of log memory vs log length between the two "
             "longest docs (1 = linear).", ""]
    for corpus, encoders in results.get("runs", {}).items():
        for encoder, run in encoders.items():
            machine = run.get("machine", {})
            corpus_info = run.get("corpus", {})
            steps = {get(e, "train", "steps") for e in run["heads"].values()} - {None}
            lines += [
                f"## {corpus} ({encoder} encoder)", "",
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
            for name, ok, figures in goals(corpus, encoder, run):
                mark = "n/a" if ok is None else ("yes" if ok else "**no**")
                lines.append(f"| {name} | {mark} | {figures} |")
            lines.append("")
    path.write_text("\n".join(lines) + "\n")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("output_dir", type=Path)
    args = parser.parse_args()
    results = json.loads(args.results.read_text())
    args.output_dir.mkdir(parents=True, exist_ok=True)
    write_markdown(results, args.output_dir / "table.md")
    plot_f1(results, args.output_dir / "f1.png")
    plot_throughput(results, args.output_dir / "throughput.png")
    plot_length(results, args.output_dir / "memory_vs_length.png")
    print(f"wrote table.md, f1.png, throughput.png, memory_vs_length.png to {args.output_dir}")


if __name__ == "__main__":
    main()
