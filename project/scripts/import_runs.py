"""Write the full-budget runs recorded before the `compare` workflow as per-run JSON.

python scripts/import_runs.py RUNS_DIR [--commit 8faca2c]

Before `compare` existed, the full-budget runs' dev scores were gathered by
hand in project/benchmarks/full_budget_results.json (deleted since; read here
from git at COMMIT). This writes the runs the results tables need (each head
and spaCy's ner and spancat, every seed) as RUNS_DIR/CORPUS/CONFIG/seedS.json
with `source: "imported"`: F, P and R only (no per label, no timing), no hash
of the config or the code they ran, the commit that first recorded them, and
what they were trained with. scripts/tables.py marks such rows. A run that
`compare` has written is never replaced: re-running a row with the workflow
is how an imported figure goes.
"""
import json
import subprocess
from pathlib import Path
from typing import Dict, List, NamedTuple

import typer

from common import Arg, Opt, read_json, write_json

SOURCE_FILE = "project/benchmarks/full_budget_results.json"
SOURCE_COMMIT = "8faca2c"


class Imported(NamedTuple):
    key: str  # the run's key in SOURCE_FILE
    corpus: str
    config: str  # the name `compare` gives the same run
    dev: str  # the key of its dev scores: "dev", or "dev_thresholdM" for a margin sweep
    recorded_in: str  # the commit that added the key
    steps: int
    trained_with: str
    summary: str  # what the README's footnote says of it


OLD_GP = ("configs/global_pointer.cfg as of a70c12e: spaCy's TorchBiLSTMEncoder (the old encoder), its "
          "warm-up schedule, threshold -0.5 as a logit (a probability of 0.3775)")
SPACY_EFFICIENCY = ("`spacy init config -p {head} -o efficiency`: spaCy's default CPU tok2vec (maxout CNN) and "
                    "constant learning rate, not global_pointer's encoder{extra}")
CRENER = "configs/crener.cfg as shipped since 07fab07 (peak rate 0.003), scored at its margin 1.5"
CRENER_ZH = "configs/crener_zh.cfg as shipped since 8faca2c, scored at its margin 1.0"
SPACY_NER = SPACY_EFFICIENCY.format(head="ner", extra="")
GP_SUMMARY = "the config of a70c12e, with the encoder it had then"
SPACY_SUMMARY = "`spacy init config -o efficiency`: spaCy's own CPU tok2vec, not the heads' encoder"
AS_SHIPPED = "the config as shipped now"
MINILM = ("the offline all-MiniLM-L6-v2 encoder, batch_by_padded 2,000, warmup_linear to 5e-5 over 1,500 updates, "
          "shared by both runs; {what}")

RUNS: List[Imported] = [
    Imported("full_gpthr_genia", "genia", "global_pointer", "dev", "a70c12e", 4000, OLD_GP, GP_SUMMARY),
    Imported("full_gpthr_ge", "germeval2014", "global_pointer", "dev", "a70c12e", 4000, OLD_GP, GP_SUMMARY),
    Imported("full_gpthr_wn", "wnut17", "global_pointer", "dev", "a70c12e", 4000, OLD_GP, GP_SUMMARY),
    Imported("full_gpthr_re", "resume", "global_pointer", "dev", "a70c12e", 4000,
             OLD_GP + "; lang zh and the character tokenizer", GP_SUMMARY),
    Imported("full_spancat_genia", "genia", "spancat", "dev", "b3d49e3", 4000,
             SPACY_EFFICIENCY.format(head="spancat", extra="; ngram sizes 1..10"), SPACY_SUMMARY),
    Imported("full_spancat_ge", "germeval2014", "spancat", "dev", "3630f38", 4000,
             SPACY_EFFICIENCY.format(head="spancat", extra="; ngram sizes 1..8"), SPACY_SUMMARY),
    Imported("full_ner_ge", "germeval2014", "ner", "dev", "3630f38", 4000,
             SPACY_NER, SPACY_SUMMARY),
    Imported("full_ner_wn", "wnut17", "ner", "dev", "3630f38", 4000, SPACY_NER, SPACY_SUMMARY),
    Imported("full_ner_re", "resume", "ner", "dev", "3630f38", 4000, SPACY_NER, SPACY_SUMMARY),
    Imported("wb_ner", "weibo", "ner", "dev", "b3d49e3", 1500, SPACY_NER, SPACY_SUMMARY),
    Imported("full_crenerlr3_genia", "genia", "crener", "dev_threshold1.5", "889fc19", 4000, CRENER, AS_SHIPPED),
    Imported("full_crenerlr3_ge", "germeval2014", "crener", "dev_threshold1.5", "889fc19", 4000, CRENER, AS_SHIPPED),
    Imported("re_crener1200_lr3e3_latest", "resume", "crener_zh", "dev_threshold1", "8faca2c", 1200,
             CRENER_ZH, AS_SHIPPED),
    Imported("wb_crener1200_lr3e3_rerun", "weibo", "crener_zh", "dev_threshold1", "07fab07", 1200,
             CRENER_ZH, AS_SHIPPED),
    Imported("wn_trf_gp", "wnut17", "global_pointer_trf", "dev", "b13f47a", 1500,
             MINILM.format(what="configs/global_pointer_trf.cfg at threshold 0.0 (a logit)"), "MiniLM, threshold 0.0"),
    Imported("wn_trf_ner", "wnut17", "ner@global_pointer_trf", "dev", "b13f47a", 1500,
             MINILM.format(what="`spacy init config -p ner -G -o efficiency` with the MiniLM folder"), "MiniLM"),
]


def view(figures: List[float]) -> Dict[str, float]:
    """[F, P, R] in % (two decimals) -> {p, r, f} as fractions, as `compare` writes them."""
    f, p, r = figures
    return {"p": round(p / 100, 4), "r": round(r / 100, 4), "f": round(f / 100, 4)}


def imported_run(spec: Imported, seed: int, scores: Dict, commit: str) -> Dict:
    return {
        "corpus": spec.corpus,
        "config": spec.config,
        "seed": seed,
        "source": "imported",
        "imported": {
            "from": f"{SOURCE_FILE} at {commit}, key {spec.key}, seed s{seed}, scores '{spec.dev}'",
            "recorded_in": spec.recorded_in,
            "summary": spec.summary,
            "note": "gathered by hand before the compare workflow existed; no config or code hash, "
                    "no per-label scores, no timing",
        },
        "trained_with": spec.trained_with,
        "budget": {"max_steps": spec.steps},
        "model": "model-last",
        "scores": {name: view(figures) for name, figures in scores.items()},
        "command": f"spacy project run compare project/ --vars.corpus {spec.corpus} --vars.config {spec.config} "
                   f"--vars.seeds {seed}",
    }


def main(
    # fmt: off
    runs_dir: Path = Arg(..., help="Where the runs' JSON files go (RUNS_DIR/CORPUS/CONFIG/seedS.json)"),
    commit: str = Opt(SOURCE_COMMIT, "--commit", help="The commit whose full_budget_results.json to read"),
    # fmt: on
):
    shown = subprocess.run(["git", "show", f"{commit}:{SOURCE_FILE}"], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parent)
    source = json.loads(shown.stdout)
    for spec in RUNS:
        for seed_key, run in sorted(source[spec.key].items()):
            if spec.dev not in run:  # a seed stopped before this sweep
                continue
            seed = int(seed_key[1:])
            path = runs_dir / spec.corpus / spec.config / f"seed{seed}.json"
            if read_json(path).get("source", "imported") != "imported":
                print(f"keeping {path}: written by compare")
                continue
            write_json(path, imported_run(spec, seed, run[spec.dev], commit))
            print(f"{path}: {spec.key} s{seed}")


if __name__ == "__main__":
    typer.run(main)
