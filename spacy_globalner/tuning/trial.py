"""Train one trial's pipeline in this process, reporting its dev score as it goes.

The trial trains as `spacy train` would (spaCy's own training loop, corpora,
batcher, optimizer and schedule from the config) without writing a pipeline to
disk, and evaluates on dev `evals` times, at equal shares of its budget
(training.max_steps). `report(progress, score)` gets each evaluation but the
last, progress being the percentage of the budget done: trials with different
budgets are compared at the same point of their learning-rate schedules. It
may raise optuna.TrialPruned to stop the trial.
"""
import math
from typing import Callable, Dict, Optional, Tuple

from thinc.api import Config, fix_random_seed, require_gpu, set_gpu_allocator

from ..errors import Errors

Report = Callable[[int, float], None]


def train_trial(
    config: Config,
    *,
    evals: int = 4,
    metric: Optional[str] = None,
    report: Optional[Report] = None,
    gpu_id: int = -1,
) -> Tuple[float, Dict[str, float]]:
    """Train the pipeline of CONFIG and score it on dev at the end of its budget.

    config (Config): The training config, overrides applied, not interpolated.
    evals (int): How many times to evaluate on dev, the last at the end.
    metric (Optional[str]): The dev score to report and return, e.g. "ents_f"
        (None: the config's weighted score, as `spacy train` prints it).
    report (Optional[Report]): Called with (percent of the budget, score) at
        every evaluation but the last.
    gpu_id (int): GPU to train on (-1: CPU).
    RETURNS (Tuple[float, Dict[str, float]]): The final score and every dev score.
    """
    from spacy.schemas import ConfigSchemaTraining
    from spacy.training.initialize import init_nlp
    from spacy.training.loop import create_evaluation_callback, create_train_batches, train_while_improving
    from spacy.util import registry, resolve_dot_names

    if gpu_id >= 0:
        require_gpu(gpu_id)
    nlp = init_nlp(config, use_gpu=gpu_id)
    resolved = nlp.config.interpolate()
    training = resolved["training"]
    if training["seed"] is not None:
        fix_random_seed(training["seed"])
    if gpu_id >= 0 and training["gpu_allocator"]:
        set_gpu_allocator(training["gpu_allocator"])
    T = registry.resolve(training, schema=ConfigSchemaTraining)
    max_steps = int(T["max_steps"])
    if max_steps < 1:
        raise ValueError(Errors.E414.format(value=max_steps))
    train_corpus, dev_corpus = resolve_dot_names(resolved, [T["train_corpus"], T["dev_corpus"]])
    evaluate_all = create_evaluation_callback(nlp, dev_corpus, T["score_weights"])
    every = max(1, math.ceil(max_steps / max(1, evals)))
    evaluations = 0

    def evaluate() -> Tuple[float, Dict[str, float]]:
        # spaCy's loop also evaluates after the first update, which says
        # nothing of a setting: that one is skipped.
        nonlocal evaluations
        evaluations += 1
        if evaluations == 1:
            return 0.0, {}
        weighted, scores = evaluate_all()
        if metric is None:
            return weighted, scores
        if metric not in scores:
            raise ValueError(Errors.E415.format(metric=metric, keys=", ".join(sorted(scores))))
        return float(scores[metric]), scores

    steps = train_while_improving(
        nlp, T["optimizer"], create_train_batches(nlp, train_corpus, T["batcher"], T["max_epochs"]), evaluate,
        dropout=T["dropout"], accumulate_gradient=T["accumulate_gradient"], patience=T["patience"],
        max_steps=max_steps, eval_frequency=every, exclude=T["frozen_components"],
        annotating_components=T["annotating_components"], before_update=T["before_update"],
    )
    score, scores = 0.0, {}
    for _, info, evaluated in steps:
        if evaluated is None or info["step"] == 0:
            continue
        score, scores = info["score"], info["other_scores"]
        if report is not None and info["step"] < max_steps:
            report(round(100 * info["step"] / max_steps), score)
    return score, {key: value for key, value in scores.items() if isinstance(value, (int, float))}
