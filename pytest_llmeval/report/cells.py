"""How the Markdown and HTML reports write values and cut long lists: numbers, intervals, and the first rows of a
list with how long it was.

>>> number(0.5), number(None), interval(0.61, 0.78), interval(0.52, 0.79, percent=True), interval(None, 0.2)
('0.500', 'n/a', '0.61..0.78', '52-79%', '')
>>> capped([1, 2, 3], 2, str).more
1
>>> shown = names_within(["support-bot-large-2024-05-13", "support-bot-large-2024-06-01", "gpt-4o"], 14)
>>> list(shown.values())
['supp…024-05-13', 'supp…024-06-01', 'gpt-4o']
>>> list(names_within(["model-one-alpha", "model-two-alpha"], 10).values())  # the tails are alike: more head
['model-o…ha', 'model-t…ha']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Capped", "capped", "number", "interval", "names_within"]


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


def capped(items: list[Any], limit: int | None, row: Callable[[Any], T]) -> Capped[T]:  # None: no limit
    return Capped(tuple(row(item) for item in items[:limit]), len(items))


def interval(low: float | None, high: float | None, *, percent: bool = False, signed: bool = False) -> str:
    """``0.61..0.78``, ``52-79%`` or ``+0.02..+0.27``; empty when there is no interval."""
    if low is None or high is None:
        return ""
    if percent:
        return f"{low * 100:.0f}-{high * 100:.0f}%"
    return f"{low:+.3f}..{high:+.3f}" if signed else f"{low:.2f}..{high:.2f}"


def names_within(names: Sequence[str], width: int) -> dict[str, str]:
    """Each name as shown in ``width`` columns: a longer one loses its middle (``supp…2024-05-13``), keeping its head
    and the longest tail that keeps the shown names apart (model names differ at their end: dates, sizes,
    versions), or where the tails are alike the longest head that does; where no cut keeps them apart, a head of a
    few characters and the rest of the tail."""
    unique = list(dict.fromkeys(names))
    long = [name for name in unique if len(name) > width]
    if width < 3 or not long:
        return {name: name if len(name) <= width else name[:width] for name in unique}

    def cut(name: str, head: int) -> str:
        return name if len(name) <= width else name[:head] + "…" + name[len(name) - (width - 1 - head) :]

    least = min(4, width // 3)  # a head of a few characters to read
    for head in (*range(least, width - 1), *range(1, least)):  # the longest tail first
        shown = {name: cut(name, head) for name in unique}
        if len(set(shown.values())) == len(unique):
            return shown
    return {name: cut(name, least) for name in unique}
