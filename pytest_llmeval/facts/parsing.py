"""Numbers, units, dates and times as `pytest_llmeval.facts.extract` reads them.

A number is read with its magnitude and unit (``1,280 metres`` = ``1280 m``,
``15.9 million`` = ``15,900,000``, ``one hundred and twenty`` = ``120``,
``three quarters`` = ``0.75``) and the precision it is written to; percentages,
money, years, dates (``6 May 1825`` = ``May 6, 1825`` = ``1825-05-06``) and times
of day (``6 p.m.`` = ``18:00`` = ``18:0``) are told apart. The ends of a range
(``5-10%``, ``9am-5pm``) are facts of their own, a hedged number (``about 1,300``)
is marked approximate, and digits that are part of a name (``COVID-19``,
``F-35``, ``4G``) are no number. Each is a `Fact`. Dates, times and weekdays
are read by `pytest_llmeval.facts.dates`, and can be imported from here too.

>>> [(f.kind, f.value, f.unit) for f in number_facts("It is 1,280 metres tall")]
[('number', 1280.0, 'm')]
>>> [f.value for f in clock_time_facts("Open 10 am to 8 pm")] == [f.value for f in clock_time_facts("Open 10:0-20:0")]
True
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace

from .dates import MONTHS, clock_time_facts, date_facts, weekday_facts
from .fact import CACHED_CHARS, Fact, fact_end, facts_outside, is_hedged, keeps_text

__all__ = ["Fact", "parse_number", "detokenize_numbers", "canonical_numbers", "CURRENCY_SYMBOLS", "CURRENCY_WORDS",
           "MONTHS", "NUMBER", "NUMBER_WORDS", "SCALES", "UNITS", "clock_time_facts", "date_facts", "weekday_facts",
           "number_facts", "number_value", "scaled", "CACHED_CHARS"]


SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "mln": 1e6, "m": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}


NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12,
}


_ONES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}


CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "us$": "USD", "euro": "EUR", "euros": "EUR", "eur": "EUR",
    "pound": "GBP", "pounds": "GBP", "gbp": "GBP", "sterling": "GBP", "yen": "JPY", "jpy": "JPY",
    "rupee": "INR", "rupees": "INR", "inr": "INR", "yuan": "CNY", "renminbi": "CNY", "cny": "CNY",
    "real": "BRL", "reais": "BRL", "brl": "BRL", "franc": "CHF", "francs": "CHF", "chf": "CHF",
}


UNITS = {
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
    "sec": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min", "mins": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "day", "days": "day",
    "week": "week", "weeks": "week", "month": "month", "months": "month", "year": "year", "years": "year",
    "decade": "decade", "decades": "decade", "century": "century", "centuries": "century",
    "°c": "°C", "°f": "°F", "degrees": "°", "mph": "mph", "km/h": "km/h", "kmh": "km/h",
    "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "gigabyte": "GB", "gigabytes": "GB", "megabyte": "MB",
    "megabytes": "MB", "terabyte": "TB", "terabytes": "TB", "kilobyte": "KB", "kilobytes": "KB", "ghz": "GHz", "mhz": "MHz", "kw": "kW", "mw": "MW",
}


# Units of one dimension compare in a base unit: "2 days" = "48 hours", "1.28 km" = "1,280 m", "1.5 hours" = "90 minutes".
_BASE = {
    "km": ("m", 1000.0), "cm": ("m", 0.01), "mm": ("m", 0.001), "ft": ("m", 0.3048), "in": ("m", 0.0254),
    "mi": ("m", 1609.344), "yd": ("m", 0.9144), "g": ("kg", 0.001), "lb": ("kg", 0.45359237), "t": ("kg", 1000.0),
    "ml": ("l", 0.001), "gal": ("l", 3.785411784), "oz": ("kg", 0.028349523125), "acre": ("ha", 0.40468564224),
    "decade": ("year", 10.0), "century": ("year", 100.0), "min": ("s", 60.0), "h": ("s", 3600.0), "day": ("s", 86400.0), "week": ("s", 604800.0),
    "KB": ("B", 1e3), "MB": ("B", 1e6), "GB": ("B", 1e9), "TB": ("B", 1e12),
}


def _alternatives(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# Number words. "one" and "a" count only inside a longer number ("twenty-one", "a hundred", "one million"):
# alone they are too often no number ("one of them", "a house").
_TEENS = {word: value for word, value in NUMBER_WORDS.items() if 10 <= value < 20}
_TENS = {word: value for word, value in NUMBER_WORDS.items() if value >= 20 and value % 10 == 0}
_WORD_VALUES = {**NUMBER_WORDS, **_ONES}
_ONE_TO_NINE = _alternatives(_ONES)
#: Below a hundred, without "one": "twenty-one", "seventeen", "six".
_TO_99 = (f"(?:(?:{_alternatives(_TENS)})(?:[- ](?:{_ONE_TO_NINE}))?|{_alternatives(_TEENS)}"
          f"|{_alternatives(w for w in _ONES if w != 'one')}|zero)")
_TO_99_ONE = f"(?:{_TO_99}|one)"
#: "a hundred", "two hundred and five", "one hundred twenty".
_HUNDREDS = f"(?:an?|{_ONE_TO_NINE})[ \\t-]hundred(?:[ \\t](?:and[ \\t])?{_TO_99_ONE})?"
_WORD_NUMBER = (
    f"(?:(?:{_HUNDREDS}|{_TO_99}|an?|one)[ \\t-]thousand(?:[ \\t](?:and[ \\t])?(?:{_HUNDREDS}|{_TO_99_ONE}))?"
    f"|{_HUNDREDS}"
    f"|(?:(?:half[ \\t]an?|an?|{_TO_99_ONE})[ \\t-])?dozen"
    f"|{_TO_99}"
    f"|(?:one|an?)(?=[ \\t-]?(?:million|billion|trillion)\\b)|one(?=[ \\t]and[ \\t]a[ \\t]half\\b))"
)


#: Unicode's vulgar fractions ("1½").
_VULGAR = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒"


#: Denominators of a fraction written in digits ("1/2", "3/4", "7/16"); others ("9/11", "24/7") are no fraction.
_DENOMINATORS = "100|64|32|16|12|10|[2-9]"


#: A fraction is written to this precision ("a third" is supported by "0.33").
FRACTION_STEP = 0.01


# One pass over the text finds every number: digits (with thousands separators and a
# decimal part), a fraction, or number words, then an optional magnitude and unit. No nested
# repetition, so the scan is linear in the length of the text.
_UNIT_ALTERNATIVES = "|".join(
    re.escape(u) for u in sorted({*UNITS, *CURRENCY_WORDS}, key=len, reverse=True)
)


NUMBER = re.compile(
    r"(?P<cur>(?:US)?\$|[€£¥₹])?[ \t]?"
    r"(?:(?<![\w.,])|(?<=\d[x×]))(?P<sign>(?<![\w\d])[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    # thousands set apart by a no-break or thin space ("1 300"), or by spaces in two groups or more ("1 300 000")
    r"|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?![\d,])(?:\.\d+)?|\d{1,3}(?: \d{3}){2,}(?![\d,])(?:\.\d+)?"
    r"|(?:\d{1,2}[ \t])?(?<![\d/])[1-9]/(?:" + _DENOMINATORS + r")(?![\d/])|\d{0,3}[" + _VULGAR + r"]"
    r"|\d+(?:\.\d+)?|\.\d+"
    r"|(?i:" + _WORD_NUMBER + r"))"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?:[ \t]?-?[ \t]?(?P<scale>(?i:" + "|".join(sorted(SCALES, key=len, reverse=True)) + r"))(?!\w|\.\w)"  # not "B.C."
    r"|(?!\w)|(?=(?i:" + _UNIT_ALTERNATIVES + r")(?!\w)))"
    r"(?:(?:[ \t]|-(?=[^\W\d]))?(?P<unit>(?i:" + _UNIT_ALTERNATIVES + r"))(?!\w))?"
)


def parse_number(text: str) -> tuple[float, float] | None:
    """``(value, step)`` of a written number, the step being the precision it is written to.

    >>> parse_number("15.9 million")
    (15900000.0, 100000.0)
    >>> parse_number("1,280")
    (1280.0, 1.0)
    >>> parse_number("twenty-one")
    (21.0, 1.0)
    >>> parse_number("one hundred and twenty")
    (120.0, 1.0)
    >>> parse_number("3/4")
    (0.75, 0.01)
    >>> parse_number("the tower") is None
    True
    """
    match = NUMBER.fullmatch(text.strip())
    if match is None:
        return None
    value = number_value(match)
    return None if value is None else value[:2]


def scaled(match: re.Match[str]) -> bool:
    """Whether a bare ``m`` / ``b`` after a number is a magnitude: money, or written in capitals."""
    unit = (match.group("unit") or "").lower()
    return bool(match.group("cur")) or unit in CURRENCY_WORDS or (match.group("scale") or "").isupper()


def _word_value(words: str) -> tuple[float, float]:
    """Value and step of number words: ``a hundred and five`` is 105 (to 1), ``two thousand five hundred`` 2,500 (to 100).

    >>> _word_value("half a dozen")
    (6.0, 1.0)
    """
    tokens = re.findall(r"[a-z]+", words.lower())
    half = tokens[:1] == ["half"]
    total = current = 0.0
    step = 1.0
    for token in tokens[2 if half else 0:]:
        if token in ("a", "an"):
            current += 1
        elif token == "hundred":
            current, step = (current or 1) * 100, 100.0
        elif token == "thousand":
            total, current, step = total + (current or 1) * 1000, 0.0, 1000.0
        elif token == "dozen":
            current, step = (current or 1) * 12, 1.0
        elif token in _WORD_VALUES:
            current, step = current + _WORD_VALUES[token], 1.0
    return (total + current) * (0.5 if half else 1.0), step


def _digit_value(raw: str) -> tuple[float, float] | None:
    """Value and step of a number in digits: ``1,300``, ``1 300``, ``2.50``, ``2 1/2``, ``1½``."""
    if raw[-1] in _VULGAR:
        whole = raw[:-1]
        return (int(whole) if whole else 0) + unicodedata.numeric(raw[-1]), FRACTION_STEP
    if "/" in raw:
        whole, _, fraction = raw.rpartition(" ")
        numerator, _, denominator = fraction.partition("/")
        return (int(whole) if whole else 0) + int(numerator) / int(denominator), FRACTION_STEP
    digits = re.sub(r"[,\s]", "", raw)
    try:
        value = float(digits)
    except ValueError:
        return None
    return value, 10.0 ** -len(digits.partition(".")[2])


def number_value(match: re.Match[str]) -> tuple[float, float, bool] | None:
    """Value, step and whether the number was written as a word."""
    raw = match.group("num")
    word = raw[0].isalpha()
    if word:
        value, step = _word_value(raw)
    else:
        parsed = _digit_value(raw)
        if parsed is None:
            return None
        value, step = parsed
    if match.group("sign"):
        value = -value
    scale = match.group("scale")
    if scale:
        key = scale.lower()
        if key in ("m", "b") and not scaled(match):
            # "5 m" is five metres and "5 b" nothing we know; "$5m", "5m euros", "7B" are millions and billions.
            return value, step, word
        factor = SCALES[key]
        value *= factor
        step *= factor
    if not math.isfinite(value):
        return None
    return value, step, word


_TIME_UNITS = "hours?|minutes?|seconds?|days?|weeks?|months?|years?"


#: "four and a half hours": half a unit more than the number before it.
_AND_A_HALF = re.compile(r"[ \t]+and[ \t]+a[ \t]+half\b(?:[ \t]+(?P<unit>" + _UNIT_ALTERNATIVES + r"))?(?!\w)", re.IGNORECASE)


#: "half an hour", "half a day"; "an hour" / "a day" when a duration goes on ("an hour and 35 minutes").
_HALF_A = re.compile(r"\bhalf[ \t]+an?[ \t]+(?P<unit>" + _TIME_UNITS + r")\b", re.IGNORECASE)


_ONE_A = re.compile(r"\ban?[ \t]+(?P<unit>" + _TIME_UNITS + r")(?=[ \t]*,?[ \t]*(?:and[ \t]+)?\d)", re.IGNORECASE)


#: What joins the parts of one duration: "2 hours, 7 minutes and 42 seconds"; "2 hours 30 minutes" (larger unit first).
_DURATION_JOIN = re.compile(r"^[ \t]*(?:,[ \t]*(?:and[ \t]+)?|and[ \t]+)$")


_DURATION_SPACE = re.compile(r"^[ \t]+$")


#: Fractions in words: "half of", "a third of", "one-third", "two thirds", "three quarters".
_FRACTION_PARTS = {
    "half": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4, "fifth": 5,
    "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9,
    "ninths": 9, "tenth": 10, "tenths": 10,
}


_FRACTION_WORDS = re.compile(
    r"(?i)(?<![\w-])(?<!and[ \t])(?:(?P<count>an?|" + _alternatives([*_ONES, "ten"]) + r")(?P<join>[ \t]|-))?"
    r"(?P<part>" + _alternatives(_FRACTION_PARTS) + r")(?![\w-])"
    r"(?P<of>[ \t]+(?:of|the|its|their|his|her|our|your|my|all|this|that|these|those)\b|[ \t]*(?:[.,;:!?)]|$))?"
)


#: Words joined to digits by a hyphen that make no name of them ("mid-2020", "pre-1900", "Jan-2021").
_NUMBER_PREFIXES = frozenset({"mid", "pre", "post", "early", "late", "circa", "ca", "top", "over", "under", "non", "anti",
                              "ex", "sub", "pro", "up", "around", "about", "from", "to", "since", "until", "by", *MONTHS})


def _in_name(text: str, start: int) -> bool:
    """Whether the digits at ``start`` are part of a name or model joined by a hyphen: ``COVID-19``, ``F-35``, ``B-52``."""
    if start < 2 or text[start - 1] not in "-‐‑":
        return False
    begin = start - 1
    while begin > 0 and text[begin - 1].isalpha():
        begin -= 1
    word = text[begin:start - 1]
    return bool(word) and word.casefold() not in _NUMBER_PREFIXES


#: What joins the two ends of a range: "5-10", "5 to 10", "between 5 and 10", "2 or 3".
_RANGE_JOIN = re.compile(r"(?:[ \t]*[-–—][ \t]*|[ \t]+(?:to|and|or|through)[ \t]+)\Z")


@keeps_text
def number_facts(text: str) -> tuple[Fact, ...]:
    """Every number of ``text`` with its unit; a duration written in parts ("an hour and 35 minutes") is one fact.

    >>> [(f.value, f.unit, f.approx) for f in number_facts("about 5-10 km, two thirds of it")]
    [(5000.0, 'm', True), (10000.0, 'm', False), (0.6666666666666666, None, False)]
    """
    found = sorted([*_single_numbers(text), *_unit_words(text), *_fraction_words(text)], key=lambda f: (f.start, -len(f.text)))
    merged: list[Fact] = []
    for fact in found:
        last = merged[-1] if merged else None
        if last is not None and fact.start < last.start + len(last.text):
            continue  # "two" of "two thirds"
        # The parts of one duration go from larger units to smaller ("2 hours, 7 minutes and 42 seconds"); "2 hours 9
        # minutes, two minutes ahead" is two durations.
        if (last is not None and last.unit == "s" and fact.unit == "s" and last.step > fact.step
                and (_DURATION_JOIN.match(text[last.start + len(last.text):fact.start])
                     or _DURATION_SPACE.match(text[last.start + len(last.text):fact.start]))):
            merged[-1] = Fact("number", text[last.start:fact.start + len(fact.text)], last.value + fact.value, "s",
                              min(last.step, fact.step), last.start, approx=last.approx)
        else:
            merged.append(fact)
    return tuple(merged)


def _unit_words(text: str) -> Iterable[Fact]:
    """Durations written without digits: "half an hour", and "an hour" at the head of a longer duration."""
    for pattern, amount in ((_HALF_A, 0.5), (_ONE_A, 1.0)):
        for match in pattern.finditer(text):
            unit, factor = _BASE.get(UNITS[match.group("unit").lower()], (UNITS[match.group("unit").lower()], 1.0))
            yield Fact("number", match.group(0), amount * factor, unit, amount * factor, match.start(),
                       approx=is_hedged(text, match.start(), match.end()))


_MAYBE_FRACTION = re.compile(r"(?i)half|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth")


def _fraction_words(text: str) -> Iterable[Fact]:
    """Fractions in words: "half of" (0.5), "a third of", "one-third", "two thirds", "three quarters" (0.75).

    An ordinal is no fraction ("the third quarter", "a third party"): a singular part counts after "a" or "one"
    joined by a hyphen or before "of" (or the end of a clause), "half" alone before "of", "the" and the like.
    """
    if not _MAYBE_FRACTION.search(text):
        return
    for match in _FRACTION_WORDS.finditer(text):
        part, count, after = match.group("part").lower(), (match.group("count") or "").lower(), match.group("of")
        if part.endswith("s"):
            if count in ("", "a", "an", "one"):
                continue
        elif count in ("a", "an", "one"):
            if match.group("join") != "-" and after is None:
                continue
        elif count or part != "half" or after is None or not after.strip().isalpha():
            continue
        number = _WORD_VALUES.get(count, 1)
        end = match.end("part")
        yield Fact("number", text[match.start():end], number / _FRACTION_PARTS[part], None, FRACTION_STEP, match.start(),
                   approx=is_hedged(text, match.start(), end))


def _single_numbers(text: str) -> list[Fact]:
    """The numbers of ``text`` one by one, those of a range sharing its unit and magnitude ("5-10%": 5% and 10%)."""
    read: list[tuple[Fact, float, float, float, bool]] = []  # each fact, its number as written, magnitude, unit factor, ordinal
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
        if unit in _BASE:
            unit, factor = _BASE[unit]
            value *= factor
            step *= factor
        if match.group("ord"):
            kind = "number"
        elif unit == "%":
            kind = "percent"
        elif unit in CURRENCY_WORDS.values():
            kind = "money"
        elif not word and not scale and unit is None and step == 1.0 and 1000 <= value <= 2100 and match.group("num").isdigit():
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
        if (first_ordinal or second_ordinal or first.start + len(first.text) > second.start
                or not _RANGE_JOIN.match(text, first.start + len(first.text), second.start)):
            continue
        if first_raw < second_raw:
            if first_magnitude == 1.0 and second_magnitude != 1.0:
                first = replace(first, value=first.value * second_magnitude, step=first.step * second_magnitude,
                                kind="number" if first.kind == "year" else first.kind)
            if first.unit is None and second.unit is not None:
                first = replace(first, value=first.value * second_factor, step=first.step * second_factor,
                                unit=second.unit, kind=second.kind)
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
_SPLIT_UNIT = re.compile(r"(\d|\b(?i:" + "|".join(NUMBER_WORDS) + r"))[ \t]-[ \t](?=(?i:" + _UNIT_ALTERNATIVES + r")(?!\w))")


#: A no-break, figure, thin or narrow space after a number and before its unit ("24\u00a0mm", "232,752 \u00a0km"): one space.
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
        out.append(text[cursor:fact.start])
        out.append(f" {token} ")
        cursor = fact_end(fact)
    out.append(text[cursor:])
    return "".join(out)
