"""Train one config on one corpus for each seed, score it where nothing was tuned, one JSON per run.

python scripts/compare.py CORPUS CONFIG CORPUS_DIR [--seeds 0,1,2] [--steps 0]
    [--configs-dir ../configs] [--training-dir training/compare]
    [--runs-dir benchmarks/runs] [--threads 1] [--gpu-id -1]

CONFIG is a config of the package (CONFIGS_DIR/CONFIG.cfg, trained as shipped,
at its own max_steps unless --steps is given), a config with some of its head's
settings changed (`lcrf_ner_trf,transitions=crf`, `global_pointer_trf,
head_lr_scale=10`: a setting of the head component or of its model, the
value read as JSON where it parses; `learn_rate_scale=K`, which any head takes,
spaCy's too, multiplies the whole optimizer's learning rate, as a spaCy user
would raise it), or one of spaCy's own heads on the
encoder, optimizer, schedule, batcher and budget of a package config: HEAD@CONFIG
(`spancat@crener`, `ner@lcrf_ner`; a bare `ner` or `spancat` runs on
global_pointer's). spaCy's heads are the blocks `spacy init config -p HEAD`
writes (`-G` on a transformer); spancat's ngram sizes run 1..the longest
training entity; `span_finder` puts span_finder, with an encoder of its own
built as the config's, in front of spancat to propose its candidates (tok2vec
configs only). Only what the corpus needs changes besides: the language
(Chinese gets the character tokenizer) and a timing logger that changes
nothing the model computes.

Every run trains on train.spacy, evaluates once, at its last update, on dev
(dev.spacy), with patience off, so no early stop cuts one side's budget, and
is scored on the official test split (test.spacy), read by nothing before,
twice: at the config's settings, and with its threshold chosen on dev, for
each score the run is judged on (all spans, doc.ents), by the tool the head ships with
(spacy find-threshold's scan, made from one prediction of dev by
threshold_scan.py, for spancat's, global_pointer's and cse_ner's threshold,
and span_finder's before spancat's;
`spacy globalner calibrate` for crener's per-label thresholds; ner and
lcrf_ner have none).

A run's path names what ran: RUNS_DIR/CORPUS/ENCODER/HEAD/BUDGET/seedS.json,
ENCODER the package config whose encoder, optimizer and schedule it used, HEAD
the head (a package config's name, with its changed settings), BUDGET
`stepsN` with `-trainN` / `-devN` where the corpus was cut. The pipeline
trains in the same place under TRAINING_DIR; a run whose composed config is
unchanged and whose model-last exists is scored again without training.
spaCy's head on a package config that would train it exactly as another config
did (crener_trf and global_pointer_trf share encoder, optimizer, schedule and
batcher) takes that finished run, marked `trained_as`, instead of training. Two
seeds can run at once in two shells; scripts/tables.py builds every results
table from the files.
"""
import copy
import datetime
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import typer
from significance import format_counts
from spacy.util import set_dot_to_object
from thinc.api import Config

from common import (
    CHINESE_TOKENIZER,
    THRESHOLD_TRIALS,
    Arg,
    Opt,
    budget_overrides,
    code_state,
    portable,
    read_config,
    read_json,
    resolve_transformer,
    set_threads,
    spacy_head_block,
    thread_env,
    threshold_scan_tool,
    versions,
    write_json,
)

SCRIPTS_DIR = Path(__file__).resolve().parent
SPACY_HEADS = ("ner", "spancat", "span_finder")
# spaCy's span_finder runs in front of spancat: it proposes the candidate
# spans, spancat labels them (its preset_spans suggester), as spaCy's docs
# pair them to find long spans cheaply.
SPACY_PIPES = {"span_finder": ["span_finder", "spancat"]}
BASELINE_ENCODER = "global_pointer"
DEFAULT_TOKENIZER = {"@tokenizers": "spacy.Tokenizer.v1"}
# Settings of the run, not of a head: every head takes them, spaCy's too.
LEARN_RATE_SCALE = "learn_rate_scale"
# tuned=NAME: the settings `spacy globalner tune` chose on dev in
# TUNING_DIR/CORPUS/NAME/best.json (scripts/tune_run.py), applied over the
# composed config; the budget is the tuned training.max_steps.
TUNED = "tuned"
RUN_SETTINGS = (LEARN_RATE_SCALE, TUNED)


def parse_config_name(name: str) -> Tuple[str, Optional[str]]:
    """(package config, spaCy head or None): 'crener' -> ('crener', None),
    'ner' -> ('global_pointer', 'ner'), 'spancat@crener' -> ('crener', 'spancat')."""
    head, _, base = name.partition("@")
    if head in SPACY_HEADS:
        return base or BASELINE_ENCODER, head
    if base:
        raise SystemExit(f"{name!r}: only {', '.join(SPACY_HEADS)} take an encoder (HEAD@CONFIG)")
    return head, None


def parse_variant(name: str) -> Tuple[str, Dict[str, object]]:
    """'lcrf_ner_trf,transitions=crf' -> ('lcrf_ner_trf', {'transitions': 'crf'})."""
    base, *pairs = name.split(",")
    settings: Dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value:
            raise SystemExit(f"{name!r}: give each changed setting as KEY=VALUE, e.g. lcrf_ner_trf,transitions=crf")
        try:
            settings[key] = json.loads(value)
        except json.JSONDecodeError:
            settings[key] = value
    return base, settings


def setting_block(config: Config, key: str) -> Optional[Dict]:
    """The block holding setting KEY of the config's head component: the
    component's own or its model's; None where neither has it."""
    block = config["components"][config["nlp"]["pipeline"][-1]]
    for holder in (block, block.get("model", {})):
        if key in holder and not isinstance(holder[key], dict):
            return holder
    return None


def with_settings(config: Config, settings: Dict[str, object], name: str) -> Config:
    """The config with each setting of its head component (or of the head's model) replaced."""
    for key, value in settings.items():
        holder = setting_block(config, key)
        if holder is None:
            head = config["nlp"]["pipeline"][-1]
            raise SystemExit(f"{name!r}: {key!r} is not a setting of [components.{head}] or its model")
        holder[key] = value
    return config


def split_settings(settings: Dict[str, object]) -> Tuple[Dict[str, object], Dict[str, object]]:
    """(settings of the run, settings of the head component)."""
    run = {key: value for key, value in settings.items() if key in RUN_SETTINGS}
    return run, {key: value for key, value in settings.items() if key not in run}


def with_learn_rate_scale(config: Config, scale: object, name: str) -> Config:
    """The config with the whole optimizer's learning rate (a schedule's
    initial_rate, or a constant rate) SCALE times: what a spaCy user raises
    with `--training.optimizer.learn_rate.initial_rate`."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise SystemExit(f"{name!r}: {LEARN_RATE_SCALE} takes a positive number, e.g. {LEARN_RATE_SCALE}=5")
    optimizer = config["training"]["optimizer"]
    rate = optimizer.get("learn_rate")
    if isinstance(rate, dict) and isinstance(rate.get("initial_rate"), (int, float)):
        rate["initial_rate"] = float(rate["initial_rate"]) * scale
    elif isinstance(rate, (int, float)) and not isinstance(rate, bool):
        optimizer["learn_rate"] = float(rate) * scale
    else:
        raise SystemExit(f"{name!r}: [training.optimizer.learn_rate] has no initial_rate to scale")
    return config


def read_tuned(tuning_dir: Path, corpus: str, name: object) -> Dict:
    """best.json of the study NAME on CORPUS: its trial, dev score and settings."""
    path = tuning_dir / corpus / str(name) / "best.json"
    if not path.exists():
        raise SystemExit(f"{TUNED}={name}: no {path}; run scripts/tune_run.py {corpus} ... first")
    return read_json(path)


def with_params(config: Config, params: Dict[str, object]) -> Config:
    """The config with each dotted setting (training.dropout, ...) replaced."""
    for key, value in params.items():
        set_dot_to_object(config, key, value)
    return config


def parse_seeds(value: str) -> List[int]:
    seeds = [item for item in value.replace(",", " ").split() if item]
    if not seeds or not all(item.isdigit() for item in seeds):
        raise SystemExit(f"--seeds {value!r}: give seeds as numbers separated by commas, e.g. 0,1,2")
    return [int(item) for item in seeds]


def with_spacy_head(config: Config, head: str, max_entity_length: int) -> Config:
    """The package config with its head replaced by spaCy's `head`, on the same
    encoder component, listener, optimizer, batcher and budget."""
    encoder, *heads = config["nlp"]["pipeline"]
    if len(heads) != 1:
        raise SystemExit(f"Expected one encoder and one head in the pipeline, got {config['nlp']['pipeline']}")
    listener = copy.deepcopy(dict(config["components"][heads[0]]["model"]["tok2vec"]))
    del config["components"][heads[0]]
    config["initialize"]["components"].pop(heads[0], None)
    on_transformer = config["components"][encoder]["factory"] == "transformer"
    pipes = SPACY_PIPES.get(head, [head])
    block = spacy_head_block(head, transformer=on_transformer, pipes=pipes)
    for pipe in pipes:
        config["components"][pipe] = copy.deepcopy(dict(block["components"][pipe]))
        config["components"][pipe]["model"]["tok2vec"] = copy.deepcopy(listener)
    config["training"]["score_weights"] = dict(block["training"]["score_weights"])
    config["nlp"]["pipeline"] = [encoder, *pipes]
    longest = max(1, max_entity_length)
    if head == "span_finder":
        # span_finder learns the gold spans' starts and ends and writes its
        # candidates (up to the longest training entity) where spancat's
        # suggester reads them, during training too (annotating_components).
        # It reads the gold spans under its own spans_key, so both use spancat's.
        # Its model gets an encoder of its own, built as the encoder component's
        # (span_finder's default model has its own tok2vec too): an untrained
        # span_finder proposes nearly every span up to max_length, and spancat's
        # gradient from that flood, through a shared encoder, leaves span_finder
        # unable to learn the boundaries; spancat then gets no candidates
        # (docs/thresholds.md). spancat listens to the encoder component.
        if on_transformer:
            raise SystemExit("span_finder@CONFIG takes a config with a tok2vec encoder, not a transformer")
        config["components"]["span_finder"]["model"]["tok2vec"] = copy.deepcopy(
            dict(config["components"][encoder]["model"]))
        config["components"]["span_finder"]["max_length"] = longest
        config["components"]["spancat"]["suggester"] = {"@misc": "spacy.preset_spans_suggester.v1",
                                                         "spans_key": config["components"]["span_finder"]["spans_key"]}
        config["training"]["annotating_components"] = ["span_finder"]
    elif head == "spancat":
        config["components"]["spancat"]["suggester"]["sizes"] = list(range(1, longest + 1))
    return config


def compose(
    config_path: Path, spacy_head: Optional[str], stats: Dict, stats_path: Path, transformer: str = "auto",
    settings: Optional[Dict[str, object]] = None, tuned_params: Optional[Dict[str, object]] = None,
) -> Config:
    """The config a run trains: CONFIG_PATH for the corpus' language, with the
    timing logger writing STATS_PATH, spaCy's head in place of the package's
    where SPACY_HEAD is given, and TRANSFORMER (a model name or path; "auto":
    the offline MiniLM where installed) as paths.transformer of a _trf config."""
    config = read_config(config_path)
    if "transformer" in config["paths"]:
        config["paths"]["transformer"] = resolve_transformer(transformer)
    run_settings, head_settings = split_settings(settings or {})
    if head_settings:
        config = with_settings(config, head_settings, config_path.stem)
    if spacy_head is not None:
        config = with_spacy_head(config, spacy_head, stats["train"]["max_length"])
    if LEARN_RATE_SCALE in run_settings:
        config = with_learn_rate_scale(config, run_settings[LEARN_RATE_SCALE], config_path.stem)
    if tuned_params:
        config = with_params(config, tuned_params)
    lang = stats["lang"]
    if config["nlp"]["lang"] != lang:
        config["nlp"]["lang"] = lang
        if lang == "zh":
            config["nlp"]["tokenizer"] = dict(CHINESE_TOKENIZER)
            config["initialize"]["tokenizer"] = {"pkuseg_model": None, "pkuseg_user_dict": "default"}
        elif config["nlp"]["tokenizer"] != DEFAULT_TOKENIZER:
            config["nlp"]["tokenizer"] = dict(DEFAULT_TOKENIZER)
            config["initialize"]["tokenizer"] = {}
    # measure.py's logger prints what spaCy's console logger prints and saves
    # the update time without the evaluations; the step timer reads a clock and
    # runs the config's own before_update, if any.
    config["training"]["logger"] = {"@loggers": "benchmark.timed_logger.v1", "path": str(stats_path)}
    own = config["training"].get("before_update")
    config["training"]["before_update"] = {"@callbacks": "benchmark.step_timer.v1", **({"then": own} if own else {})}
    return config


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def machine(threads: int, gpu_id: int) -> Dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = None
    if gpu_id >= 0:
        import torch

        gpu = torch.cuda.get_device_name(gpu_id) if torch.cuda.is_available() else None
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "threads": threads, "gpu": gpu,
            "platform": platform.platform()}


def views(scores: Dict) -> Dict:
    return {view: scores[view] for view in ("spans", "ents", "outer") if view in scores}


# Heads whose one `threshold` spacy find-threshold tunes (docs/thresholds.md),
# and components before a head whose `threshold` it tunes as well: span_finder's
# decides which candidates spancat labels.
FIND_THRESHOLD = ("spancat", "global_pointer", "cse_ner")
FIND_THRESHOLD_BEFORE = ("span_finder",)


def tune(nlp, tune_path: Path, scores_key: str, trials: int = THRESHOLD_TRIALS) -> Optional[Dict]:
    """Choose the head's threshold for SCORES_KEY on dev (TUNE_PATH) with the
    tool it ships with (TRIALS thresholds from 0 to 1 where it is spacy
    find-threshold, scanned as threshold_scan.py does) and set it on NLP;
    None for a head without one. A find-threshold component before the head
    is tuned first, by the same scan of the whole pipeline's SCORES_KEY."""
    name = nlp.pipe_names[-1]
    pipe = nlp.get_pipe(name)
    if nlp.get_pipe_meta(name).factory in FIND_THRESHOLD:
        from threshold_scan import scan_threshold

        before = [each for each in nlp.pipe_names[:-1] if nlp.get_pipe_meta(each).factory in FIND_THRESHOLD_BEFORE]
        chosen = {}
        # In pipeline order, each scanned with the thresholds before it chosen:
        # the candidates first, then the head's cut of their scores.
        for each in (*before, name):
            best, best_score, _ = scan_threshold(nlp, tune_path, each, scores_key, trials)
            nlp.get_pipe(each).cfg["threshold"] = chosen[each] = float(best)
        record = {"tool": threshold_scan_tool(trials), "scores_key": scores_key,
                  "threshold": chosen[name], "tune_score": float(best_score)}
        if before:
            record["thresholds_before"] = {each: chosen[each] for each in before}
        return record
    if getattr(pipe, "can_calibrate", False):
        from spacy.training import Corpus

        from spacy_globalner.pipeline.calibration import calibrate_component

        calibrate_component(nlp, name, list(Corpus(tune_path)(nlp)))
        return {"tool": "spacy globalner calibrate", "thresholds": dict(pipe.cfg["thresholds"])}
    return None


# The views each tuning target scores: a threshold chosen for all spans is
# reported on all spans, one chosen for doc.ents on the flat views.
TUNED_VIEWS = {"spans_sc_f": ("spans",), "ents_f": ("ents", "outer")}


def score(model: Path, corpus_dir: Path, nested: bool, trials: int = THRESHOLD_TRIALS) -> Dict:
    """The test split's scores at the config's settings, and with the
    threshold chosen on dev for each view the run is judged on."""
    import spacy
    from evaluate import evaluate_pipeline

    report, tune_path = corpus_dir / "test.spacy", corpus_dir / "dev.spacy"
    nlp = spacy.load(model)
    scored = evaluate_pipeline(nlp, report, "sc", nested, counts=True)
    at_default, sentences = views(scored), dict(scored["sentences"])
    factory = nlp.get_pipe_meta(nlp.pipe_names[-1]).factory
    targets = ["spans_sc_f"] if factory == "spancat" else ["spans_sc_f", "ents_f"] if nested else ["ents_f"]
    tuned, tuning = dict(at_default), {}
    for target in targets:
        nlp = spacy.load(model)
        chosen = tune(nlp, tune_path, target, trials)
        if chosen is None:
            break
        # A threshold is chosen per target; per-label calibration (no
        # scores_key) is one choice that every target shares.
        shared = "scores_key" not in chosen
        covered = targets if shared else [target]
        tuning.update({each: chosen for each in covered})
        scored = evaluate_pipeline(nlp, report, "sc", nested, counts=True)
        scores = views(scored)
        reported = [view for each in covered for view in TUNED_VIEWS[each] if view in scores]
        tuned.update({view: scores[view] for view in reported})
        sentences.update({view: scored["sentences"][view] for view in reported})
        if shared:
            break
    # Each test sentence's counts behind "scores", for the paired test (significance.py).
    return {"scores": tuned, "scores_at_default": at_default, "tuning": tuning or None,
            "test_sentences": {view: format_counts(rows) for view, rows in sentences.items()},
            "test_sentences_format": "per view, 'tp fp fn' of each test sentence in test.spacy's order, "
                                     "joined by commas"}


def reproduce_command(corpus: str, config: str, seed: int, steps: int, stats: Dict, transformer: str = "auto",
                      warmup: int = 0, trials: int = THRESHOLD_TRIALS, data_dir: str = "assets/corpora") -> str:
    """The whole `spacy project run compare` command of a run, every var that
    differs from project.yml's default and where the corpora were read."""
    command = (f"spacy project run compare project/ --vars.corpus {corpus} --vars.config {config} "
               f"--vars.seeds {seed} --vars.data_dir {data_dir}")
    for var, value in (("compare_steps", steps), ("compare_warmup", warmup),
                       ("compare_train_limit", stats.get("train_limit", 0)),
                       ("compare_dev_limit", stats.get("dev_limit", 0)),
                       ("transformer", portable(transformer) if transformer != "auto" else None),
                       ("threshold_trials", trials if trials != THRESHOLD_TRIALS else None)):
        if value:
            command += f" --vars.{var} {value}"
    return command


def train_and_measure(command: List[str], env: Dict[str, str]) -> float:
    """Run the training COMMAND; return its peak resident memory in MiB (ru_maxrss of that child alone)."""
    process = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)
    return usage.ru_maxrss / 1024  # KiB on Linux


def budget_name(steps: int, stats: Dict, warmup: int = 0) -> str:
    """'steps4000', 'steps1000-warmup100-train3000': the budget, a warm-up set
    for it, and any cut of the corpus."""
    name = f"steps{steps}" + (f"-warmup{warmup}" if warmup else "")
    for part in ("train", "dev"):
        if stats.get(f"{part}_limit"):
            name += f"-{part}{stats[f'{part}_limit']}"
    return name


def run_id(corpus: str, name: str, steps: int, stats: Dict, warmup: int = 0) -> Path:
    """CORPUS/ENCODER/HEAD/BUDGET: the path of a run below the runs and training folders."""
    base, _ = parse_variant(name)
    package_config, spacy_head = parse_config_name(base)
    head = spacy_head + name[len(base):] if spacy_head else name
    return Path(corpus) / package_config / head / budget_name(steps, stats, warmup)


# What a training itself was (its package commit, start, time and memory),
# written beside model-last, so that scoring it again keeps its own record.
TRAINED_FILE = "trained.json"


def trained_already(output: Path, composed_text: str, command: List[str]) -> bool:
    """Whether OUTPUT holds model-last trained by exactly this command and
    composed config, and the record of that training."""
    composed, ran = output / "config.cfg", output / "train_command.txt"
    return ((output / "model-last").exists() and composed.exists() and composed.read_text() == composed_text
            and ran.exists() and ran.read_text() == shlex.join(command) and (output / TRAINED_FILE).exists())


def twin_run(spacy_head: str, package_config: str, seed: int, steps: int, stats: Dict, warmup: int,
             output: Path, composed_text: str, command: List[str], configs_dir: Path, training_dir: Path,
             runs_dir: Path, corpus: str, variant: str = "") -> Optional[Tuple[Path, Dict]]:
    """(run id, record) of SPACY_HEAD trained on another package config's
    encoder whose composed config and command were exactly this run's, apart
    from where they point: two configs that share the transformer block,
    optimizer, schedule and batcher give spaCy's head one and the same training."""
    for other in sorted(path.stem for path in configs_dir.glob("*.cfg")):
        if other == package_config:
            continue
        run = run_id(corpus, f"{spacy_head}@{other}{variant}", steps, stats, warmup)
        twin = training_dir / run / f"seed{seed}"
        record = read_json(runs_dir / run / f"seed{seed}.json")
        if not record.get("train") or record.get("trained_as"):
            continue
        there = [arg.replace(str(output), str(twin)) for arg in command]
        if trained_already(twin, composed_text.replace(str(output), str(twin)), there):
            return run, record
    return None


def run_seed(
    corpus: str, name: str, seed: int, corpus_dir: Path, configs_dir: Path, training_dir: Path,
    runs_dir: Path, steps: int, threads: int, gpu_id: int, transformer: str = "auto", warmup: int = 0,
    trials: int = THRESHOLD_TRIALS, tuning_dir: Path = Path("benchmarks/tuning"), data_dir: str = "assets/corpora",
) -> Path:
    base, head_settings = parse_variant(name)
    package_config, spacy_head = parse_config_name(base)
    if split_settings(head_settings)[1] and spacy_head:
        raise SystemExit(f"{name!r}: settings change the package's head; spaCy's {spacy_head} takes only "
                         f"{LEARN_RATE_SCALE}")
    config_path = configs_dir / f"{package_config}.cfg"
    if not config_path.exists():
        raise SystemExit(f"No config {config_path}; CONFIG is a config of the package, ner or spancat")
    stats = read_json(corpus_dir / "stats.json")
    tuned = read_tuned(tuning_dir, corpus, head_settings[TUNED]) if TUNED in head_settings else None
    tuned_params = tuned["params"] if tuned else None
    steps = steps or int((tuned_params or {}).get("training.max_steps")
                         or read_config(config_path)["training"]["max_steps"])
    run = run_id(corpus, name, steps, stats, warmup)
    output = training_dir / run / f"seed{seed}"
    output.mkdir(parents=True, exist_ok=True)
    train_stats_path = output / "train_stats.json"
    config = compose(config_path, spacy_head, stats, train_stats_path, transformer, head_settings, tuned_params)
    composed_text = config.to_str(interpolate=False)
    command = [
        "python", "-m", "spacy", "train", str(output / "config.cfg"), "--output", str(output),
        "--code", str(Path(os.path.relpath(SCRIPTS_DIR / "measure.py"))),
        "--paths.train", str(corpus_dir / "train.spacy"), "--paths.dev", str(corpus_dir / "dev.spacy"),
        "--system.seed", str(seed), "--gpu-id", str(gpu_id),
        # A tuned run keeps the warm-up its trials had (the config's, which
        # the schedule caps at a share of the budget).
        *budget_overrides(config_path, steps, warmup, scale_warmup=tuned is None),
        "--training.eval_frequency", str(steps), "--training.patience", "0",
    ]
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()
    code = code_state()  # before training: the package may change while it runs
    twin = spacy_head and not trained_already(output, composed_text, command) and twin_run(
        spacy_head, package_config, seed, steps, stats, warmup, output, composed_text, command, configs_dir,
        training_dir, runs_dir, corpus, name[len(base):])
    if twin:
        twin_id, record = twin
        print(f"{output}: {spacy_head} trained exactly so on {twin_id.parent.parent}'s encoder; "
              f"its run is this one's")
        record = {**record, "config": name, "config_file": f"configs/{package_config}.cfg",
                  "config_sha256": sha256(config_path), "encoder_of": package_config,
                  "command": reproduce_command(corpus, name, seed, steps, stats, transformer, warmup, trials, data_dir),
                  "trained_as": f"{twin_id}/seed{seed}.json"}
        path = runs_dir / run / f"seed{seed}.json"
        write_json(path, record)
        return path
    if trained_already(output, composed_text, command):
        print(f"{output}: trained from the same config already; scoring it again")
        own = read_json(output / TRAINED_FILE)
        wall, peak_rss_mb, code = own["wall_seconds"], own["peak_rss_mb"], own["code"]
        started = datetime.datetime.fromisoformat(own["started"])
        load_before = tuple(own["load_average_before"])
    else:
        train_stats_path.unlink(missing_ok=True)
        (output / "config.cfg").write_text(composed_text)
        (output / "train_command.txt").unlink(missing_ok=True)
        (output / TRAINED_FILE).unlink(missing_ok=True)
        start = time.perf_counter()
        peak_rss_mb = train_and_measure([sys.executable, *command[1:]], thread_env(threads, offline=True))
        wall = time.perf_counter() - start
        (output / "train_command.txt").write_text(shlex.join(command))
        write_json(output / TRAINED_FILE, {"code": code, "started": started.isoformat(timespec="seconds"),
                                           "wall_seconds": wall, "peak_rss_mb": peak_rss_mb,
                                           "load_average_before": list(load_before)})
    trained = read_json(train_stats_path)
    record = {
        "corpus": corpus,
        "config": name,
        "config_file": f"configs/{package_config}.cfg",
        "config_sha256": sha256(config_path),
        "trained_config_sha256": sha256(output / "config.cfg"),
        "head": spacy_head or package_config,
        "encoder_of": package_config,
        "settings": head_settings,
        "tuned": {key: tuned[key] for key in ("study", "trial", "value", "metric", "params", "finished_trials")}
        if tuned else None,
        "transformer": portable(config["paths"]["transformer"]) if config["paths"].get("transformer") else None,
        "seed": seed,
        "source": "compare",
        "code": code,
        "versions": versions(),
        "machine": {**machine(threads, gpu_id), "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "data": {"lang": stats["lang"], "nested": stats["nested"],
                 "train_sentences": stats["train"]["n_docs"], "train_tokens": stats["train"]["n_tokens"],
                 "dev_sentences": stats["dev"]["n_docs"],
                 "test_sentences": stats["test"]["n_docs"],
                 "tuned_on": "dev.spacy (the whole dev split)",
                 "scored_on": "test.spacy (the official test split)",
                 "train_limit": stats.get("train_limit", 0), "dev_limit": stats.get("dev_limit", 0)},
        "budget": {"max_steps": steps, "updates": trained.get("steps"),
                   "eval_frequency": steps},
        "model": "model-last",
        **score(output / "model-last", corpus_dir, stats["nested"], trials),
        "train": {"wall_seconds": round(wall, 1), "train_seconds": trained.get("train_seconds"),
                  "words": trained.get("words"), "words_per_second": trained.get("train_words_per_second"),
                  "final_dev_score": trained.get("final_dev_score"), "peak_rss_mb": round(peak_rss_mb)},
        "started": started.isoformat(timespec="seconds"),
        "command": reproduce_command(corpus, name, seed, steps, stats, transformer, warmup, trials, data_dir),
        "train_command": shlex.join(command),
    }
    path = runs_dir / run / f"seed{seed}.json"
    write_json(path, record)
    return path


def main(
    # fmt: off
    corpus: str = Arg(..., help="The corpus' name (a folder of the data dir)"),
    config: str = Arg(..., help="A package config (crener, ...), CONFIG,KEY=VALUE, ner, spancat or HEAD@CONFIG"),
    corpus_dir: Path = Arg(..., help="train.spacy, dev.spacy and stats.json from corpus.py"),
    seeds: str = Opt("0,1,2", "--seeds", help="Seeds, separated by commas"),
    steps: int = Opt(0, "--steps", help="Update budget (0: the config's own max_steps)"),
    warmup: int = Opt(0, "--warmup", help="Warm-up updates (0: the config's share of the budget)"),
    configs_dir: Path = Opt(Path("../configs"), "--configs-dir", help="The package's configs"),
    training_dir: Path = Opt(Path("training/compare"), "--training-dir", help="Where the pipelines go"),
    runs_dir: Path = Opt(Path("benchmarks/runs"), "--runs-dir", help="Where the runs' JSON files go"),
    threads: int = Opt(1, "--threads", help="torch/BLAS threads of training and evaluation"),
    gpu_id: int = Opt(-1, "--gpu-id", help="GPU (-1: CPU)"),
    transformer: str = Opt("auto", "--transformer", help="paths.transformer of _trf configs (auto: offline MiniLM)"),
    trials: int = Opt(THRESHOLD_TRIALS, "--threshold-trials", help="Thresholds spacy find-threshold tries on dev"),
    tuning_dir: Path = Opt(Path("benchmarks/tuning"), "--tuning-dir", help="Where tune_run.py's studies are (tuned=)"),
    data_dir: str = Opt("assets/corpora", "--data-dir", help="vars.data_dir the corpus came from, for the record"),
    # fmt: on
):
    set_threads(threads)
    if gpu_id >= 0:
        import spacy

        spacy.require_gpu(gpu_id)
    for seed in parse_seeds(seeds):
        path = run_seed(corpus, config, seed, corpus_dir, configs_dir, training_dir, runs_dir,
                        steps, threads, gpu_id, transformer, warmup, trials, tuning_dir, data_dir)
        scores = read_json(path)["scores"]
        print(f"{path}: " + ", ".join(f"{view} F {scores[view]['f'] or 0.0:.4f}" for view in scores))


if __name__ == "__main__":
    typer.run(main)
