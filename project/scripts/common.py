"""What every benchmark script shares: the heads, the corpora and their
budgets, thread settings and the loop over trained heads.

Budgets keep one full benchmark run of a corpus (six heads trained, evaluated
and timed) within about an hour on a 2-core CPU: `train_limit` takes the first
N training sentences (0 = all), `steps` is the update budget of every head.
"""
import json
import os
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

import typer

PROJECT_DIR = Path(__file__).resolve().parent.parent
PACKAGE_CONFIGS = PROJECT_DIR.parent / "configs"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


class Head(NamedTuple):
    """A benchmarked head: its component in the package's configs/SOURCE.cfg,
    with `model_overrides` (its model) and `settings` (the component's own
    settings) on top; source None: spaCy's own ner or spancat, as `spacy
    init config` writes it."""

    component: str
    source: Optional[str] = None
    model_overrides: Dict = {}
    settings: Dict = {}


# configs/crener.cfg decodes at the threshold 0.8176, chosen for its 4,000
# updates; after the few hundred updates of a benchmark run the scores are
# lower and 0.5, the factory's default, scores higher (docs/crener.md, "The
# threshold and the training budget").
SHORT_BUDGET_CRENER = {"threshold": 0.5}


HEADS: Dict[str, Head] = {
    "global_pointer": Head("global_pointer", "global_pointer"),
    "global_pointer_efficient": Head("global_pointer", "global_pointer", {"efficient": True}),
    "crener": Head("crener", "crener", settings=SHORT_BUDGET_CRENER),
    # Every piece of the CRENER paper switched on (docs/crener.md).
    "crener_paper": Head("crener", "crener", {
        "transformer_depth": 1,
        "attention_embedding_width": 4,
        "parallel_dilations": True,
        "cln_bias_from": "object",
        "enhancement": "paper",
        "enhancement_rounds": 1,
        "predictor_input": "grid+tags",
    }, SHORT_BUDGET_CRENER),
    "lcrf_ner": Head("lcrf_ner", "lcrf_ner"),
    "ner": Head("ner"),
    "spancat": Head("spancat"),
}


class BenchCorpus(NamedTuple):
    folder: str
    train: str
    dev: str
    format: str
    lang: str
    nested: bool
    train_limit: int
    steps: int
    # The official test split, read only by a compared run's final scoring
    # step; None where the corpus publishes no test labels (CLUENER).
    test: Optional[str] = None


CORPORA: Dict[str, BenchCorpus] = {
    "genia": BenchCorpus("genia", "train.jsonl", "dev.jsonl", "genia", "en", True, 3000, 400, "test.jsonl"),
    "germeval2014": BenchCorpus(
        "germeval2014", "germ.train.iob2", "germ.dev.iob2", "germeval", "de", True, 3000, 400, "germ.test.iob2"
    ),
    "wnut17": BenchCorpus(
        "wnut17", "wnut17train.conll", "emerging.dev.conll", "conll", "en", False, 0, 400,
        "emerging.test.annotated"
    ),
    "weibo": BenchCorpus(
        "weibo", "weiboNER_2nd_conll.train", "weiboNER_2nd_conll.dev", "weibo", "zh", False, 0, 400,
        "weiboNER_2nd_conll.test"
    ),
    "resume": BenchCorpus(
        "resume", "train.char.bmes", "dev.char.bmes", "bmes", "zh", False, 3000, 400, "test.char.bmes"
    ),
    "cluener": BenchCorpus("cluener", "train.json", "dev.json", "cluener", "zh", False, 3000, 400),
}


def get_corpus(name: str) -> BenchCorpus:
    if name not in CORPORA:
        raise SystemExit(f"Unknown corpus {name!r}; choose one of {', '.join(CORPORA)}")
    return CORPORA[name]


def parse_heads(value: str) -> List[str]:
    """'all' or a comma-separated list of head names."""
    if value in ("all", ""):
        return list(HEADS)
    heads = [head.strip() for head in value.split(",") if head.strip()]
    unknown = [head for head in heads if head not in HEADS]
    if unknown:
        raise SystemExit(f"Unknown head(s) {unknown}; choose from {', '.join(HEADS)}")
    return heads


def thread_env(threads: int) -> Dict[str, str]:
    """The environment of a timed child process: `threads` BLAS/OpenMP threads
    (read by measure.py's `--code` hooks and probes as BENCH_THREADS too)."""
    env = dict(os.environ)
    for name in THREAD_VARS:
        env[name] = str(threads)
    env["BENCH_THREADS"] = str(threads)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def set_threads(threads: int) -> None:
    """Fix this process's torch threads (a timed process only, never a test)."""
    import torch

    for name in THREAD_VARS:
        os.environ[name] = str(threads)
    torch.set_num_threads(threads)


def trained_heads(models_dir: Path, heads: str) -> Iterator[Tuple[str, Path]]:
    """(head, MODELS_DIR/HEAD/model-last) for each chosen head that was trained;
    the others are reported and skipped."""
    for head in parse_heads(heads):
        model = models_dir / head / "model-last"
        if not model.exists():
            print(f"skipping {head}: no {model}")
            continue
        yield head, model


def read_json(path: Path) -> Dict:
    return json.loads(path.read_text()) if path.exists() else {}


def write_json(path: Path, data: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


# Typer's annotations, short, as in spaCy's CLI and explosion/projects' scripts
Arg = typer.Argument
Opt = typer.Option
