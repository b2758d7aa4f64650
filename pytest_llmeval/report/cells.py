"""How the Markdown and HTML reports write values and cut long lists: numbers, intervals, and the first rows of a
list with how long it was.

>>> number(0.5), number(None), interval(0.61, 0.78), interval(0.52, 0.79, percent=True), interval(None, 0.2)
('0.500', 'n/a', '0.61..0.78', '52-79%', '')
>>> capped([1, 2, 3], 2, str).more
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Capped", "capped", "number", "interval"]


T = TypeVar("T")


@dataclass(frozen=True)
class Capped(Generic[T]):  # the first rows of a list, and how long the list was
    rows: tuple[T, ...]
    total: int

    @property
    def more(self) -> int:  # rows left out: they are in the JSON report
        return self.total - len(self.rows)


def number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def capped(items: list[Any], limit: int, row: Callable[[Any], T]) -> Capped[T]:
    return Capped(tuple(row(item) for item in items[:limit]), len(items))


def interval(low: float | None, high: float | None, *, percent: bool = False, signed: bool = False) -> str:
    """``0.61..0.78``, ``52-79%`` or ``+0.02..+0.27``; empty when there is no interval."""
    if low is None or high is None:
        return ""
    if percent:
        return f"{low * 100:.0f}-{high * 100:.0f}%"
    return f"{low:+.3f}..{high:+.3f}" if signed else f"{low:.2f}..{high:.2f}"
