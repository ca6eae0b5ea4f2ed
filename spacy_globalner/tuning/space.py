"""Search-space files: which config settings `spacy globalner tune` searches.

A search space is a JSON object whose keys are config settings by their dotted
paths, as spaCy's command-line overrides name them (`training.dropout`,
`components.tok2vec.model.encode.width`), and whose values say what to try:

    {
      "include": ["shared.json"],
      "training.optimizer.learn_rate.initial_rate": {"float": [0.0005, 0.005], "log": true},
      "training.max_steps": {"int": [1000, 4000], "step": 500},
      "components.global_pointer.model.head_width": {"categorical": [32, 64, 128]}
    }

`include` names other space files (paths relative to this one) whose settings
come first; the file's own entries replace theirs. The package ships the
spaces of its configs in configs/spaces/.
"""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ..errors import Errors

INCLUDE = "include"
KINDS = ("float", "int", "categorical")
EXAMPLE = '{"float": [0.0005, 0.005], "log": true}'


@dataclass(frozen=True)
class Setting:
    """One searched setting: a range of floats or ints, or a list of choices."""

    path: str
    kind: str
    low: Optional[float] = None
    high: Optional[float] = None
    log: bool = False
    step: Optional[int] = None
    choices: Tuple[Any, ...] = ()


def read_space(path: Path) -> Dict[str, Setting]:
    """Read a search-space file and the files it includes.

    path (Path): The JSON file.
    RETURNS (Dict[str, Setting]): The settings by dotted path, in file order.
    """
    return _read(Path(path), seen=())


def _read(path: Path, seen: Tuple[Path, ...]) -> Dict[str, Setting]:
    resolved = path.resolve()
    if resolved in seen:
        raise ValueError(Errors.E413.format(path=path, chain=" -> ".join(str(p) for p in (*seen, resolved))))
    try:
        data = json.loads(path.read_text(encoding="utf8"))
    except OSError as err:
        raise ValueError(Errors.E410.format(path=path, problem=err.strerror or err)) from None
    except json.JSONDecodeError as err:
        raise ValueError(Errors.E410.format(path=path, problem=f"not valid JSON: {err}")) from None
    if not isinstance(data, dict):
        raise ValueError(Errors.E410.format(path=path, problem="expected a JSON object of settings"))
    space: Dict[str, Setting] = {}
    includes = data.get(INCLUDE, [])
    if not isinstance(includes, list) or not all(isinstance(item, str) for item in includes):
        raise ValueError(Errors.E410.format(path=path, problem=f'"{INCLUDE}" must be a list of file paths'))
    for item in includes:
        space.update(_read(path.parent / item, seen=(*seen, resolved)))
    for key, spec in data.items():
        if key != INCLUDE:
            space[key] = parse_setting(key, spec, path)
    if not space:
        raise ValueError(Errors.E410.format(path=path, problem="it names no setting to search"))
    return space


def parse_setting(key: str, spec: Any, path: Path) -> Setting:
    """One entry of a space file, checked."""
    kinds = [kind for kind in KINDS if isinstance(spec, dict) and kind in spec]
    if len(kinds) != 1:
        raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                            problem=f"give exactly one of {', '.join(KINDS)}", example=EXAMPLE))
    kind = kinds[0]
    value = spec[kind]
    unknown = set(spec) - {kind, "log", "step"}
    if unknown:
        raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                            problem=f"unknown option(s) {sorted(unknown)}", example=EXAMPLE))
    if kind == "categorical":
        if not isinstance(value, list) or not value or not all(_is_scalar(choice) for choice in value):
            raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                                problem="choices must be a non-empty list of numbers, strings, "
                                                        "booleans or null", example='{"categorical": [32, 64]}'))
        return Setting(key, kind, choices=tuple(value))
    number = int if kind == "int" else (int, float)
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(bound, number) and not isinstance(bound, bool) for bound in value)
            or value[0] >= value[1]):
        raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                            problem=f"a range is [low, high] with low < high, both {kind}s",
                                            example=EXAMPLE))
    log = spec.get("log", False)
    step = spec.get("step")
    if not isinstance(log, bool) or (log and value[0] <= 0):
        raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                            problem='"log": true needs a range above 0', example=EXAMPLE))
    if step is not None and (kind != "int" or isinstance(step, bool) or not isinstance(step, int) or step < 1
                             or log):
        raise ValueError(Errors.E411.format(key=key, path=path, value=json.dumps(spec),
                                            problem='"step" is a whole number >= 1 of an int range without "log"',
                                            example='{"int": [1000, 4000], "step": 500}'))
    return Setting(key, kind, low=value[0], high=value[1], log=log, step=step)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def suggest(trial, space: Dict[str, Setting]) -> Dict[str, Any]:
    """The values an Optuna trial draws for each setting of the space.

    trial (optuna.Trial): The trial.
    space (Dict[str, Setting]): The search space.
    RETURNS (Dict[str, Any]): Values by dotted path, ready as config overrides.
    """
    values: Dict[str, Any] = {}
    for key, setting in space.items():
        if setting.kind == "float":
            values[key] = trial.suggest_float(key, setting.low, setting.high, log=setting.log)
        elif setting.kind == "int":
            values[key] = trial.suggest_int(key, int(setting.low), int(setting.high), step=setting.step or 1,
                                            log=setting.log)
        else:
            values[key] = trial.suggest_categorical(key, list(setting.choices))
    return values


def missing_settings(config: Dict, space: Dict[str, Setting]) -> List[str]:
    """The dotted paths of the space that name no setting of the config (a
    section is no setting)."""
    from spacy.util import dot_to_object

    missing = []
    for key in space:
        try:
            if not isinstance(dot_to_object(config, key), dict):
                continue
        except KeyError:
            pass
        missing.append(key)
    return missing
