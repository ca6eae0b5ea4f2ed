"""The learning-rate schedule must end where the training budget ends, and a
run must be evaluated within its budget.

The configs' schedule is `spacy-globalner.warmup_linear.v1` with `total_steps
= ${training.max_steps}`, so `--training.max_steps N` alone moves the end of
the schedule, and its warm-up is at most a tenth of the run, so a short run
still reaches the peak rate. Two callbacks, named in the configs, keep that
working; the components know nothing of the training config:

- `spacy-globalner.check_schedule_budget.v1`, the configs'
  [nlp] after_pipeline_creation, checks the budget from the config alone, in
  every command that builds the pipeline (`spacy debug config` included);
- `spacy-globalner.training_budget.v1`, the configs' [initialize]
  before_init, runs when the pipeline is initialized (`spacy train`, `spacy
  debug data`, nlp.initialize() in Python): it checks the budget again,
  counting the updates of a max_epochs run on the training corpus, warns
  (W440) where max_steps is below eval_frequency, and interpolates
  [training.optimizer] in nlp.config, because nlp.initialize() without an
  optimizer builds one from the config as written, where
  `${training.max_steps}` is still text that the schedule refuses.

A config that leaves before_init out (or needs it for a callback of its own)
trains as well with `spacy train`, which passes the optimizer it resolved;
`nlp.initialize()` in Python then needs `sgd=` for a schedule written as
`${training.max_steps}`.

The budget's errors: E440 where a schedule's total_steps differs from
training.max_steps, or where max_steps is 0 (a max_epochs run, of a number
of updates no one knows before training); E442 where a warm-up is as long
as the run, so the rate never reaches its peak, for a schedule that does not
shorten it (thinc's warmup_linear.v1), against max_steps from the config
alone, or against a max_epochs run's updates, known only once the batches of
one epoch are counted. Both are ConfigValidationErrors, which spaCy's
commands print as config errors, without a traceback.
"""
import warnings
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Tuple

from confection import ConfigValidationError
from spacy.language import Language
from spacy.training import Example
from spacy.util import registry
from thinc.api import warmup_linear

from ..errors import Errors, Warnings

SCHEDULE = "spacy-globalner.warmup_linear.v1"
# The warm-up of SCHEDULE takes at most this share of the run's updates.
MAX_WARMUP_SHARE = 0.1


@registry.schedules(SCHEDULE)
def make_warmup_linear(initial_rate: float, warmup_steps: int, total_steps: int) -> Iterable[float]:
    """thinc's warmup_linear.v1 (a linear warm-up to initial_rate, then a
    linear decay to 0 at total_steps) with a warm-up of warmup_steps, or of
    a tenth of total_steps where that is fewer: with total_steps =
    ${training.max_steps}, a short run keeps the schedule's shape.

    initial_rate (float): The peak learning rate.
    warmup_steps (int): The most updates the warm-up takes.
    total_steps (int): The update at which the rate reaches 0.
    RETURNS (Iterable[float]): The learning rate of each update.
    """
    return warmup_linear(initial_rate, min(warmup_steps, int(total_steps * MAX_WARMUP_SHARE)), total_steps)


def _fail(message: str, path: str) -> ConfigValidationError:
    """A catalogue error as spaCy's commands print config errors: the
    message, no traceback."""
    return ConfigValidationError(title=message, errors=[{"loc": path.split("."), "msg": message.split("]")[0] + "]"}],
                                 show_config=False)


def check_schedule_budget(
    nlp: Optional[Language], get_examples: Optional[Callable[[], Iterable[Example]]] = None
) -> None:
    """Raise E440 when a schedule's total_steps in [training.optimizer]
    differs from training.max_steps, or is a number while max_steps is 0 (no
    step budget: training runs for max_epochs epochs, or until patience, a
    number of updates no one knows before training, so the schedule would
    end before or after it). Raise E442 when a schedule's warmup_steps is at
    least the number of updates of the run.

    nlp (Optional[Language]): The pipeline, with the training config.
    get_examples (Optional[Callable[[], Iterable[Example]]]): The training
        data, to count the updates of a max_epochs run.
    """
    if nlp is None:
        return
    training = nlp.config.interpolate().get("training", {})
    max_steps = training.get("max_steps")
    if not _is_int(max_steps) or max_steps < 0:
        return
    for path, total_steps in _find(training.get("optimizer", {}), "training.optimizer", "total_steps"):
        if not _is_int(total_steps):
            continue
        if max_steps == 0:
            # ${training.max_steps} gives 0 too: a schedule of no updates.
            steps = total_steps or "N"
            raise _fail(Errors.E440.format(
                path=path, total_steps=total_steps, max_steps=max_steps, steps=steps,
                why=" (max_steps = 0 trains for max_epochs epochs, an unknown number of updates)",
                fix=f"give the run a budget in updates, --training.max_steps {steps} (the schedule "
                    f"follows it where {path} = ${{training.max_steps}})",
            ), path)
        if total_steps != max_steps:
            raise _fail(Errors.E440.format(
                path=path, total_steps=total_steps, max_steps=max_steps, why="", steps=max_steps,
                fix=f"write {path} = ${{training.max_steps}} in the config, so that it follows "
                    f"the budget, or change both, e.g. --training.max_steps {max_steps} --{path} {max_steps}",
            ), path)
    _check_warmup(training, max_steps, get_examples)


def _check_warmup(
    training: Dict[str, Any], max_steps: int, get_examples: Optional[Callable[[], Iterable[Example]]]
) -> None:
    warmups = [
        (path, _effective_warmup(training, path, steps))
        for path, steps in _find(training.get("optimizer", {}), "training.optimizer", "warmup_steps")
        if _is_int(steps)
    ]
    if not warmups:
        return
    run_steps, why = max_steps, f"training.max_steps = {max_steps}"
    max_epochs = training.get("max_epochs")
    if get_examples is not None and _is_int(max_epochs) and max_epochs > 0:
        # A batch size that grows (compounding) makes later epochs shorter:
        # max_epochs times the first epoch's batches is the most there can be.
        per_epoch = _count_batches(training["batcher"], get_examples)
        if max_steps == 0 or max_epochs * per_epoch < max_steps:
            run_steps = max_epochs * per_epoch
            why = f"max_epochs = {max_epochs}, of at most {per_epoch} batches each"
    if run_steps == 0:  # max_epochs without the examples: unknown until initialize
        return
    for path, warmup_steps in warmups:
        if warmup_steps >= run_steps:
            raise _fail(Errors.E442.format(
                path=path, warmup_steps=warmup_steps, steps=run_steps, why=why,
                suggested=max(1, run_steps // 10),
            ), path)


def _count_batches(batcher: Dict[str, Any], get_examples: Callable[[], Iterable[Example]]) -> int:
    """The batches of one epoch, from a batcher of its own (a size schedule
    is a generator: the one training uses must start where it starts)."""
    batch = registry.resolve({"batcher": batcher})["batcher"]
    return sum(1 for _ in batch(get_examples()))


def _find(section: Any, path: str, name: str) -> Iterator[Tuple[str, Any]]:
    """Each setting `name` in a config section and its subsections, with its path."""
    if not isinstance(section, dict):
        return
    for key, value in section.items():
        if key == name:
            yield f"{path}.{name}", value
        else:
            yield from _find(value, f"{path}.{key}", name)


def _effective_warmup(training: Dict[str, Any], path: str, warmup_steps: int) -> int:
    """The warm-up the schedule at `path` runs: SCHEDULE shortens it to a
    tenth of its total_steps (so only a max_epochs run can end inside it)."""
    section: Any = training
    for key in path.split(".")[1:-1]:
        section = section.get(key, {}) if isinstance(section, dict) else {}
    total_steps = section.get("total_steps") if isinstance(section, dict) else None
    if section.get("@schedules") == SCHEDULE and _is_int(total_steps):
        return min(warmup_steps, int(total_steps * MAX_WARMUP_SHARE))
    return warmup_steps


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@registry.callbacks("spacy-globalner.check_schedule_budget.v1")
def make_schedule_budget_check() -> Callable[[Language], Language]:
    """An [nlp] after_pipeline_creation callback that runs
    check_schedule_budget on the config alone.

    spaCy sets nlp.config just before this callback, so the check runs in every
    command that builds the pipeline from a config, `spacy debug config` (which
    never initializes) included.
    """

    def check_budget(nlp: Language) -> Language:
        check_schedule_budget(nlp)
        return nlp

    return check_budget


@registry.callbacks("spacy-globalner.training_budget.v1")
def make_training_budget() -> Callable[[Language], Language]:
    """An [initialize] before_init callback: check_schedule_budget with the
    training corpus (the updates of a max_epochs run), W440 where
    max_steps is below eval_frequency, then [training.optimizer] in
    nlp.config replaced by its interpolated self, so that nlp.initialize()
    without an optimizer builds the schedule. Building the pipeline leaves
    the config as written (so `spacy init fill-config` keeps the
    `${training.max_steps}` reference).
    """

    def before_init(nlp: Language) -> Language:
        check_schedule_budget(nlp, _train_corpus(nlp))
        warn_eval_frequency(nlp)
        training = nlp.config.get("training", {})
        if "optimizer" in training:
            training["optimizer"] = nlp.config.interpolate()["training"]["optimizer"]
        return nlp

    return before_init


def warn_eval_frequency(nlp: Language) -> None:
    """W440 where training.max_steps is below training.eval_frequency: `spacy
    train` would evaluate after the first update only, and save that
    pipeline as model-best.

    nlp (Language): The pipeline, with the training config.
    """
    training = nlp.config.interpolate().get("training", {})
    max_steps, eval_frequency = training.get("max_steps"), training.get("eval_frequency")
    if _is_int(max_steps) and _is_int(eval_frequency) and 0 < max_steps < eval_frequency:
        suggested = max(1, max_steps // 4)
        warnings.warn(Warnings.W440.format(max_steps=max_steps, eval_frequency=eval_frequency,
                                           suggested=suggested))


def _train_corpus(nlp: Language) -> Optional[Callable[[], Iterable[Example]]]:
    """The examples of [training] train_corpus, read when called; None where
    the config names no corpus that resolves (a pipeline built in Python)."""
    config = nlp.config.interpolate()
    name = config.get("training", {}).get("train_corpus")
    section: Any = config
    for key in name.split(".") if isinstance(name, str) else [None]:
        section = section.get(key) if isinstance(section, dict) else None
    if not isinstance(section, dict):
        return None
    try:  # this reader only: the dev corpus may have no path yet
        corpus = registry.resolve({"corpus": section})["corpus"]
    except (ConfigValidationError, ValueError):
        return None
    return lambda: corpus(nlp)
