"""Checking a check's parameters: errors that name the parameter and what it takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["require_choice", "require_type", "require_number"]


def require_choice(owner: str, name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise ``ValueError`` naming the parameter and the valid values."""
    if value not in choices:
        raise ValueError(f"{owner}: parameter {name!r} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def require_type(owner: str, name: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    """Raise ``TypeError`` naming the parameter and what was expected."""
    if not isinstance(value, kind) or (
        isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        raise TypeError(f"{owner}: parameter {name!r} must be {what}; got {value!r:.80}")


def require_number(
    owner: str, name: str, value: Any, *, low: float, high: float | None = None, integer: bool = False
) -> None:
    """Check a numeric parameter's type and range; errors name the parameter and the valid range."""
    if integer:
        require_type(owner, name, value, int, f"an integer of at least {low}")
    else:
        require_type(
            owner, name, value, (int, float), f"a number between {low} and {high}" if high is not None else "a number"
        )
    if high is not None and not low <= value <= high:
        raise ValueError(f"{owner}: parameter {name!r} must be between {low} and {high}; got {value}")
    if high is None and value < low:
        raise ValueError(f"{owner}: parameter {name!r} must be at least {low}; got {value}")
