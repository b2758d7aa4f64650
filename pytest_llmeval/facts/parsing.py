"""Numbers, units, dates and times as `pytest_llmeval.facts.extract` reads them.

A number is read with its magnitude and unit (``1,280 metres`` = ``1280 m``,
``15.9 million`` = ``15,900,000``, ``one hundred and twenty`` = ``120``,
``three quarters`` = ``0.75``) and the precision it is written to; percentages,
money, years, dates (``6 May 1825`` = ``May 6, 1825`` = ``1825-05-06``) and times
of day (``6 p.m.`` = ``18:00`` = ``18:0``) are told apart. The ends of a range
(``5-10%``, ``9am-5pm``) are facts of their own, a hedged number (``about 1,300``)
is marked approximate, and digits that are part of a name (``COVID-19``,
``F-35``, ``4G``) are no number. Each is a `Fact`. One number as written is read
by `pytest_llmeval.facts.numerals`, with the units, currencies and magnitudes of
`pytest_llmeval.facts.units`; dates, times and weekdays are read by
`pytest_llmeval.facts.dates`. What they define can be imported from here too.

>>> [(f.kind, f.value, f.unit) for f in number_facts("It is 1,280 metres tall")]
[('number', 1280.0, 'm')]
>>> [f.value for f in clock_time_facts("Open 10 am to 8 pm")] == [f.value for f in clock_time_facts("Open 10:0-20:0")]
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from .dates import MONTHS, clock_time_facts, date_facts, weekday_facts
from .fact import CACHED_CHARS, Fact, fact_end, facts_outside, is_hedged, keeps_text
from .numerals import NUMBER, NUMBER_WORDS, fraction_words, number_value, parse_number, scaled
from .units import BASE_UNITS, CURRENCY_SYMBOLS, CURRENCY_WORDS, SCALES, UNIT_ALTERNATIVES, UNITS

__all__ = [
    "Fact",
    "parse_number",
    "detokenize_numbers",
    "canonical_numbers",
    "CURRENCY_SYMBOLS",
    "CURRENCY_WORDS",
    "MONTHS",
    "NUMBER",
    "NUMBER_WORDS",
    "SCALES",
    "UNITS",
    "clock_time_facts",
    "date_facts",
    "weekday_facts",
    "number_facts",
    "number_value",
    "scaled",
    "CACHED_CHARS",
]


_TIME_UNITS = "hours?|minutes?|seconds?|days?|weeks?|months?|years?"


#: "four and a half hours": half a unit more than the number before it.
_AND_A_HALF = re.compile(
    r"[ \t]+and[ \t]+a[ \t]+half\b(?:[ \t]+(?P<unit>" + UNIT_ALTERNATIVES + r"))?(?!\w)", re.IGNORECASE
)


#: "half an hour", "half a day"; "an hour" / "a day" when a duration goes on ("an hour and 35 minutes").
_HALF_A = re.compile(r"\bhalf[ \t]+an?[ \t]+(?P<unit>" + _TIME_UNITS + r")\b", re.IGNORECASE)


_ONE_A = re.compile(r"\ban?[ \t]+(?P<unit>" + _TIME_UNITS + r")(?=[ \t]*,?[ \t]*(?:and[ \t]+)?\d)", re.IGNORECASE)


#: What joins the parts of one duration: "2 hours, 7 minutes and 42 seconds"; "2 hours 30 minutes" (larger unit first).
_DURATION_JOIN = re.compile(r"^[ \t]*(?:,[ \t]*(?:and[ \t]+)?|and[ \t]+)$")


_DURATION_SPACE = re.compile(r"^[ \t]+$")


#: Words joined to digits by a hyphen that make no name of them ("mid-2020", "pre-1900", "Jan-2021").
_NUMBER_PREFIXES = frozenset(
    {
        "mid",
        "pre",
        "post",
        "early",
        "late",
        "circa",
        "ca",
        "top",
        "over",
        "under",
        "non",
        "anti",
        "ex",
        "sub",
        "pro",
        "up",
        "around",
        "about",
        "from",
        "to",
        "since",
        "until",
        "by",
        *MONTHS,
    }
)


def _in_name(text: str, start: int) -> bool:
    """Whether the digits at ``start`` are part of a name or model joined by a hyphen: ``COVID-19``, ``F-35``,
    ``B-52``."""
    if start < 2 or text[start - 1] not in "-‐‑":
        return False
    begin = start - 1
    while begin > 0 and text[begin - 1].isalpha():
        begin -= 1
    word = text[begin : start - 1]
    return bool(word) and word.casefold() not in _NUMBER_PREFIXES


#: What joins the two ends of a range: "5-10", "5 to 10", "between 5 and 10", "2 or 3".
_RANGE_JOIN = re.compile(r"(?:[ \t]*[-–—][ \t]*|[ \t]+(?:to|and|or|through)[ \t]+)\Z")


@keeps_text
def number_facts(text: str) -> tuple[Fact, ...]:
    """Every number of ``text`` with its unit; a duration written in parts ("an hour and 35 minutes") is one fact.

    >>> [(f.value, f.unit, f.approx) for f in number_facts("about 5-10 km, two thirds of it")]
    [(5000.0, 'm', True), (10000.0, 'm', False), (0.6666666666666666, None, False)]
    """
    found = sorted(
        [*_single_numbers(text), *_unit_words(text), *fraction_words(text)], key=lambda f: (f.start, -len(f.text))
    )
    merged: list[Fact] = []
    for fact in found:
        last = merged[-1] if merged else None
        if last is not None and fact.start < last.start + len(last.text):
            continue  # "two" of "two thirds"
        # The parts of one duration go from larger units to smaller ("2 hours, 7 minutes and 42 seconds"); "2 hours 9
        # minutes, two minutes ahead" is two durations.
        if (
            last is not None
            and last.unit == "s"
            and fact.unit == "s"
            and last.step > fact.step
            and (
                _DURATION_JOIN.match(text[last.start + len(last.text) : fact.start])
                or _DURATION_SPACE.match(text[last.start + len(last.text) : fact.start])
            )
        ):
            merged[-1] = Fact(
                "number",
                text[last.start : fact.start + len(fact.text)],
                last.value + fact.value,
                "s",
                min(last.step, fact.step),
                last.start,
                approx=last.approx,
            )
        else:
            merged.append(fact)
    return tuple(merged)


def _unit_words(text: str) -> Iterable[Fact]:
    """Durations written without digits: "half an hour", and "an hour" at the head of a longer duration."""
    for pattern, amount in ((_HALF_A, 0.5), (_ONE_A, 1.0)):
        for match in pattern.finditer(text):
            unit, factor = BASE_UNITS.get(UNITS[match.group("unit").lower()], (UNITS[match.group("unit").lower()], 1.0))
            yield Fact(
                "number",
                match.group(0),
                amount * factor,
                unit,
                amount * factor,
                match.start(),
                approx=is_hedged(text, match.start(), match.end()),
            )


def _single_numbers(text: str) -> list[Fact]:
    """The numbers of ``text`` one by one, those of a range sharing its unit and magnitude ("5-10%": 5% and 10%)."""
    read: list[
        tuple[Fact, float, float, float, bool]
    ] = []  # each fact, its number as written, magnitude, unit factor, ordinal
    for match in NUMBER.finditer(text):
        parsed = number_value(match)
        if parsed is None:
            continue
        if not match.group("sign") and _in_name(text, match.start("num")):
            continue  # "COVID-19", "F-35"
        cur, unit_text, scale = match.group("cur"), match.group("unit"), match.group("scale")
        if unit_text == "G" and match.start("unit") == match.end("num"):
            continue  # "4G", "5G": a network, not grams
        value, step, word = parsed
        magnitude = SCALES[scale.lower()] if scale and (scale.lower() not in ("m", "b") or scaled(match)) else 1.0
        raw = value / magnitude
        end = match.end()
        half = _AND_A_HALF.match(text, end) if not unit_text and not scale and not match.group("ord") else None
        if half is not None:
            value, step, unit_text, end = value + 0.5, 0.5, half.group("unit"), half.end()
            raw = value
        unit = None
        if unit_text:
            key = unit_text.lower()
            unit = CURRENCY_WORDS.get(key) or UNITS.get(key)
        if cur:
            unit = "USD" if cur.endswith("$") else CURRENCY_SYMBOLS[cur]
        if scale and scale.lower() in ("m", "b") and not scaled(match):
            unit = unit or ("m" if scale.lower() == "m" else None)
        factor = 1.0
        if unit in BASE_UNITS:
            unit, factor = BASE_UNITS[unit]
            value *= factor
            step *= factor
        if match.group("ord"):
            kind = "number"
        elif unit == "%":
            kind = "percent"
        elif unit in CURRENCY_WORDS.values():
            kind = "money"
        elif (
            not word
            and not scale
            and unit is None
            and step == 1.0
            and 1000 <= value <= 2100
            and match.group("num").isdigit()
        ):
            kind = "year"
        else:
            kind = "number"
        if word and not scale and unit is None:
            # "two" alone is a weak fact ("two of them"); keep it, but only as a number.
            kind = "number"
        start = match.start("cur") if cur else match.start("sign") if match.group("sign") else match.start("num")
        fact = Fact(kind, text[start:end].strip(), value, unit, step, start, approx=is_hedged(text, start, end))
        read.append((fact, raw, magnitude, factor, bool(match.group("ord"))))
    return _ranges(text, read)


def _ranges(text: str, read: list[tuple[Fact, float, float, float, bool]]) -> list[Fact]:
    """The first end of a range takes the magnitude and unit of the second, the second the currency of the first:
    "5-10%" is 5% to 10%, "2 to 3 hours" 2 hours to 3, "$5-10 million" $5 million to $10 million. Only a smaller
    first end does ("from 500 to 1 million" is not 500 million)."""
    facts = [fact for fact, *_ in read]
    for index in range(1, len(read)):
        _, first_raw, first_magnitude, _, first_ordinal = read[index - 1]
        second, second_raw, second_magnitude, second_factor, second_ordinal = read[index]
        first = facts[index - 1]
        if (
            first_ordinal
            or second_ordinal
            or first.start + len(first.text) > second.start
            or not _RANGE_JOIN.match(text, first.start + len(first.text), second.start)
        ):
            continue
        if first_raw < second_raw:
            if first_magnitude == 1.0 and second_magnitude != 1.0:
                first = replace(
                    first,
                    value=first.value * second_magnitude,
                    step=first.step * second_magnitude,
                    kind="number" if first.kind == "year" else first.kind,
                )
            if first.unit is None and second.unit is not None:
                first = replace(
                    first,
                    value=first.value * second_factor,
                    step=first.step * second_factor,
                    unit=second.unit,
                    kind=second.kind,
                )
            facts[index - 1] = first
        if second.unit is None and first.kind == "money" and second.kind != "year":
            facts[index] = replace(second, unit=first.unit, kind="money")
    return facts


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
_SPLIT_UNIT = re.compile(
    r"(\d|\b(?i:" + "|".join(NUMBER_WORDS) + r"))[ \t]-[ \t](?=(?i:" + UNIT_ALTERNATIVES + r")(?!\w))"
)


#: A no-break, figure, thin or narrow space after a number and before its unit ("24\u00a0mm", "232,752 \u00a0km"): one
#: space.
_UNIT_SPACE = re.compile(r"(?<=\d)[ \t]*[\u00a0\u2007\u2009\u202f][ \t\u00a0\u2007\u2009\u202f]*(?!\d)")


@keeps_text
def detokenize_numbers(text: str) -> str:
    """Join numbers (and dotted initials, an initial's apostrophe) a tokeniser split, and read a unit after a no-break
    space as after a space; the length changes.

    >>> detokenize_numbers("viewed 235, 000 times, 98. 7 per cent, a two - hour film in the U. S. by o' malley")
    "viewed 235,000 times, 98.7 per cent, a two-hour film in the U.S. by o'malley"
    >>> detokenize_numbers("24\u00a0mm, 1\u00a0000 km")
    '24 mm, 1\xa0000 km'
    """
    text = _UNIT_SPACE.sub(" ", text)
    text = _SPLIT_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(", ", ","), text)
    text = _SPLIT_DECIMAL.sub(r"\1.\2", text)
    if ". " in text:
        text = _SPLIT_INITIALS.sub(r"\1.", text)
    if "' " in text:
        text = _SPLIT_APOSTROPHE.sub(r"\1'", text)
    if " - " in text:
        text = _SPLIT_UNIT.sub(r"\1-", text)
    return text


@keeps_text
def canonical_numbers(text: str) -> str:
    """``text`` with each number and time of day written as one token of its value and base unit.

    Word-level comparisons then see ``4,500 mAh`` and ``4500 mAh``, ``58%`` and
    ``58 percent``, ``two days`` and ``48 hours``, ``8 pm`` and ``20:00`` as the same words.

    >>> canonical_numbers("It takes two days") == canonical_numbers("It takes 48 hours")
    True
    >>> canonical_numbers("Open 10 am to 8 pm")
    'Open  n36000clock  to  n72000clock '
    """
    text = detokenize_numbers(text)
    times = clock_time_facts(text)
    out, cursor = [], 0
    for fact in sorted([*times, *facts_outside(number_facts(text), times)], key=lambda f: f.start):
        if fact.start < cursor:
            continue
        unit = re.sub(r"\W", "", (fact.unit or "").replace("%", "pct")).lower()
        token = f"n{fact.value:.6g}{unit}".replace(".", "p").replace("-", "m").replace("+", "")
        out.append(text[cursor : fact.start])
        out.append(f" {token} ")
        cursor = fact_end(fact)
    out.append(text[cursor:])
    return "".join(out)
