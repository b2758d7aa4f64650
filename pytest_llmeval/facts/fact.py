"""A checkable fact of a text, and what the readers of `pytest_llmeval.facts.parsing` and
`pytest_llmeval.facts.dates` share: their cache, and hedges ("about 1,300", "500+")."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, TypeVar

__all__ = ["Fact", "states_value", "fact_end", "CACHED_CHARS", "keeps_text", "is_hedged", "facts_outside"]


@dataclass(frozen=True)
class Fact:
    """One checkable statement of a text.

    Args:
        kind: ``number``, ``percent``, ``money``, ``year``, ``date``, ``time`` or ``name``
            (``weekday`` from `_weekdays()`, which `extract_facts()`
            does not call; negation is checked per sentence: `FactIndex.polarity_conflict()`).
        text: The words as written (for messages).
        value: The normalised value: a float for numbers (seconds of the day for
            times, 0 for Monday to 6 for Sunday for weekdays), ``(year, month, day)`` for dates
            (``None`` where not given), a tuple of folded words for names.
        unit: Unit or currency code for numbers (``clock`` for times of day), else ``None``.
        step: The precision a number is written to (``15.9 million``: 100,000).
        start: Offset of the fact in the text it was found in.
        weak: A lone capitalised first word of a sentence: perhaps a name, perhaps a common word,
            so any word of the source sharing its stem supports it ("Open" / "opening").
        approx: The number or time is hedged ("about 1,300", "over 500", "up to 10", "500+", "around 6 pm"):
            its value is the one written, and a comparison may allow a near or bounding one.
    """

    kind: str
    text: str
    value: Any
    unit: str | None = None
    step: float = 1.0
    start: int = 0
    weak: bool = False
    approx: bool = False


def states_value(fact: Fact, value: float) -> bool:
    """Whether ``value`` is the number ``fact`` states, to the precision it is written to (``15.9 million`` holds
    anything from 15.85 to 15.95 million)."""
    return bool(abs(value - fact.value) <= fact.step / 2 + 1e-9 * max(1.0, abs(fact.value)))


def fact_end(fact: Fact) -> int:
    """Where ``fact`` ends in its text."""
    return fact.start + len(fact.text)


_Text = TypeVar("_Text")


#: Texts up to this long have what is read from them kept (a check reads one sentence several times);
#: longer ones are read afresh, so the memory held stays small.
CACHED_CHARS = 2000


def keeps_text(function: Callable[[str], _Text]) -> Callable[[str], _Text]:
    """``function`` of a text, kept for texts of at most `CACHED_CHARS` characters (its results are immutable)."""
    cached = lru_cache(maxsize=8192)(function)

    @wraps(function)
    def read(text: str) -> _Text:
        return cached(text) if len(text) <= CACHED_CHARS else function(text)

    return read


#: Words before a number that hedge it ("about 1,300", "more than 500", "~40"), and after it ("500+", "40-odd", "or
#: so").
_HEDGE_BEFORE = re.compile(
    r"(?i)(?:(?<!\w)(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|ca\.|c\.|over|under"
    r"|(?:more|less|fewer)[ \t]+than|up[ \t]+to|at[ \t]+(?:least|most)|close[ \t]+to|upwards[ \t]+of|in[ \t]+excess[ "
    r"\t]+of"
    r"|(?:an[ \t]+)?estimated|just[ \t]+(?:over|under)|well[ \t]+(?:over|under))[ \t]+|~[ \t]?)\Z"
)


_HEDGE_AFTER = re.compile(r"\+(?![\d+])|(?i:[ \t]+or[ \t]+(?:so|more|less|fewer)|[ \t-]odd|-ish)(?!\w)")


#: How far before a number its hedge may start.
_HEDGE_REACH = 24


def is_hedged(text: str, start: int, end: int) -> bool:
    """Whether the number or time at ``text[start:end]`` is hedged ("about 1,300", "500+")."""
    return bool(_HEDGE_BEFORE.search(text, max(0, start - _HEDGE_REACH), start) or _HEDGE_AFTER.match(text, end))


def facts_outside(facts: Iterable[Fact], taken: Iterable[Fact]) -> list[Fact]:
    """``facts`` that overlap none of ``taken`` (the numbers of a time or date, "20" of "10:0-20:0")."""
    spans: list[list[int]] = []
    for start, end in sorted((f.start, fact_end(f)) for f in taken):
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    starts = [span[0] for span in spans]
    out = []
    for fact in facts:
        index = bisect.bisect_left(starts, fact_end(fact)) - 1
        if index < 0 or spans[index][1] <= fact.start:
            out.append(fact)
    return out
