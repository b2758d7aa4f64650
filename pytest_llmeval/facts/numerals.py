"""Numbers as written: digits (``1,280``, ``2.50``, ``1 300``), fractions (``3/4``, ``1½``, ``two thirds``) and number
words (``one hundred and twenty``, ``half a dozen``), with the magnitude and unit after them and the precision they
are written to. `pytest_llmeval.facts.parsing` reads the numbers of a text with them.

>>> parse_number("15.9 million"), [f.value for f in fraction_words("three quarters of it")]
((15900000.0, 100000.0), [0.75])
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable

from .fact import Fact, is_hedged
from .units import CURRENCY_WORDS, SCALES, UNIT_ALTERNATIVES

__all__ = ["FRACTION_STEP", "NUMBER", "NUMBER_WORDS", "fraction_words", "number_value", "parse_number", "scaled"]


NUMBER_WORDS = {
    "zero": 0,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "dozen": 12,
}


_ONES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


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
_TO_99 = (
    f"(?:(?:{_alternatives(_TENS)})(?:[- ](?:{_ONE_TO_NINE}))?|{_alternatives(_TEENS)}"
    f"|{_alternatives(w for w in _ONES if w != 'one')}|zero)"
)
_TO_99_ONE = f"(?:{_TO_99}|one)"
#: "a hundred", "two hundred and five", "one hundred twenty".
_HUNDREDS = f"(?:an?|{_ONE_TO_NINE})[ \\t-]hundred(?:[ \\t](?:and[ \\t])?{_TO_99_ONE})?"
_WORD_NUMBER = (
    f"(?:(?:{_HUNDREDS}|{_TO_99}|an?|one)[ \\t-]thousand(?:[ \\t](?:and[ \\t])?(?:{_HUNDREDS}|{_TO_99_ONE}))?"
    f"|{_HUNDREDS}|(?:(?:half[ \\t]an?|an?|{_TO_99_ONE})[ \\t-])?dozen|{_TO_99}"
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
NUMBER = re.compile(
    r"(?P<cur>(?:US)?\$|[€£¥₹])?[ \t]?"
    r"(?:(?<![\w.,])|(?<=\d[x×]))(?P<sign>(?<![\w\d])[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    # thousands set apart by a no-break or thin space ("1 300"), or by spaces in two groups or more ("1 300 000")
    r"|\d{1,3}(?:[\u00a0\u202f\u2009]\d{3})+(?![\d,])(?:\.\d+)?|\d{1,3}(?: \d{3}){2,}(?![\d,])(?:\.\d+)?"
    r"|(?:\d{1,2}[ \t])?(?<![\d/])[1-9]/(?:" + _DENOMINATORS + r")(?![\d/])|\d{0,3}[" + _VULGAR + r"]"
    r"|\d+(?:\.\d+)?|\.\d+"
    r"|(?i:" + _WORD_NUMBER + r"))"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?:[ \t]?-?[ \t]?(?P<scale>(?i:"
    + "|".join(sorted(SCALES, key=len, reverse=True))
    + r"))(?!\w|\.\w)"  # not "B.C."
    r"|(?!\w)|(?=(?i:" + UNIT_ALTERNATIVES + r")(?!\w)))"
    r"(?:(?:[ \t]|-(?=[^\W\d]))?(?P<unit>(?i:" + UNIT_ALTERNATIVES + r"))(?!\w))?"
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
    """Value and step of number words: ``a hundred and five`` is 105 (to 1), ``two thousand five hundred`` 2,500 (to
    100).

    >>> _word_value("half a dozen")
    (6.0, 1.0)
    """
    tokens = re.findall(r"[a-z]+", words.lower())
    half = tokens[:1] == ["half"]
    total = current = 0.0
    step = 1.0
    for token in tokens[2 if half else 0 :]:
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


#: Fractions in words: "half of", "a third of", "one-third", "two thirds", "three quarters".
_FRACTION_PARTS = {
    "half": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "eighth": 8,
    "eighths": 8,
    "ninth": 9,
    "ninths": 9,
    "tenth": 10,
    "tenths": 10,
}


_FRACTION_WORDS = re.compile(
    r"(?i)(?<![\w-])(?<!and[ \t])(?:(?P<count>an?|" + _alternatives([*_ONES, "ten"]) + r")(?P<join>[ \t]|-))?"
    r"(?P<part>" + _alternatives(_FRACTION_PARTS) + r")(?![\w-])"
    r"(?P<of>[ \t]+(?:of|the|its|their|his|her|our|your|my|all|this|that|these|those)\b|[ \t]*(?:[.,;:!?)]|$))?"
)


_MAYBE_FRACTION = re.compile(r"(?i)half|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth")


def fraction_words(text: str) -> Iterable[Fact]:
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
        yield Fact(
            "number",
            text[match.start() : end],
            number / _FRACTION_PARTS[part],
            None,
            FRACTION_STEP,
            match.start(),
            approx=is_hedged(text, match.start(), end),
        )
