"""The benchmark's corpora and their budgets, read by the benchmark scripts.

Budgets keep one full benchmark run of a corpus (six heads trained, evaluated
and timed) within about an hour on a 2-core CPU: `train_limit` takes the first
N training sentences (0 = all), `steps` is the update budget of every head.
"""
from typing import Dict, NamedTuple

HEADS = [
    "global_pointer",
    "global_pointer_efficient",
    "crener",
    "lcrf_ner",
    "ner",
    "spancat",
]


class BenchCorpus(NamedTuple):
    folder: str
    train: str
    dev: str
    format: str
    lang: str
    nested: bool
    train_limit: int
    steps: int


CORPORA: Dict[str, BenchCorpus] = {
    "genia": BenchCorpus("genia", "train.jsonl", "dev.jsonl", "genia", "en", True, 3000, 400),
    "germeval2014": BenchCorpus(
        "germeval2014", "germ.train.iob2", "germ.dev.iob2", "germeval", "de", True, 3000, 400
    ),
    "wnut17": BenchCorpus(
        "wnut17", "wnut17train.conll", "emerging.dev.conll", "conll", "en", False, 0, 400
    ),
    "weibo": BenchCorpus(
        "weibo", "weiboNER_2nd_conll.train", "weiboNER_2nd_conll.dev", "weibo", "zh", False, 0, 400
    ),
    "resume": BenchCorpus("resume", "train.char.bmes", "dev.char.bmes", "bmes", "zh", False, 3000, 400),
    "cluener": BenchCorpus("cluener", "train.json", "dev.json", "cluener", "zh", False, 3000, 400),
}


def get_corpus(name: str) -> BenchCorpus:
    if name not in CORPORA:
        raise SystemExit(f"Unknown corpus {name!r}; choose one of {', '.join(CORPORA)}")
    return CORPORA[name]


def parse_heads(value: str):
    """'all' or a comma-separated list of head names."""
    if value in ("all", ""):
        return list(HEADS)
    heads = [head.strip() for head in value.split(",") if head.strip()]
    unknown = [head for head in heads if head not in HEADS]
    if unknown:
        raise SystemExit(f"Unknown head(s) {unknown}; choose from {', '.join(HEADS)}")
    return heads
