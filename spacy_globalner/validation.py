"""Range checks for the settings of factories and architectures.

spaCy's config validation checks types (a bool is a bool, an int an int);
these check the ranges it cannot (and types, for Python callers), and raise a
catalogue error that names the setting, the value and where to change it. A
check may pass its own catalogue `error` (formatted with value, name, least,
owner, expected, where and any further fields given) where a setting has a
more specific message. `name` is the setting; `owner` is the component's
name, or the architecture's registered name ("spacy-globalner.<Thing>.v1").
"""
import math
from typing import Any, Optional

from .errors import Errors


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    least: int = 1,
    allow_none: bool = False,
    error: Optional[str] = None,
) -> None:
    """Require an int (not a bool) of at least `least`, or None if allowed."""
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        expected = f"an integer of at least {least}" + (" or null" if allow_none else "")
        _fail(value, name, owner, expected, error, least=least)


def check_number(
    value: Any,
    name: str,
    owner: str,
    *,
    least: Optional[float] = None,
    above: Optional[float] = None,
    most: Optional[float] = None,
    below: Optional[float] = None,
    error: Optional[str] = None,
    **fields: Any,
) -> None:
    """Require a finite number; `least` <= value, `above` < value, value <=
    `most`, value < `below`. `fields`: more placeholders of `error`.
    """
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    ok = ok and (least is None or value >= least)
    ok = ok and (above is None or value > above)
    ok = ok and (most is None or value <= most)
    ok = ok and (below is None or value < below)
    if not ok:
        bounds = [
            f"at least {least}" if least is not None else "",
            f"above {above}" if above is not None else "",
            f"at most {most}" if most is not None else "",
            f"below {below}" if below is not None else "",
        ]
        bounds = [bound for bound in bounds if bound]
        expected = " ".join(["a finite number"] + ([" and ".join(bounds)] if bounds else []))
        _fail(value, name, owner, expected, error, **fields)


def check_dropout(value: Any, owner: str) -> None:
    """A dropout rate: from 0 up to, not including, 1 (1 drops every input)."""
    check_number(value, "dropout", owner, least=0.0, below=1.0)


def check_key(value: Any, name: str, owner: str) -> None:
    """Require a non-empty string without surrounding whitespace (a doc.spans key)."""
    if not isinstance(value, str) or not value or value != value.strip():
        _fail(value, name, owner, "a non-empty string without leading or trailing spaces", None)


def check_bool(value: Any, name: str, owner: str, *, error: Optional[str] = None) -> None:
    """Require True or False (spaCy's config checks this too; Python callers skip it)."""
    if not isinstance(value, bool):
        _fail(value, name, owner, "true or false", error)


def _fail(value: Any, name: str, owner: str, expected: str, error: Optional[str], **extra: Any) -> None:
    # owner: a component's name, or an architecture's registered name
    where = "[components.<name>.model]" if owner.startswith("spacy-globalner.") else f"[components.{owner}]"
    template = error if error is not None else Errors.E012
    raise ValueError(
        template.format(
            value=value, name=name, owner=owner, expected=expected, where=where, **extra
        )
    )
