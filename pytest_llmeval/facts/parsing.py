"""Numbers, units, dates and times as :mod:`pytest_llmeval.facts.extract` reads them.

A number is read with its magnitude and unit (``1,280 metres`` = ``1280 m``,
``15.9 million`` = ``15,900,000``, ``two`` = ``2``) and the precision it is
written to; percentages, money, years, dates (``6 May 1825`` = ``May 6, 1825`` =
``1825-05-06``) and times of day (``6 p.m.`` = ``18:00``) are told apart. Each is
a :class:`Fact`.

>>> [(f.kind, f.value, f.unit) for f in _numbers("It is 1,280 metres tall")]
[('number', 1280.0, 'm')]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, TypeVar

__all__ = ["Fact", "parse_number", "detokenize_numbers", "canonical_numbers"]


_SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "mln": 1e6, "m": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}


_NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12,
}


_ONES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}


_CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "us$": "USD", "euro": "EUR", "euros": "EUR", "eur": "EUR",
    "pound": "GBP", "pounds": "GBP", "gbp": "GBP", "sterling": "GBP", "yen": "JPY", "jpy": "JPY",
    "rupee": "INR", "rupees": "INR", "inr": "INR", "yuan": "CNY", "renminbi": "CNY", "cny": "CNY",
    "real": "BRL", "reais": "BRL", "brl": "BRL", "franc": "CHF", "francs": "CHF", "chf": "CHF",
}


_UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "pct": "%", "percentage points": "pp",
    "m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m",
    "km": "km", "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km",
    "cm": "cm", "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
    "mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
    "ft": "ft", "foot": "ft", "feet": "ft", "inch": "in", "inches": "in",
    "mi": "mi", "mile": "mi", "miles": "mi", "yd": "yd", "yard": "yd", "yards": "yd",
    "kg": "kg", "kilogram": "kg", "kilograms": "kg", "g": "g", "gram": "g", "grams": "g",
    "lb": "lb", "lbs": "lb", "tonne": "t", "tonnes": "t", "ton": "ton", "tons": "ton",
    "litre": "l", "litres": "l", "liter": "l", "liters": "l", "ml": "ml", "gallon": "gal", "gallons": "gal",
    "ounce": "oz", "ounces": "oz", "oz": "oz", "acre": "acre", "acres": "acre", "hectare": "ha", "hectares": "ha",
    "sec": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min",
    "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "day", "days": "day",
    "week": "week", "weeks": "week", "month": "month", "months": "month", "year": "year", "years": "year",
    "decade": "decade", "decades": "decade", "century": "century", "centuries": "century",
    "°c": "°C", "°f": "°F", "degrees": "°", "mph": "mph", "km/h": "km/h", "kmh": "km/h",
    "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "gigabyte": "GB", "gigabytes": "GB", "megabyte": "MB",
    "megabytes": "MB", "terabyte": "TB", "terabytes": "TB", "kilobyte": "KB", "kilobytes": "KB", "ghz": "GHz", "mhz": "MHz", "kw": "kW", "mw": "MW",
}


# Units of one dimension compare in a base unit: "2 days" = "48 hours", "1.28 km" = "1,280 m".
_BASE = {
    "km": ("m", 1000.0), "cm": ("m", 0.01), "mm": ("m", 0.001), "ft": ("m", 0.3048), "in": ("m", 0.0254),
    "mi": ("m", 1609.344), "yd": ("m", 0.9144), "g": ("kg", 0.001), "lb": ("kg", 0.45359237), "t": ("kg", 1000.0),
    "ml": ("l", 0.001), "gal": ("l", 3.785411784), "oz": ("kg", 0.028349523125), "acre": ("ha", 0.40468564224),
    "decade": ("year", 10.0), "century": ("year", 100.0), "min": ("s", 60.0), "h": ("s", 3600.0), "day": ("s", 86400.0), "week": ("s", 604800.0),
    "KB": ("B", 1e3), "MB": ("B", 1e6), "GB": ("B", 1e9), "TB": ("B", 1e12),
}


_CLOCK = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?(?::(?P<s>\d{2}))?[ \t]?(?P<ampm>(?i:a\.m\.|p\.m\.|am\b|pm\b))"
    r"|(?<![\d:.])(?P<h2>\d{1,2}):(?P<m2>\d{2})(?::(?P<s2>\d{2}))?(?![\d:])"
)


# One pass over the text finds every number: digits (with thousands separators and a
# decimal part) or a number word, then an optional magnitude and unit. No nested
# repetition, so the scan is linear in the length of the text.
_UNIT_ALTERNATIVES = "|".join(
    re.escape(u) for u in sorted({*_UNITS, *_CURRENCY_WORDS}, key=len, reverse=True)
)


_NUMBER = re.compile(
    r"(?P<cur>(?:US)?\$|[€£¥₹])?[ \t]?"
    r"(?<![\w.,])(?P<sign>(?<![\w\d])[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
    r"|(?i:" + "|".join(_NUMBER_WORDS) + r")(?:-(?i:" + "|".join(_ONES) + r"))?)"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?:[ \t]?-?[ \t]?(?P<scale>(?i:" + "|".join(sorted(_SCALES, key=len, reverse=True)) + r"))(?!\w)"
    r"|(?!\w)|(?=(?i:" + _UNIT_ALTERNATIVES + r")(?!\w)))"
    r"(?:(?:[ \t]|-(?=[^\W\d]))?(?P<unit>(?i:" + _UNIT_ALTERNATIVES + r"))(?!\w))?"
)


_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


_MONTHS = {
    name: index
    for index, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}


_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"


_DATE = re.compile(
    r"(?i)\b(?:(?P<day1>\d{1,2})(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?" + _MONTH.replace("month", "month1")
    + r"(?:,?[ \t]+(?P<year1>\d{4}))?"
    r"|" + _MONTH.replace("month", "month2") + r"[ \t]+(?P<day2>\d{1,2})(?:st|nd|rd|th)?\b(?:,?[ \t]+(?P<year2>\d{4}))?"
    r"|" + _MONTH.replace("month", "month3") + r",?[ \t]+(?P<year3>\d{4}))\b"
)


def parse_number(text: str) -> tuple[float, float] | None:
    """``(value, step)`` of a written number, the step being the precision it is written to.

    >>> parse_number("15.9 million")
    (15900000.0, 100000.0)
    >>> parse_number("1,280")
    (1280.0, 1.0)
    >>> parse_number("twenty-one")
    (21.0, 1.0)
    >>> parse_number("the tower") is None
    True
    """
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return None
    value = _number_value(match)
    return None if value is None else value[:2]


def _scaled(match: re.Match[str]) -> bool:
    """Whether a bare ``m`` / ``b`` after a number is a magnitude: money, or written in capitals."""
    unit = (match.group("unit") or "").lower()
    return bool(match.group("cur")) or unit in _CURRENCY_WORDS or (match.group("scale") or "").isupper()


def _number_value(match: re.Match[str]) -> tuple[float, float, bool] | None:
    """Value, step and whether the number was written as a word."""
    raw = match.group("num")
    word = raw[0].isalpha()
    if word:
        head, _, tail = raw.lower().partition("-")
        value = float(_NUMBER_WORDS[head] + (_ONES[tail] if tail else 0))
        step = 1.0
    else:
        digits = raw.replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            return None
        decimals = len(digits.partition(".")[2])
        step = 10.0 ** -decimals
    if match.group("sign"):
        value = -value
    scale = match.group("scale")
    if scale:
        key = scale.lower()
        if key in ("m", "b") and not _scaled(match):
            # "5 m" is five metres and "5 b" nothing we know; "$5m", "5m euros", "7B" are millions and billions.
            return value, step, word
        factor = _SCALES[key]
        value *= factor
        step *= factor
    if not math.isfinite(value):
        return None
    return value, step, word


@dataclass(frozen=True)
class Fact:
    """One checkable statement of a text.

    Args:
        kind: ``number``, ``percent``, ``money``, ``year``, ``date``, ``time`` or ``name``
            (negation is checked per sentence: :meth:`FactIndex.polarity_conflict`).
        text: The words as written (for messages).
        value: The normalised value: a float for numbers (seconds of the day for
            times), ``(year, month, day)`` for dates (``None`` where not given), a
            tuple of folded words for names.
        unit: Unit or currency code for numbers, else ``None``.
        step: The precision a number is written to (``15.9 million``: 100,000).
        start: Offset of the fact in the text it was found in.
    """

    kind: str
    text: str
    value: Any
    unit: str | None = None
    step: float = 1.0
    start: int = 0
    #: A lone capitalised first word of a sentence: perhaps a name, perhaps a common word,
    #: so any word of the source sharing its stem supports it ("Open" / "opening").
    weak: bool = False


_TIME_UNITS = "hours?|minutes?|seconds?|days?|weeks?|months?|years?"


#: "four and a half hours": half a unit more than the number before it.
_AND_A_HALF = re.compile(r"[ \t]+and[ \t]+a[ \t]+half\b(?:[ \t]+(?P<unit>" + _UNIT_ALTERNATIVES + r"))?(?!\w)", re.IGNORECASE)


#: "half an hour", "half a day"; "an hour" / "a day" when a duration goes on ("an hour and 35 minutes").
_HALF_A = re.compile(r"\bhalf[ \t]+an?[ \t]+(?P<unit>" + _TIME_UNITS + r")\b", re.IGNORECASE)


_ONE_A = re.compile(r"\ban?[ \t]+(?P<unit>" + _TIME_UNITS + r")(?=[ \t]*,?[ \t]*(?:and[ \t]+)?\d)", re.IGNORECASE)


#: What joins the parts of one duration: "2 hours, 7 minutes and 42 seconds".
_DURATION_JOIN = re.compile(r"^[ \t]*(?:,[ \t]*(?:and[ \t]+)?|and[ \t]+)$")


_Text = TypeVar("_Text")


#: Texts up to this long have what is read from them kept (a check reads one sentence several times);
#: longer ones are read afresh, so the memory held stays small.
CACHED_CHARS = 2000


def _kept(function: Callable[[str], _Text]) -> Callable[[str], _Text]:
    """``function`` of a text, kept for texts of at most :data:`CACHED_CHARS` characters (its results are immutable)."""
    cached = lru_cache(maxsize=8192)(function)

    @wraps(function)
    def read(text: str) -> _Text:
        return cached(text) if len(text) <= CACHED_CHARS else function(text)

    return read


@_kept
def _numbers(text: str) -> tuple[Fact, ...]:
    """Every number of ``text`` with its unit; a duration written in parts ("an hour and 35 minutes") is one fact."""
    facts = sorted([*_single_numbers(text), *_unit_words(text)], key=lambda f: f.start)
    merged: list[Fact] = []
    for fact in facts:
        last = merged[-1] if merged else None
        if (last is not None and last.unit == "s" and fact.unit == "s" and last.start + len(last.text) <= fact.start
                and _DURATION_JOIN.match(text[last.start + len(last.text):fact.start])):
            merged[-1] = Fact("number", text[last.start:fact.start + len(fact.text)], last.value + fact.value, "s",
                              min(last.step, fact.step), last.start)
        else:
            merged.append(fact)
    return tuple(merged)


def _unit_words(text: str) -> Iterable[Fact]:
    """Durations written without digits: "half an hour", and "an hour" at the head of a longer duration."""
    for pattern, amount in ((_HALF_A, 0.5), (_ONE_A, 1.0)):
        for match in pattern.finditer(text):
            unit, factor = _BASE.get(_UNITS[match.group("unit").lower()], (_UNITS[match.group("unit").lower()], 1.0))
            yield Fact("number", match.group(0), amount * factor, unit, amount * factor, match.start())


def _single_numbers(text: str) -> Iterable[Fact]:
    for match in _NUMBER.finditer(text):
        parsed = _number_value(match)
        if parsed is None:
            continue
        value, step, word = parsed
        cur, unit_text, scale = match.group("cur"), match.group("unit"), match.group("scale")
        end = match.end()
        half = _AND_A_HALF.match(text, end) if not unit_text and not scale and not match.group("ord") else None
        if half is not None:
            value, step, unit_text, end = value + 0.5, 0.5, half.group("unit"), half.end()
        unit = None
        if unit_text:
            key = unit_text.lower()
            unit = _CURRENCY_WORDS.get(key) or _UNITS.get(key)
        if cur:
            unit = "USD" if cur.endswith("$") else _CURRENCY_SYMBOLS[cur]
        if scale and scale.lower() in ("m", "b") and not _scaled(match):
            unit = unit or ("m" if scale.lower() == "m" else None)
        if unit in _BASE:
            unit, factor = _BASE[unit]
            value *= factor
            step *= factor
        if match.group("ord"):
            kind = "number"
        elif unit == "%":
            kind = "percent"
        elif unit in _CURRENCY_WORDS.values():
            kind = "money"
        elif not word and not scale and unit is None and step == 1.0 and 1000 <= value <= 2100 and "," not in match.group("num"):
            kind = "year"
        else:
            kind = "number"
        if word and not scale and unit is None:
            # "two" alone is a weak fact ("two of them"); keep it, but only as a number.
            kind = "number"
        start = match.start("cur") if cur else match.start("sign") if match.group("sign") else match.start("num")
        yield Fact(kind, text[start:end].strip(), value, unit, step, start)


#: What every date or time of day holds (a month's name, a colon between digits, a.m. or p.m.): texts without it
#: are not scanned for one.
_MAYBE_DATE = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\d-\d")


_MAYBE_TIME = re.compile(r"(?i)\d:\d|\d[ \t]?[ap]\.?m\b")


def _clock_times(text: str) -> Iterable[Fact]:
    """Times of day and clock durations: ``6 p.m.`` = ``18:00``; ``2:06:15`` is 7,575 seconds."""
    if not _MAYBE_TIME.search(text):
        return
    for match in _CLOCK.finditer(text):
        if match.group("h") is not None:
            hour, minute, second = int(match.group("h")), int(match.group("m") or 0), int(match.group("s") or 0)
            pm = match.group("ampm").lower().startswith("p")
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if pm else 0)
        else:
            hour, minute, second = int(match.group("h2")), int(match.group("m2")), int(match.group("s2") or 0)
        if minute > 59 or second > 59:
            continue
        yield Fact("time", match.group(0).strip(), float(hour * 3600 + minute * 60 + second), "clock", 1.0, match.start())


def _dates(text: str) -> Iterable[Fact]:
    if not _MAYBE_DATE.search(text):
        return
    for match in _ISO_DATE.finditer(text):
        iso = tuple(int(g) for g in match.groups())
        if 1 <= iso[1] <= 12 and 1 <= iso[2] <= 31:
            yield Fact("date", match.group(0), iso, start=match.start())
    for match in _DATE.finditer(text):
        groups = match.groupdict()
        month_name = groups["month1"] or groups["month2"] or groups["month3"]
        day = groups["day1"] or groups["day2"]
        year = groups["year1"] or groups["year2"] or groups["year3"]
        if month_name == "may" and not day:
            continue  # "may 2020" in lower case is too often the verb
        day_value = int(day) if day else None
        if day_value is not None and not 1 <= day_value <= 31:
            continue
        yield Fact("date", match.group(0), (int(year) if year else None, _MONTHS[month_name.lower().rstrip(".")], day_value), start=match.start())


# Tokenised text (news corpora, PDF extraction) splits numbers: "235, 000", "98. 7".
# A thousands group joins only a group of at most three digits ("In 2019, 250 people" stays
# apart); a decimal part only before a magnitude or percentage ("98. 7 per cent", "31. 8 million").
_SPLIT_THOUSANDS = re.compile(r"(?<![\d,.])(\d{1,3})((?:, \d{3}(?![\d]))+)")


_SPLIT_DECIMAL = re.compile(
    r"(?<![\d.])(\d+)\. (\d+)(?=[ \t]?(?i:per ?cent|percent|%|thousand|million|billion|trillion|bn|m\b|k\b))"
)


# The same tokenisers split dotted initials ("U. S."), an apostrophe after an initial ("o' malley") and a hyphen
# between a number and its unit ("two - hour").
_SPLIT_INITIALS = re.compile(r"\b([^\W\d_])\. (?=[^\W\d_]\.(?!\w))")


_SPLIT_APOSTROPHE = re.compile(r"(?<![\w'])([^\W\d_])' (?=[^\W\d_]{2})")


_SPLIT_UNIT = re.compile(r"(\d|\b(?i:" + "|".join(_NUMBER_WORDS) + r"))[ \t]-[ \t](?=(?i:" + _UNIT_ALTERNATIVES + r")(?!\w))")


@_kept
def detokenize_numbers(text: str) -> str:
    """Join numbers (and dotted initials, an initial's apostrophe) a tokeniser split; the length changes.

    >>> detokenize_numbers("viewed 235, 000 times, 98. 7 per cent, a two - hour film in the U. S. by o' malley")
    "viewed 235,000 times, 98.7 per cent, a two-hour film in the U.S. by o'malley"
    """
    text = _SPLIT_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(", ", ","), text)
    text = _SPLIT_DECIMAL.sub(r"\1.\2", text)
    if ". " in text:
        text = _SPLIT_INITIALS.sub(r"\1.", text)
    if "' " in text:
        text = _SPLIT_APOSTROPHE.sub(r"\1'", text)
    if " - " in text:
        text = _SPLIT_UNIT.sub(r"\1-", text)
    return text


@_kept
def canonical_numbers(text: str) -> str:
    """``text`` with each number written as one token of its value and base unit.

    Word-level comparisons then see ``4,500 mAh`` and ``4500 mAh``, ``58%`` and
    ``58 percent``, ``two days`` and ``48 hours`` as the same words.

    >>> canonical_numbers("It takes two days") == canonical_numbers("It takes 48 hours")
    True
    """
    text = detokenize_numbers(text)
    out, cursor = [], 0
    for fact in sorted(_numbers(text), key=lambda f: f.start):
        if fact.start < cursor:
            continue
        unit = re.sub(r"\W", "", (fact.unit or "").replace("%", "pct")).lower()
        token = f"n{fact.value:.6g}{unit}".replace(".", "p").replace("-", "m").replace("+", "")
        out.append(text[cursor:fact.start])
        out.append(f" {token} ")
        cursor = fact.start + len(fact.text)
    out.append(text[cursor:])
    return "".join(out)
