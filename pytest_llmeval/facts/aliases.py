"""Other ways of writing a name: codes, initialisms and demonyms (offline, deterministic).

An answer may write a name in another form than its context does: a code (``CA`` /
``California``, ``US`` / ``United States`` / ``America``, ``UK`` / ``Britain``), an
initialism (``U.N.`` / ``United Nations``, ``NASA`` / ``National Aeronautics and Space
Administration``) or a demonym (``British`` / ``Britain``, ``Polish`` / ``Poland``).
`supports()` asks `alias_supported()`
when the words of a name are not all in the context.

- **initialisms**, from any run of capitalised words: a name written in capitals is
  supported by a run whose initials spell it (ignoring "of", "and", "the", "for", or
  with them: ``DOJ``), and a stretch of a name by its initialism in capitals;
- **countries** (names, common and official names, alpha-2 and alpha-3 codes) and
  their **subdivisions** (``US-CA``: ``California``, ``CA``) from ``pycountry``, with
  forms read off those names (``America`` from ``United States of America``,
  ``Britain`` and ``UK`` from ``United Kingdom of Great Britain ...``); demonyms and
  other spellings (``French``, ``Holland``) from ``countryinfo`` where it is installed.
  Without these libraries only the initialisms and the demonym rules apply. A
  subdivision code is read for every country ("CA" is California and Canada);
- **demonyms** by their endings (`demonym_forms()`).

>>> sorted(initialisms("The United Nations High Commissioner for Refugees") & {"un", "unhcr", "us"})
['un', 'unhcr']
>>> sorted(demonym_forms("british") & {"britain", "france"})
['britain']
"""

from __future__ import annotations

import importlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from .names import CONNECTORS, DEMONYM, FUNCTION_WORDS, TITLES, WORD, fold, inflection_of

__all__ = [
    "doctrine_forms",
    "ContextForms",
    "Places",
    "alias_supported",
    "capital_words",
    "context_forms",
    "demonym_forms",
    "initialisms",
    "name_key",
    "places",
]

#: A name as looked up: its words' bases, without connectors, function words and titles.
Key = tuple[str, ...]

_VOWELS = "aeiouy"

#: A place name's endings in the stead of a demonym's (`DEMONYM`): America-n /
#: America, Canad-ian / Canad-a, Japan-ese / Japan.
_PLACE_ENDINGS = ("", *_VOWELS)

#: The endings of the place of an "-ish" demonym: Brit-ish / Brit-ain, Pol-ish / Pol-and, Swed-ish / Swed-en,
#: Turk-ish / Turk-ey; Finn-ish / Fin-land and Scott-ish / Scot-land double a consonant.
ISH_PLACES = ("ain", "and", "en", "ey")

#: Words an initialism skips inside a run of capitalised words ("United Nations High Commissioner for Refugees").
INITIALISM_GAPS = frozenset({"of", "and", "the", "for"})

#: The most words of a stretch whose initials are read (of a run of capitalised words, or of a name).
LONGEST_RUN = 12


@lru_cache(maxsize=1 << 16)
def doctrine_forms(word: str) -> set[str]:
    """The doctrine and its adherent or adjective of a folded word: ``stoic`` -> ``stoicism``, ``buddhist`` ->
    ``buddhism``,
    ``stoicism`` -> ``stoic`` and ``stoicist``; none for a short word.

    >>> sorted(doctrine_forms("buddhist")), sorted(doctrine_forms("stoicism"))
    (['buddhism', 'buddhistism'], ['stoic', 'stoicist'])
    """
    if len(word) < 4:
        return set()
    if word.endswith("ism"):
        return {word[:-3], word[:-3] + "ist"}
    return {word + "ism", *([word[:-3] + "ism"] if word.endswith("ist") else [])}


def demonym_forms(base: str) -> frozenset[str]:
    """The words a demonym, or a place name, may stand for by its ending (both ways, one step).

    >>> "canada" in demonym_forms("canadian"), "canadian" in demonym_forms("canada")
    (True, True)
    >>> "scotland" in demonym_forms("scottish") and "scottish" in demonym_forms("scotland")
    True
    >>> sorted(demonym_forms("nazis") & {"nazi"}), sorted(demonym_forms("israel") & {"israelis"})
    (['nazi'], ['israelis'])
    """
    forms: set[str] = set()
    words = [base]
    if base.endswith("is") and len(base) > 4:
        forms.add(base[:-1])  # the plural of a demonym in -i: "Nazis", "Israelis"
        if len(base) > 7:
            words.append(base[:-1])
    for word in words:
        for ending in DEMONYM:
            if len(word) > len(ending) + 2 and word.endswith(ending):
                stem = word[: len(word) - len(ending)]
                forms.update([stem + place for place in _PLACE_ENDINGS])
        for ending in _PLACE_ENDINGS:
            if word.endswith(ending):
                stem = word[: len(word) - len(ending)]
                forms.update([stem + demonym for demonym in DEMONYM])
        if len(word) > 5 and word.endswith("ish"):
            stem = word[:-3]
            forms.update(stem + place for place in ISH_PLACES)
            if stem[-1] == stem[-2]:
                forms.add(stem[:-1] + "land")
        for place in (*ISH_PLACES, "land"):
            stem = word[: len(word) - len(place)]
            if word.endswith(place) and len(stem) >= 3:
                forms.add(stem + stem[-1] + "ish" if place == "land" else stem + "ish")
    forms.update([form + "s" for form in forms if form.endswith("i")] + ([base + "s"] if base.endswith("i") else []))
    forms.discard(base)
    return frozenset(forms)


def name_key(name: str | Iterable[str]) -> Key:
    """A name as looked up: the bases of its words, without connectors, function words and titles (``"Republic of
    Korea"``: ``("republic", "korea")``); ``name`` is a text or its words."""
    words = [m.group(0) for m in WORD.finditer(name)] if isinstance(name, str) else list(name)
    return tuple(
        inflection_of(w)
        for w in words
        if w.casefold() not in CONNECTORS and w.casefold() not in FUNCTION_WORDS and fold(w) not in TITLES
    )


def _phrase(name: str) -> Key:
    """A name as found in a text: the bases of its words without connectors and titles (see `context_forms()`)."""
    return tuple(
        inflection_of(m.group(0))
        for m in WORD.finditer(name)
        if m.group(0).casefold() not in CONNECTORS and fold(m.group(0)) not in TITLES
    )


def _initials(key: Sequence[str]) -> str:
    return "".join(word[:1] for word in key)


@dataclass(frozen=True)
class Places:
    """Countries and their subdivisions by name and by code (see `places()`); a place is its ISO code."""

    #: The places a name (as `name_key()` gives it) may stand for, in any form.
    by_key: Mapping[Key, frozenset[str]]
    #: The places a code (folded: ``"us"``, ``"usa"``, ``"ca"``) stands for.
    by_code: Mapping[str, frozenset[str]]
    #: A place's names as a text writes them (see `_phrase()`): those that name it alone.
    names: Mapping[str, frozenset[Key]]
    #: A place's codes.
    codes: Mapping[str, frozenset[str]]


def _derived_forms(name: str, official: bool) -> list[str]:
    """Shorter forms of a country's name: before a comma ("Bolivia, Plurinational State of": "Bolivia"), turned
    round ("Republic of Korea", "British Virgin Islands"), the places a comma lists ("Sint Eustatius", "Saba"), and
    after the "of" of an official name ("America"; "Great Britain", "Britain", "Northern Ireland")."""
    forms = []
    head, comma, tail = name.partition(", ")
    inverted = bool(comma) and tail.endswith((" of", " of the"))
    if comma:
        forms.append(head)
        if inverted or len(tail.split()) == 1:
            forms.append(f"{tail} {head}")
        elif " and " in tail:
            forms.extend(tail.split(" and "))
    full = f"{tail} {head}" if inverted else name
    if (official or inverted) and " of " in full:
        after = full.split(" of ", 1)[1]
        forms.append(after)
        parts = after.split(" and ")
        if len(parts) > 1 and all(len(part.split()) > 1 for part in parts):
            forms += parts + [part.split()[-1] for part in parts]
    return forms


def _countryinfo() -> Iterable[tuple[str, str, bool]]:
    """(alpha-2 code, other name, whether a demonym) of each country ``countryinfo`` knows, where it is installed."""
    try:
        data: Mapping[str, Any] = importlib.import_module("countryinfo").CountryInfo.all()
    except (ImportError, AttributeError, OSError, ValueError):
        return
    for entry in data.values():
        code = (entry.get("ISO") or {}).get("alpha2")
        if isinstance(code, str):
            for number, form in enumerate([entry.get("demonym"), *(entry.get("altSpellings") or [])]):
                if isinstance(form, str) and form:
                    yield code, form, number == 0


@lru_cache(maxsize=1)
def places() -> Places:
    """The countries and subdivisions of ``pycountry`` (and ``countryinfo``'s demonyms and spellings), loaded once;
    empty without ``pycountry``.

    A form read off a name ("America", "UK") or taken from ``countryinfo`` counts when it is no country's own name;
    it names its place for the context only when it names no other ("Korea" does not), unless it is a demonym
    ("French": France, Martinique ...).
    """
    try:
        import pycountry
    except ImportError:
        return Places({}, {}, {}, {})
    names: dict[str, set[str]] = defaultdict(set)
    codes: dict[str, set[str]] = defaultdict(set)
    derived: dict[str, set[str]] = defaultdict(set)
    demonyms: dict[str, set[str]] = defaultdict(set)
    derived_codes: dict[str, set[str]] = defaultdict(set)
    for country in pycountry.countries:
        place = country.alpha_2
        written = {
            n
            for n in (country.name, getattr(country, "common_name", None), getattr(country, "official_name", None))
            if n
        }
        names[place] |= written
        codes[place] |= {country.alpha_2.casefold(), country.alpha_3.casefold()}
        for name in written:
            for form in _derived_forms(name, official=name == getattr(country, "official_name", None)):
                derived[form].add(place)
    for place, form, demonym in _countryinfo():
        if place in names:
            if form.isalpha() and form.isupper() and len(form) <= 3:
                derived_codes[form.casefold()].add(place)
            else:
                (demonyms if demonym else derived)[form].add(place)
    own = {name_key(n) for written in names.values() for n in written}
    taken = {code: place for place, cs in codes.items() for code in cs}
    by_key: dict[Key, set[str]] = defaultdict(set)
    phrases: dict[str, set[Key]] = defaultdict(set)
    for place, written in names.items():
        for name in written:
            by_key[key := name_key(name)].add(place)
            phrases[place].add(_phrase(name))
            if len(key) > 1:
                derived_codes[_initials(key)].add(place)  # "UK", "UAE"
    named: dict[Key, set[str]] = defaultdict(set)
    for form, owners in derived.items():
        named[name_key(form)] |= owners
    for form, owners in (*derived.items(), *demonyms.items()):
        key = name_key(form)
        if not key or key in own:
            continue  # a country's own name ("Northern Ireland": "Ireland", "Taiwan, Province of China": "China")
        by_key[key] |= owners
        if form in demonyms or len(named[key]) == 1:
            for place in owners:
                phrases[place].add(_phrase(form))
    for code, owners in derived_codes.items():
        if len(owners) == 1 and taken.get(code, next(iter(owners))) in owners:
            codes[next(iter(owners))].add(code)  # not "SA" (Saudi Arabia's) for South Africa
    for subdivision in pycountry.subdivisions:
        place, suffix = subdivision.code, subdivision.code.partition("-")[2]
        by_key[name_key(subdivision.name)].add(place)
        phrases[place].add(_phrase(subdivision.name))
        if suffix.isalpha() and 2 <= len(suffix) <= 3:
            codes[place].add(suffix.casefold())
    by_code: dict[str, set[str]] = defaultdict(set)
    for place, cs in codes.items():
        for code in cs:
            by_code[code].add(place)
    return Places(
        {k: frozenset(v) for k, v in by_key.items() if k},
        {k: frozenset(v) for k, v in by_code.items()},
        {k: frozenset(p for p in v if p) for k, v in phrases.items()},
        {k: frozenset(v) for k, v in codes.items()},
    )


def _is_capitals(word: str) -> bool:
    """Written in capitals as a code or initialism is ("NASA", "U.N.", "DoD"), not a capitalised word ("McDonald")."""
    if word[1:] == word[1:].lower():
        return False
    letters = [ch for ch in word if ch.isalpha()]
    return sum(ch.isupper() for ch in letters) >= 2 and (word.isupper() or len(letters) <= 5)


def capital_words(text: str) -> frozenset[str]:
    """The words of ``text`` written in capitals, folded (``"U.S.-based NASA"``: ``us``, ``nasa``).

    >>> sorted(capital_words("The U.S.-based NASA and the DoD met McDonald."))
    ['dod', 'nasa', 'us']
    """
    return frozenset(
        fold(part) for match in WORD.finditer(text) for part in match.group(0).split("-") if _is_capitals(part)
    )


def initialisms(text: str) -> frozenset[str]:
    """The initials of each stretch of two or more words of each run of capitalised words of ``text``, without and
    with the "of", "and", "the", "for" inside ("Department of Justice": ``dj``, ``doj``).

    >>> sorted(initialisms("the National Aeronautics and Space Administration") & {"nasa", "naasa", "ns", "nsa"})
    ['naasa', 'nasa']
    """
    found: set[str] = set()
    run: list[tuple[str, bool]] = []  # (initial, a skipped word)

    def flush() -> None:
        while run and run[-1][1]:
            run.pop()
        for start in range(len(run)):
            if run[start][1]:
                continue
            for end in range(start + 2, min(len(run), start + LONGEST_RUN) + 1):
                stretch = run[start:end]
                if not stretch[-1][1] and sum(not gap for _, gap in stretch) >= 2:
                    found.add("".join(i for i, gap in stretch if not gap))
                    found.add("".join(i for i, _ in stretch))
        run.clear()

    previous_end = 0
    for match in WORD.finditer(text):
        if text[previous_end : match.start()].strip() and previous_end:
            flush()  # punctuation between the words ends a run
        previous_end = match.end()
        for part in match.group(0).split("-"):
            if part[:1].isupper():
                run.append((fold(part)[:1], False))
            elif run and part in INITIALISM_GAPS:
                run.append((part[:1], True))
            else:
                flush()
    flush()
    return frozenset(found)


class ContextForms(NamedTuple):
    """What a context offers for the names written another way (see `context_forms()`)."""

    #: Its words written in capitals (codes, initialisms).
    capitals: frozenset[str]
    #: The initialisms of its runs of capitalised words.
    initialisms: frozenset[str]
    #: Its words' bases, without connectors and titles, space-separated and padded (" | " between sentences).
    phrases: str
    #: Its words' bases.
    bases: frozenset[str]


def context_forms(sentences: Sequence[str]) -> ContextForms:
    """The codes, initialisms and word sequence of a context's sentences; no codes from a sentence of several words
    written all in capitals (a heading's "IN" or "US" is no code)."""
    capitals: set[str] = set()
    runs: set[str] = set()
    phrases: list[str] = []
    for sentence in sentences:
        if not (sentence.isupper() and len(sentence.split()) > 1):
            capitals |= capital_words(sentence)
        runs |= initialisms(sentence)
        phrases.append(" ".join(_phrase(sentence)))
    joined = " " + " | ".join(phrases) + " "
    words = set(joined.split())
    words.update(part for word in list(words) if "-" in word or "." in word for part in re.split(r"[-.]", word) if part)
    return ContextForms(frozenset(capitals), frozenset(runs), joined, frozenset(words))


def _present(phrase: Key, context: ContextForms) -> bool:
    """A place's name occurs in the context: as a whole, or for one word, as a demonym ("American" for "America")."""
    if len(phrase) == 1:
        return phrase[0] in context.bases or not context.bases.isdisjoint(demonym_forms(phrase[0]))
    return f" {' '.join(phrase)} " in context.phrases


def _place_stated(place: str, context: ContextForms, table: Places) -> bool:
    return not context.capitals.isdisjoint(table.codes.get(place, ())) or any(
        _present(p, context) for p in table.names.get(place, ())
    )


def _code_stated(code: str, context: ContextForms) -> bool:
    """A name written in capitals ("UN", "CA") is an initialism of the context, or the code of a place it states."""
    if code in context.initialisms:
        return True
    table = places()
    return any(_place_stated(place, context, table) for place in table.by_code.get(code, ()))


def _initialism_stated(key: Key, initials: Iterable[str], context: ContextForms) -> bool:
    """Some initials of a name are a word of the context in capitals, and not another country's code ("South Korea"
    is not "SK", Slovakia's; "Los Angeles" is "LA", though Laos's, as no country is named so)."""
    table = places()
    named = table.by_key.get(key, frozenset())
    return any(
        code in context.capitals
        and not (named and any(len(p) == 2 and p not in named for p in table.by_code.get(code, ())))
        for code in initials
    )


def _name_stated(words: Sequence[str], context: ContextForms) -> bool:
    """A stretch of a name is stated as its initialism ("United Nations": "UN"), or is a place's name, common name or
    demonym of which the context states a code or another name ("America": "US")."""
    key = name_key(words)
    if not key:
        return False
    if len(key) > 1 and _initials(key) in context.capitals and _initialism_stated(key, [_initials(key)], context):
        return True
    table = places()
    keys = [key] if key in table.by_key or len(key) > 1 else [(form,) for form in demonym_forms(key[0])]
    return any(_place_stated(place, context, table) for k in keys for place in table.by_key.get(k, ()))


def alias_supported(text: str, words: Sequence[str], context: ContextForms, has_word: Callable[[str], bool]) -> bool:
    """Whether a name (``text`` as written, ``words`` folded) is stated in the context written another way.

    The name is supported when its words can be cut into stretches each of which the context states: a word found as
    it is (``has_word``: `has_word()`), a word written
    in capitals that is an initialism or code of the context (`_code_stated()`), or a stretch whose initialism
    or place name the context states (`_name_stated()`); or when the initials of the whole name as written
    (with or without "of", "and", "the", "for") are a word of the context in capitals.
    """
    written = [m.group(0) for m in WORD.finditer(text)]
    if len(written) > 1:
        kept = [w for w in written if w.casefold() not in INITIALISM_GAPS]
        codes = {_initials([fold(w) for w in written]), _initials([fold(w) for w in kept])} & context.capitals
        if codes and _initialism_stated(name_key(words), codes, context):
            return True
    capitals = capital_words(text)
    reached = [True] + [False] * len(words)
    for start in range(len(words)):
        if not reached[start]:
            continue
        for end in range(start + 1, min(len(words), start + LONGEST_RUN) + 1):
            if reached[end]:
                continue
            stretch = words[start:end]
            if end == start + 1 and (
                has_word(stretch[0]) or (stretch[0] in capitals and _code_stated(stretch[0], context))
            ):
                reached[end] = True
            elif _name_stated(stretch, context):
                reached[end] = True
    return reached[-1]
