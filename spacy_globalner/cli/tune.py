"""spacy globalner tune CONFIG SPACE --output DIR [--trials N] [--storage URL] [--paths.train ...]

Searches the config settings named in a search-space file (tuning/space.py;
the package's are in configs/spaces/) on dev with Optuna: each trial trains
the config with drawn settings, is pruned when its dev score falls behind, and
the study is kept in a database (SQLite in DIR by default) that the same
command resumes. Writes DIR/trials.json, DIR/best.cfg and DIR/best.json.
Works for any spaCy training config, spaCy's own heads included. Needs
Optuna: pip install "spacy-globalner[tune]".
"""
from pathlib import Path
from typing import Optional

import typer
from spacy.cli._util import import_code, parse_config_overrides
from wasabi import msg

from ..errors import Errors
from ..gpu import require_gpu
from ._app import DEFAULT_THREADS, THREADS_HELP, Arg, Opt, globalner_cli, use_torch_threads


@globalner_cli.command("tune", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def tune_cli(
    # fmt: off
    ctx: typer.Context,
    config_path: Path = Arg(..., help="Training config, as for spacy train", exists=True, dir_okay=False),
    space_path: Path = Arg(..., help="Search-space file (JSON), e.g. configs/spaces/global_pointer.json",
                           exists=True, dir_okay=False, metavar="SPACE"),
    output: Path = Opt(..., "--output", "-o", help="Folder for trials.json, best.cfg and best.json"),
    trials: int = Opt(20, "--trials", "-n", min=1, help="Finished trials the study should hold (a resumed study "
                                                        "runs the missing ones)"),
    storage: Optional[str] = Opt(None, "--storage", help="Optuna storage URL (default: sqlite:///OUTPUT/study.db); "
                                                         "a shared database lets several machines work on one study"),
    study_name: Optional[str] = Opt(None, "--study-name", help="The study's name in the storage (default: the "
                                                               "config's file name)"),
    metric: Optional[str] = Opt(None, "--metric", "-m", help="Dev score to maximise, e.g. ents_f (default: the "
                                                             "config's weighted score)"),
    evals: int = Opt(4, "--evals", min=1, help="Dev evaluations per trial, at equal shares of its budget; all but "
                                               "the last can prune it"),
    startup_trials: int = Opt(3, "--startup-trials", min=0, help="Trials that finish unpruned before pruning starts"),
    prune_from: int = Opt(50, "--prune-from", min=0, max=100, help="Share of a trial's budget (%) from which it can "
                                                                   "be pruned"),
    seed: int = Opt(0, "--seed", help="The sampler's seed"),
    code_path: Optional[Path] = Opt(None, "--code", "-c", help="Python file with registered functions the config uses"),
    gpu_id: int = Opt(-1, "--gpu-id", "-g", help="GPU to train on (-1: CPU)"),
    threads: int = Opt(DEFAULT_THREADS, "--threads", min=0, help=THREADS_HELP),
    # fmt: on
):
    """Tune a training config's settings on dev with Optuna: search, prune,
    resume, and write the best config. Config overrides (--paths.train
    train.spacy --paths.dev dev.spacy) apply to every trial.
    """
    from ..tuning import run_study
    from ..tuning.study import BEST_CONFIG, BEST_FILE, TRIALS_FILE

    overrides = parse_config_overrides(ctx.args)
    import_code(code_path)
    msg.info(f"torch threads: {use_torch_threads(threads)} (--threads)")
    try:
        if gpu_id >= 0:
            require_gpu(gpu_id)
        study = run_study(config_path, space_path, output, trials=trials, storage=storage, study_name=study_name,
                          overrides=overrides, metric=metric, evals=evals, startup_trials=startup_trials,
                          prune_from=prune_from, seed=seed, gpu_id=gpu_id)
    except ValueError as err:
        msg.fail("Tuning failed", str(err))
        raise typer.Exit(code=1) from None
    msg.good(f"{len(study.trials)} trial(s) in study '{study.study_name}': {output / TRIALS_FILE}")
    if not (output / BEST_FILE).exists():
        msg.fail("No best config", Errors.E417.format(study=study.study_name))
        raise typer.Exit(code=1)
    best = study.best_trial
    msg.good(f"Best: trial {best.number}, dev {best.value:.4f}, {best.params}")
    msg.good(f"Saved the best config to {output / BEST_CONFIG}")
