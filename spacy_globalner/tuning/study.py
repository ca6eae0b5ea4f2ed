"""Run an Optuna study over a search space, kept in a database, and write its results.

Each trial draws the space's settings (space.suggest), applies them over the
config as command-line overrides would, trains (trial.train_trial) and is
pruned when its dev score at a share of its budget falls below the median of
the trials before it at that share (optuna's MedianPruner), from half of
its budget on by default. The study lives
in STORAGE (an Optuna storage URL: SQLite by default, or a database several
machines share): run the command again to resume it, or on another machine
to add workers. A trial whose process died is failed after its heartbeat
stops and tried once more. After every trial OUTPUT holds:

    trials.json   every trial: state, settings, dev scores as it trained, time
    best.cfg      the config with the best finished trial's settings
    best.json     that trial's settings and dev score
"""
import json
import time
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, Optional

from spacy.util import load_config
from wasabi import msg

from ..errors import Errors
from .space import Setting, missing_settings, read_space, suggest
from .trial import train_trial

TRIALS_FILE = "trials.json"
SPACE_ATTR = "space"
BEST_CONFIG = "best.cfg"
BEST_FILE = "best.json"
# A running trial writes a heartbeat this often (seconds); one silent for
# the grace period is taken for dead, failed and retried once.
HEARTBEAT_SECONDS = 60
GRACE_SECONDS = 300


def run_study(
    config_path: Path,
    space_path: Path,
    output: Path,
    *,
    trials: int,
    storage: Optional[str] = None,
    study_name: Optional[str] = None,
    overrides: Optional[Dict[str, Any]] = None,
    metric: Optional[str] = None,
    evals: int = 4,
    startup_trials: int = 3,
    prune_from: int = 50,
    seed: int = 0,
    gpu_id: int = -1,
):
    """Search the space on dev until the study holds TRIALS finished trials.

    config_path (Path): The training config.
    space_path (Path): The search-space file (space.py).
    output (Path): Where trials.json, best.cfg and best.json go.
    trials (int): Finished (complete or pruned) trials the study should hold;
        a resumed study runs only the missing ones.
    storage (Optional[str]): Optuna storage URL (None: sqlite:///OUTPUT/study.db).
    study_name (Optional[str]): The study's name in the storage (None: the
        config's file name).
    overrides (Optional[Dict[str, Any]]): Config overrides every trial takes
        (--paths.train ...), under the searched settings.
    metric (Optional[str]): The dev score to maximise (None: the config's
        weighted score).
    evals (int): Dev evaluations per trial; all but the last can prune it.
    startup_trials (int): Trials that finish unpruned before pruning starts.
    prune_from (int): The share of its budget (in %) from which a trial can
        be pruned: earlier dev scores are noisy, and a setting that starts
        slowly may end best.
    seed (int): The sampler's seed.
    gpu_id (int): GPU to train on (-1: CPU).
    RETURNS (optuna.Study): The study.
    """
    optuna = _import_optuna()
    overrides = dict(overrides or {})
    space = read_space(space_path)
    base = load_config(config_path, overrides=overrides, interpolate=False)
    missing = missing_settings(base, space)
    if missing:
        raise ValueError(Errors.E412.format(keys=", ".join(missing), space=space_path, config=config_path))
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    study = optuna.create_study(
        study_name=study_name or Path(config_path).stem,
        storage=_storage(optuna, storage or f"sqlite:///{output / 'study.db'}"),
        sampler=optuna.samplers.TPESampler(seed=seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=startup_trials, n_warmup_steps=prune_from),
        direction="maximize",
        load_if_exists=True,
    )
    _check_same_space(study, space, space_path, storage or "OUTPUT/study.db")
    finished = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    done = len(study.get_trials(deepcopy=False, states=finished))
    if done:
        msg.info(f"Resuming study '{study.study_name}': {done} of {trials} trial(s) finished")

    def objective(trial) -> float:
        values = suggest(trial, space)
        config = load_config(config_path, overrides={**overrides, **values}, interpolate=False)
        start = time.perf_counter()

        def report(progress: int, score: float) -> None:
            trial.report(score, progress)
            msg.text(f"trial {trial.number}: {progress}% of the budget, dev {score:.4f}")
            if trial.should_prune():
                trial.set_user_attr("seconds", round(time.perf_counter() - start, 1))
                raise optuna.TrialPruned()

        score, scores = train_trial(config, evals=evals, metric=metric, report=report, gpu_id=gpu_id)
        trial.set_user_attr("seconds", round(time.perf_counter() - start, 1))
        trial.set_user_attr("dev_scores", scores)
        return score

    def record(study, trial) -> None:
        msg.info(f"trial {trial.number} {trial.state.name.lower()}: {trial.params}"
                 + (f" -> {trial.value:.4f}" if trial.value is not None else ""))
        write_results(study, config_path, overrides, output, metric)

    # Each worker stops once the study holds TRIALS finished trials, whoever ran them.
    callback = optuna.study.MaxTrialsCallback(trials, states=finished)
    if done < trials:
        study.optimize(objective, n_trials=trials - done, callbacks=[record, callback], gc_after_trial=True)
    write_results(study, config_path, overrides, output, metric)
    return study


def write_results(study, config_path: Path, overrides: Dict[str, Any], output: Path, metric: Optional[str]) -> None:
    """Write trials.json, and best.cfg and best.json once a trial has finished."""
    rows = [
        {"number": trial.number, "state": trial.state.name.lower(), "params": trial.params,
         "value": trial.value,
         "dev_by_budget_percent": {str(k): v for k, v in sorted(trial.intermediate_values.items())},
         "dev_scores": trial.user_attrs.get("dev_scores"), "seconds": trial.user_attrs.get("seconds")}
        for trial in study.get_trials(deepcopy=False)
    ]
    summary = {"study": study.study_name, "config": str(config_path), "metric": metric or "the config's score",
               "overrides": overrides, "trials": rows}
    (output / TRIALS_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf8")
    complete = [trial for trial in study.get_trials(deepcopy=False) if trial.value is not None
                and trial.state.name == "COMPLETE"]
    if not complete:
        return
    best = max(complete, key=lambda trial: (trial.value, -trial.number))
    config = load_config(config_path, overrides={**overrides, **best.params}, interpolate=False)
    config.to_disk(output / BEST_CONFIG)
    best_record = {"study": study.study_name, "trial": best.number, "value": best.value, "params": best.params,
                   "metric": metric or "the config's score", "finished_trials": len(rows)}
    (output / BEST_FILE).write_text(json.dumps(best_record, indent=2) + "\n", encoding="utf8")


def _check_same_space(study, space: Dict[str, Setting], space_path: Path, storage: str) -> None:
    """Record the space in a new study; refuse to resume one started with another."""
    current = {key: asdict(setting) for key, setting in space.items()}
    previous = study.user_attrs.get(SPACE_ATTR)
    if previous is None:
        study.set_user_attr(SPACE_ATTR, json.loads(json.dumps(current)))
    elif previous != json.loads(json.dumps(current)):
        raise ValueError(Errors.E418.format(study=study.study_name, storage=storage, space=space_path,
                                            previous=", ".join(previous), current=", ".join(current)))


def _storage(optuna, url: str):
    """An RDB storage (SQLite, PostgreSQL, MySQL) with heartbeats, so that a
    trial whose process died is failed and retried; any other URL as Optuna
    takes it."""
    if url.split(":", 1)[0].split("+", 1)[0] not in ("sqlite", "postgresql", "mysql"):
        return url
    from optuna import storages

    with warnings.catch_warnings():
        # Heartbeats are marked experimental; the retry callback's name
        # changed in Optuna 4.9 (RetryFailedTrialCallback before it).
        warnings.simplefilter("ignore")
        if hasattr(storages, "RetryHeartbeatStaleTrialCallback"):
            retry = {"heartbeat_stale_trial_callback": storages.RetryHeartbeatStaleTrialCallback(max_retry=1)}
        else:
            retry = {"failed_trial_callback": storages.RetryFailedTrialCallback(max_retry=1)}
        return storages.RDBStorage(url, heartbeat_interval=HEARTBEAT_SECONDS, grace_period=GRACE_SECONDS, **retry)


def _import_optuna():
    try:
        import optuna
    except ImportError:
        raise ValueError(Errors.E416) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna
