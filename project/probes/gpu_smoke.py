"""GPU smoke test: each component trained 50 steps with --gpu-id 0 and
mixed_precision = true, evaluated on the GPU, and compared with the same
training on the CPU.

    python project/probes/gpu_smoke.py [--steps 50] [--output gpu_smoke/]

Uses the bundled GENIA slice (project/assets/genia). For each component it runs
`spacy train` twice (CPU fp32; GPU with the head's mixed_precision on), then
`spacy evaluate` on each model, and prints a table: dev F of both runs, and how
far the GPU model's predictions agree with the CPU model's (span-level F of one
against the other) on the dev docs. 50 steps from the same seed do not give
identical models on two devices (different kernels, fp16), so the agreement is
a sanity figure, not an equality. Exits 1 if a run fails, a loss is not finite,
or the GPU model predicts nothing where the CPU model predicts something.
Needs a CUDA build of torch and CuPy; without them `spacy train --gpu-id 0` stops.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import spacy
from spacy.tokens import DocBin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from common import budget_overrides  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GENIA = REPO / "project" / "assets" / "genia"
COMPONENTS = ("global_pointer", "lcrf_ner", "crener")


def run(*args: str) -> None:
    print("$", " ".join(args), flush=True)
    subprocess.run(args, check=True)


def train(name: str, corpus: Path, output: Path, steps: int, gpu: bool) -> Path:
    config = REPO / "configs" / f"{name}.cfg"
    overrides = budget_overrides(config, steps)
    args = [sys.executable, "-m", "spacy", "train", str(config), *overrides,
            "--output", str(output), "--paths.train", str(corpus / "train.spacy"),
            "--paths.dev", str(corpus / "dev.spacy"),
            "--training.eval_frequency", str(max(1, steps // 2)), "--training.patience", "0",
            "--gpu-id", "0" if gpu else "-1"]
    if "--training.optimizer.learn_rate.total_steps" in overrides:  # a schedule: warm up over a tenth
        args += ["--training.optimizer.learn_rate.warmup_steps", str(max(1, steps // 10))]
    if gpu:
        args += [f"--components.{name}.model.mixed_precision", "true"]
    run(*args)
    return output / "model-last"


def evaluate(model: Path, corpus: Path, out: Path, gpu: bool) -> dict:
    run(sys.executable, "-m", "spacy", "evaluate", str(model), str(corpus / "dev.spacy"),
        "--output", str(out), "--gpu-id", "0" if gpu else "-1")
    return json.loads(out.read_text(encoding="utf8"))


def predicted_spans(model: Path, texts, gpu: bool):
    if gpu:
        spacy.require_gpu(0)
    else:
        spacy.require_cpu()
    nlp = spacy.load(model)
    key = nlp.get_pipe(nlp.pipe_names[-1]).key
    return [{(s.start, s.end, s.label_) for s in doc.spans[key]} for doc in nlp.pipe(texts)]


def agreement(a, b) -> float:
    both = sum(len(x & y) for x, y in zip(a, b))
    total = sum(len(x) + len(y) for x, y in zip(a, b))
    return 1.0 if total == 0 else 2 * both / total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--output", type=Path, default=Path("gpu_smoke"))
    parser.add_argument("--components", nargs="+", default=list(COMPONENTS), choices=COMPONENTS)
    opts = parser.parse_args()
    from spacy_globalner.corpora import convert
    from spacy_globalner.gpu import gpu_problem

    problem = gpu_problem(0)
    if problem:  # before any CPU training: this script is only useful on a GPU
        print(f"No usable GPU: {problem}.", file=sys.stderr)
        return 1

    corpus = opts.output / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    convert(GENIA / "train.jsonl", corpus / "train.spacy", format="genia")
    convert(GENIA / "dev.jsonl", corpus / "dev.spacy", format="genia")
    nlp = spacy.blank("en")
    texts = [doc.text for doc in DocBin().from_disk(corpus / "dev.spacy").get_docs(nlp.vocab)]
    rows, failed = [], False
    for name in opts.components:
        scores, spans = {}, {}
        for device, gpu in (("cpu", False), ("gpu", True)):
            model = train(name, corpus, opts.output / name / device, opts.steps, gpu)
            scores[device] = evaluate(model, corpus, opts.output / name / f"{device}.json", gpu)
            spans[device] = predicted_spans(model, texts, gpu)
        f_key = "spans_sc_f" if name != "lcrf_ner" else "ents_f"
        row = {
            "component": name,
            "cpu_f": scores["cpu"].get(f_key),
            "gpu_f": scores["gpu"].get(f_key),
            "gpu_vs_cpu_agreement": agreement(spans["gpu"], spans["cpu"]),
            "gpu_spans": sum(map(len, spans["gpu"])),
            "cpu_spans": sum(map(len, spans["cpu"])),
        }
        if row["gpu_f"] is None or not math.isfinite(row["gpu_f"]) or (row["cpu_spans"] and not row["gpu_spans"]):
            failed = True
        rows.append(row)
    print(json.dumps(rows, indent=2))
    (opts.output / "gpu_smoke.json").write_text(json.dumps(rows, indent=2), encoding="utf8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
