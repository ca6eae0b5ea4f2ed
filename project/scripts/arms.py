"""The LCRF_NER paper's comparison (issue 12): every tagging arm on one encoder block.

    python scripts/arms.py ner-config ../configs/lcrf_ner.cfg configs/benchmark/heads/ner.cfg OUT.cfg
    python scripts/arms.py evaluate MODEL DEV.spacy OUT.json
    python scripts/arms.py collect RUNS_DIR CORPUS RESULTS_JSON
    python scripts/arms.py table RESULTS_JSON CORPUS [CORPUS ...] [--output TABLE_MD]

scripts/arms.sh trains the arms (softmax, CRF, CRF with learned penalties, IOB and BIOES, CSE, and
spaCy's ner on the same encoder, batcher, optimizer and steps) and calls `evaluate` on each model-last;
`collect` gathers the scores of a corpus into RESULTS_JSON (benchmarks/arms_results.json), from
which `table` and scripts/tables.py write the tables. `evaluate` scores every Entity-Fix option of an
lcrf_ner model by loading it with that option in the config (a setting given at load wins over the
saved one).
"""
import json
import statistics
import warnings
from pathlib import Path
from typing import Dict, List, Optional

import spacy
import typer
from spacy.tokens import DocBin
from spacy.training import Example
from thinc.api import Config

app = typer.Typer(add_completion=False)

ENTITY_FIX_OPTIONS = ["none", "paper", "lenient"]
ROWS = [  # (arm folder, decoding option, label)
    ("ner", "default", "spaCy ner (baseline)"),
    ("softmax", "none", "IOB softmax"),
    ("softmax", "paper", "IOB softmax + Entity-Fix (paper's rule)"),
    ("softmax", "lenient", "IOB softmax + Entity-Fix (first release's rule)"),
    ("cse", "default", "CSE tagging"),
    ("crf", "none", "IOB CRF"),
    ("crf", "paper", "IOB CRF + Entity-Fix (paper)"),
    ("crf_pen", "none", "IOB CRF, learned penalties"),
    ("crf_pen", "paper", "IOB CRF, learned penalties + Entity-Fix (paper)"),
    ("crf_bioes", "none", "BIOES CRF"),
    ("crf_bioes", "paper", "BIOES CRF + Entity-Fix (paper)"),
    ("crf_pen_bioes", "none", "BIOES CRF, learned penalties"),
    ("crf_pen_bioes", "paper", "BIOES CRF, learned penalties + Entity-Fix (paper)"),
]


@app.command("ner-config")
def ner_config(lcrf_config: Path, ner_head: Path, output: Path):
    """spaCy's ner on the encoder block, batcher, optimizer and steps of LCRF_CONFIG."""
    base = Config().from_disk(lcrf_config, interpolate=False)
    head = Config().from_disk(ner_head, interpolate=False)
    del base["components"]["lcrf_ner"]
    base["components"]["ner"] = head["components"]["ner"]
    base["components"]["ner"]["model"]["tok2vec"] = {
        "@architectures": "spacy.Tok2VecListener.v1",
        "width": "${components.tok2vec.model.encode.width}",
        "upstream": "*",
    }
    base["nlp"]["pipeline"] = ["tok2vec", "ner"]
    base["training"]["score_weights"] = dict(head["training"]["score_weights"])
    base.to_disk(output)


@app.command("evaluate")
def evaluate(model: Path, dev: Path, output: Path):
    """Dev ents P/R/F of a model; for lcrf_ner, per Entity-Fix option with its repair count."""
    warnings.simplefilter("ignore")
    options = ENTITY_FIX_OPTIONS if "lcrf_ner" in spacy.load(model).pipe_names else [None]
    results = {}
    for option in options:
        config = {} if option is None else {"components": {"lcrf_ner": {"entity_fix": option}}}
        nlp = spacy.load(model, config=config)
        docs = list(DocBin().from_disk(dev).get_docs(nlp.vocab))
        scores = nlp.evaluate([Example(nlp.make_doc(doc.text), doc) for doc in docs])
        row = {key: scores[key] for key in ("ents_p", "ents_r", "ents_f")}
        if option is not None:
            counts = nlp.get_pipe("lcrf_ner").entity_fix_counts
            row.update(repaired=counts.repaired, sequences=counts.sequences)
        results[option or "default"] = row
    output.write_text(json.dumps(results, indent=1), encoding="utf8")


@app.command("collect")
def collect(runs: Path, corpus: str, output: Path):
    """Gather RUNS/CORPUS/ARM/sSEED/scores.json into OUTPUT[CORPUS][ARM][sSEED] (other corpora kept)."""
    results = json.loads(output.read_text()) if output.exists() else {}
    results[corpus] = {
        arm.name: {seed.parent.name: json.loads(seed.read_text()) for seed in sorted(arm.glob("s*/scores.json"))}
        for arm in sorted((runs / corpus).iterdir()) if arm.is_dir()
    }
    output.write_text(json.dumps(results, indent=1), encoding="utf8")


def table_lines(results: Dict, corpora: Optional[List[str]] = None) -> List[str]:
    """Markdown tables: dev ents F (mean [min-max] over seeds), P, R, share of repaired docs."""
    lines = []
    for corpus in corpora or list(results):
        lines.append(f"**{corpus}** (dev, ents; mean of seeds, [min-max])\n")
        lines.append("| arm | seeds | F | P | R | docs Entity-Fix repairs |\n|---|---|---|---|---|---|")
        for arm, option, label in ROWS:
            found = [run[option] for _, run in sorted(results[corpus].get(arm, {}).items()) if option in run]
            if not found:
                continue
            f = [100 * run["ents_f"] for run in found]
            p = statistics.mean(100 * run["ents_p"] for run in found)
            r = statistics.mean(100 * run["ents_r"] for run in found)
            repaired = "-"
            if "repaired" in found[0]:
                share = statistics.mean(run["repaired"] / max(run["sequences"], 1) for run in found)
                repaired = f"{100 * share:.1f}%"
            lines.append(f"| {label} | {len(found)} | {statistics.mean(f):.1f} [{min(f):.1f}-{max(f):.1f}] "
                         f"| {p:.1f} | {r:.1f} | {repaired} |")
        lines.append("")
    return lines


@app.command("table")
def table(results: Path, corpora: List[str], output: Path = typer.Option(None, "--output", "-o")):
    """The tables of CORPORA from RESULTS (written by `collect`)."""
    text = "\n".join(table_lines(json.loads(results.read_text()), corpora))
    if output is None:
        print(text)
    else:
        output.write_text(text, encoding="utf8")


if __name__ == "__main__":
    app()
