"""The learning-rate schedule must end where the training budget ends.

`spacy debug data` builds the optimizer from the un-interpolated config, so a
schedule in [training.optimizer] cannot write `total_steps =
${training.max_steps}`; the configs write the number. A user who then changes
max_steps alone (`--training.max_steps 4000`) would train the extra steps at
learning rate 0, or stop before the rate decays. Each component checks the two
agree when it is initialized, which `spacy train` and `spacy debug data` do
before the first update; the configs that write total_steps also run the check
as [nlp.after_pipeline_creation], which `spacy debug config` reaches too.

A warm-up (a schedule's warmup_steps) as long as the run never reaches the
peak rate. Against max_steps it is checked from the config alone; a
max_epochs run has as many updates as its batcher makes batches of the
corpus, known only at initialize, which counts one epoch's batches.
"""
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Tuple

from spacy.language import Language
from spacy.training import Example
from spacy.util import registry

from ..errors import Errors


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
        if _is_int(total_steps) and total_steps != max_steps:
            unbounded = max_steps == 0
            why = " (max_steps = 0 trains for max_epochs epochs, an unknown number of updates)" if unbounded else ""
            steps = total_steps if unbounded else max_steps
            raise ValueError(
                Errors.E440.format(path=path, total_steps=total_steps, max_steps=max_steps, why=why, steps=steps)
            )
    _check_warmup(training, max_steps, get_examples)


def _check_warmup(
    training: Dict[str, Any], max_steps: int, get_examples: Optional[Callable[[], Iterable[Example]]]
) -> None:
    warmups = [
        (path, steps)
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
            raise ValueError(
                Errors.E442.format(
                    path=path, warmup_steps=warmup_steps, steps=run_steps, why=why,
                    suggested=max(1, run_steps // 10),
                )
            )


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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def make_schedule_budget_check() -> Callable[[Language], Language]:
    """An `after_pipeline_creation` callback that runs check_schedule_budget.

    spaCy sets nlp.config just before this callback, so the check runs in every
    command that builds the pipeline from a config, `spacy debug config` (which
    never initializes) included, and not only at initialize.
    """

    def check_budget(nlp: Language) -> Language:
        check_schedule_budget(nlp)
        return nlp

    return check_budget
