"""The learning-rate schedule must end where the training budget ends.

`spacy debug data` builds the optimizer from the un-interpolated config, so a
schedule in [training.optimizer] cannot write `total_steps =
${training.max_steps}`; the configs write the number. A user who then changes
max_steps alone (`--training.max_steps 4000`) would train the extra steps at
learning rate 0, or stop before the rate decays. Each component checks the two
agree when it is initialized, which `spacy train` and `spacy debug data` do
before the first update; the configs that write total_steps also run the check
as [nlp.after_pipeline_creation], which `spacy debug config` reaches too.
"""
from typing import Any, Callable, Iterator, Optional, Tuple

from spacy.language import Language

from ..errors import Errors


def check_schedule_budget(nlp: Optional[Language]) -> None:
    """Raise E440 when a schedule's total_steps in [training.optimizer]
    differs from training.max_steps, or is a number while max_steps is 0 (no
    step budget: training runs for max_epochs epochs, or until patience, a
    number of updates no one knows before training, so the schedule would
    end before or after it)."""
    if nlp is None:
        return
    training = nlp.config.get("training", {})
    max_steps = training.get("max_steps")
    if not _is_int(max_steps) or max_steps < 0:
        return
    for path, total_steps in _total_steps(training.get("optimizer", {}), "training.optimizer"):
        if _is_int(total_steps) and total_steps != max_steps:
            unbounded = max_steps == 0
            why = " (max_steps = 0 trains for max_epochs epochs, an unknown number of updates)" if unbounded else ""
            steps = total_steps if unbounded else max_steps
            raise ValueError(
                Errors.E440.format(path=path, total_steps=total_steps, max_steps=max_steps, why=why, steps=steps)
            )


def _total_steps(section: Any, path: str) -> Iterator[Tuple[str, Any]]:
    if not isinstance(section, dict):
        return
    for key, value in section.items():
        if key == "total_steps":
            yield f"{path}.total_steps", value
        else:
            yield from _total_steps(value, f"{path}.{key}")


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
