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

The facts of a text are collected by `pytest_llmeval.facts.collect`; numbers,
units, dates and times are read by `pytest_llmeval.facts.parsing`, words and
names by `pytest_llmeval.facts.names`; what they define can be imported from
here too.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..text.basics import split_sentences
from .aliases import ContextForms, alias_supported, context_forms, demonym_forms, doctrine_forms
from .collect import extract_facts
from .dates import MONTHS
from .fact import Fact
from .names import WORD, fold, inflection_of, TYPO_MIN_LENGTH, one_typo, word_stem
from .negation import clause_index, content_words, polarity_conflict
from .numerals import NUMBER, number_value, scaled
from .parsing import detokenize_numbers
from .units import CURRENCY_SYMBOLS, CURRENCY_WORDS, SCALES

if TYPE_CHECKING:
    from .syntax import Parsed

__all__ = [
    "FactIndex",
    "FactCheck",
    "extract_facts",
    "unsupported_facts",
    "check_facts",
    "EXTRACTORS",
    "GLUED",
    "join_chunks",
    "ordinal_century",
    "raw_number",
]


#: Names of the entity extractors: rule-based, spaCy's small English model, or spaCy when installed.
EXTRACTORS = ("auto", "rules", "spacy")


_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.(\d+)(?![\d.])")


_ORDINAL_CENTURY = re.compile(r"(?i)^(\d{1,2})(?:st|nd|rd|th)[ \t-]*centur")


def ordinal_century(fact: Fact) -> int | None:
    """The century an ordinal names ("19th century": 19), a period of years rather than an amount; else ``None``."""
    match = _ORDINAL_CENTURY.match(fact.text) if fact.unit == "year" else None
    return int(match.group(1)) if match else None


#: A lower-case letter followed by a capital inside a word: two words glued ("LeoniTéa").
GLUED = re.compile(r"(?<=[^\W\d_])(?<=[a-zß-öø-ÿ])(?=[A-ZÀ-ÖØ-Þ])")


def join_chunks(text: str | Sequence[str]) -> str:
    """A context given as chunks, as the fact layer reads (and parses) it: the chunks joined by blank lines."""
    return text if isinstance(text, str) else "\n\n".join(text)


class FactIndex:
    """The facts and words of a context, indexed for support look-ups.

    ``parsed`` is the parse of the (joined) text, for its names; without one,
    ``nlp`` or the capitalisation rules find them.
    """

    def __init__(self, text: str | Sequence[str], *, nlp: Any = None, parsed: Parsed | None = None) -> None:
        chunks = [text] if isinstance(text, str) else list(text)
        self.text = join_chunks(chunks)
        #: Every fact of the text, in order.
        self.facts = extract_facts(self.text, nlp=nlp, parsed=parsed)
        self.numbers = [f for f in self.facts if f.kind in ("number", "percent", "money", "year", "time")]
        self.dates = [f.value for f in self.facts if f.kind == "date"]
        self._words: set[str] | None = None
        self._currencies: set[str] | None = None
        self._bases: set[str] | None = None
        self._sorted_stems: list[str] | None = None
        self._clauses: list[tuple[str, set[str], bool]] | None = None
        self._by_initial: dict[str, list[str]] | None = None
        self._aliases: ContextForms | None = None
        self._found: dict[str, bool] = {}
        self._joined: set[str] | None = None
        self.sentences = [s for chunk in chunks for s in (split_sentences(chunk) or [chunk.strip()]) if s]

    @property
    def words(self) -> set[str]:
        """The text's words, folded (found on the first look-up of a name)."""
        if self._words is None:
            words = [m.group(0) for m in WORD.finditer(detokenize_numbers(self.text))]
            folded = {fold(w) for w in words}
            for word in set(words):
                # Hyphenated and dotted words count whole and in parts ("Irish-American", "U.S."), and so do words
                # glued together without a space ("LeoniTéa", as text pasted from tables comes).
                if "-" in word or "." in word:
                    folded.update(fold(part) for part in re.split(r"[-.]", word) if part)
                if not word.islower() and GLUED.search(word):
                    folded.update(fold(part) for part in GLUED.split(word) if part)
            self._words = folded
        return self._words

    @property
    def bases(self) -> set[str]:
        """The words without plural or possessive endings (found on the first look-up of a name)."""
        if self._bases is None:
            self._bases = {inflection_of(w) for w in self.words if w}
        return self._bases

    @property
    def sorted_stems(self) -> list[str]:
        if self._sorted_stems is None:
            self._sorted_stems = sorted({word_stem(w) for w in self.words if w})
        return self._sorted_stems

    # -- support ---------------------------------------------------------------

    def supports(self, fact: Fact) -> bool:
        """Whether the context states ``fact``."""
        if fact.kind == "name":
            if fact.weak and all(self._shares_stem(word) for word in fact.value):
                return True
            if self.has_words(fact.value):
                return True
            # Written another way: "CA" / "California", "U.N." / "United Nations", "British" / "UK".
            if self._aliases is None:
                self._aliases = context_forms(self.sentences)
            return alias_supported(fact.text, fact.value, self._aliases, self.has_word)
        if fact.kind == "date":
            return self._supports_date(fact)
        return self._supports_number(fact)

    def has_word(self, word: str) -> bool:
        """A word of a name occurs in the context, up to case, accents, inflection and demonyms.

        ``Canadians`` is found by ``Canadian``; ``American`` by ``America`` and
        ``Italian`` by ``Italy`` (a demonym ending on the place name, whose final
        vowel may drop), ``British`` by ``Britain`` and ``Nazis`` by ``Nazi``
        (`demonym_forms()`); ``Walker`` is not
        found by ``walk``, nor ``Paula`` by ``Paul``. Each word is looked up once.
        """
        found = self._found.get(word)
        if found is None:
            found = self._found[word] = self._look_up(word)
        return found

    def _look_up(self, word: str) -> bool:
        if word in self.words:
            return True
        parts = [p for p in re.split(r"[-.]", word) if p]
        if len(parts) > 1:
            return all(self.has_word(p) for p in parts)
        base = inflection_of(word)
        if base in self.bases:
            return True
        if not self.bases.isdisjoint(demonym_forms(base)):
            return True
        # A doctrine's adherent or adjective ("Stoic" / "Stoicism", "Buddhist" / "Buddhism"), and two words written as
        # one
        # ("HunterGirl" / "Hunter Girl").
        if not self.words.isdisjoint(doctrine_forms(base)) or word in self.joined:
            return True
        return self._misspelt(word)

    def has_words(self, value: Sequence[str]) -> bool:
        """Every word of a name found (`has_word`), or some two neighbours of it written as one word in the text and the
        others found ("Super Bowl" where the text says "superbowl", "Spider Man" where it says "Spiderman")."""
        if all(self.has_word(word) for word in value):
            return True
        together = {i for i, pair in enumerate(zip(value, value[1:])) if fold("".join(pair)) in self.words}
        return bool(together) and all(
            self.has_word(word) for i, word in enumerate(value) if i not in together and i - 1 not in together
        )

    @property
    def joined(self) -> set[str]:
        """Each two neighbouring words of the text written as one, folded (made on first use)."""
        if self._joined is None:
            words = [fold(m.group(0)) for m in WORD.finditer(self.text)]
            self._joined = {left + right for left, right in zip(words, words[1:])}
        return self._joined

    def _misspelt(self, word: str) -> bool:
        """A long word of the context one typo away (a letter added, dropped, changed or two swapped, not the first):
        "Siddharta" for "Siddhartha"; a short one only with a letter doubled or single ("Raj" for "Raaj", "Philip" for
        "Phillip"); other short words are left alone ("Paula" is not "Paul")."""
        if len(word) < 3:
            return False
        if self._by_initial is None:
            self._by_initial = {}
            for known in self.words:
                if len(known) >= 3:
                    self._by_initial.setdefault(known[:1], []).append(known)
        if len(word) < TYPO_MIN_LENGTH:
            return any(
                _undoubled(word) == _undoubled(known) and word != known for known in self._by_initial.get(word[:1], ())
            )
        return any(
            abs(len(known) - len(word)) <= 1 and len(known) >= TYPO_MIN_LENGTH - 1 and one_typo(word, known)
            for known in self._by_initial.get(word[:1], ())
        )

    def _shares_stem(self, word: str) -> bool:
        """Some source word begins with the word's stem ("open" / "opening", "born" / "borne")."""
        stem = word_stem(word)
        stems = self.sorted_stems
        index = bisect.bisect_left(stems, stem)
        if len(stem) < 3:
            return index < len(stems) and stems[index] == stem
        return index < len(stems) and stems[index].startswith(stem)

    @property
    def currencies(self) -> set[str]:
        """The currencies the text speaks of: of its amounts, or named anywhere ("figures are in US dollars")."""
        if self._currencies is None:
            named = {CURRENCY_WORDS[m.group(0).casefold()] for m in _CURRENCY_NAMES.finditer(self.text)}
            named |= {CURRENCY_SYMBOLS[symbol] for symbol in CURRENCY_SYMBOLS if symbol in self.text}
            self._currencies = named | {f.unit for f in self.numbers if f.kind == "money" and f.unit}
        return self._currencies

    def _supports_number(self, fact: Fact) -> bool:
        if fact.kind == "money" and fact.unit and self.currencies and fact.unit not in self.currencies:
            return False  # "16 billion Real" where the text's figures are in US dollars
        split = _DECIMAL.search(fact.text)
        if split and re.search(rf"(?<![\d.]){split.group(1)}\. {split.group(2)}(?!\d)", self.text):
            return True  # "122.5" where a tokenised text writes "122. 5" (a split this reader does not join on its own)
        century = ordinal_century(fact)
        if century is not None:  # "the 19th century": the text names a year of it, or the same century
            return any(
                century * 100 - 99 <= int(o.value) <= century * 100 for o in self.numbers if o.kind == "year"
            ) or any(ordinal_century(o) == century for o in self.numbers)
        for other in self.numbers:
            if (fact.kind == "time") != (other.kind == "time") and not _duration_and_clock(fact, other):
                continue
            if fact.unit and other.unit and fact.unit != other.unit and not _duration_and_clock(fact, other):
                continue
            tolerance = max(fact.step, 0.0) / 2 + 1e-12 * max(1.0, abs(fact.value))
            if fact.approx or other.approx:
                # "about 1,300" / "1,284"
                tolerance = max(tolerance, APPROXIMATE * max(abs(fact.value), abs(other.value)))
            if abs(other.value - fact.value) <= tolerance:
                return True
        if fact.kind == "year":
            year = int(fact.value)
            return any(d[0] == year for d in self.dates)
        if fact.kind == "number" and fact.unit is None and fact.value == 1 and "one" in self.words:
            return True  # "1-3 days" where the text says "one to three days" ("one" alone is read as a pronoun)
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
            if (
                year is not None
                and other_year is None
                and not any(int(n.value) == year for n in self.numbers if n.kind == "year")
            ):
                continue
            return True
        return False

    def yearless(self, fact: Fact) -> bool:
        """Whether the text states a date's month (and day) without a year, where ``fact`` adds one: "as of June 2022"
        against "as of June 6", "in November 2022" against "in early November" (a dateline's year or "last year" may
        give it)."""
        if fact.kind != "date" or fact.value[0] is None:
            return False
        _, month, day = fact.value
        if day is None and any(m == month and len(name) > 3 and name in self.words for name, m in MONTHS.items()):
            return True  # the month named alone ("in early November"; "May" is too often the verb to count)
        return any(
            other_year is None and other_month == month and (day is None or other_day in (None, day))
            for other_year, other_month, other_day in self.dates
        )

    def counterpart(self, fact: Fact, sentence: str | None = None) -> Fact | None:
        """The context's number instead of an unsupported one with a unit: the same number in another unit ("50 litres"
        for
        "50 gallons"), else in the same unit, from the sentence most like the answer's ``sentence``, in the same words,
        closest."""
        if fact.unit is None or fact.kind not in ("number", "percent", "money"):
            return None
        raw = raw_number(fact.text)
        same_number = [
            o for o in self.numbers if o.unit and o.unit != fact.unit and raw is not None and raw_number(o.text) == raw
        ]
        if same_number:
            return same_number[0]
        same_unit = [o for o in self.numbers if o.unit == fact.unit and o.kind == fact.kind]
        words, word = (content_words(sentence) if sentence else set()), _unit_word(fact.text)
        return (
            min(
                same_unit,
                key=lambda o: (
                    -len(words & content_words(self.sentence_at(o.start))),
                    _unit_word(o.text) != word,
                    abs(o.value - fact.value),
                ),
            )
            if same_unit
            else None
        )

    def sentence_at(self, offset: int) -> str:
        """The sentence of the context's text around ``offset`` (from the end of the previous one to the end of its
        own)."""
        text, ends = self.text, [i for i in (self.text.find(stop, offset) for stop in (". ", "\n", "; ")) if i >= 0]
        return text[
            max(text.rfind(stop, 0, offset) for stop in (". ", "\n", "; ")) + 1 : min(ends) if ends else len(text)
        ]

    # -- negation --------------------------------------------------------------

    def polarity_conflict(self, sentence: str) -> str | None:
        """A negation the answer and the context passage it restates disagree on (`negation.polarity_conflict()`)."""
        if self._clauses is None:
            self._clauses = clause_index(self.sentences)
        return polarity_conflict(self._clauses, sentence)


def _undoubled(word: str) -> str:
    """The word with each run of one letter written once ("raaj" -> "raj", "phillip" -> "philip")."""
    return re.sub(r"(.)\1+", r"\1", word)


#: How far a hedged number ("about", "nearly", "over") may be from the one it restates, as a share of the larger.
APPROXIMATE = 0.1


#: A currency's name as a word ("dollars", "euros", "Real"), where the text names one apart from its amounts.
_CURRENCY_NAMES = re.compile(
    r"(?i)(?<![\w$])(?:"
    + "|".join(sorted((w for w in CURRENCY_WORDS if w.isalpha() and len(w) > 3), key=len, reverse=True))
    + r")(?!\w)"
)


def _unit_word(text: str) -> str:
    """The words after a number as written ("500 metres": "metres")."""
    return re.sub(r"^[^A-Za-z]*", "", text).casefold()


_CLOCK_DURATION = re.compile(r"^\d{1,2}:\d{2}:\d{2}$")


def _duration_and_clock(left: Fact, right: Fact) -> bool:
    """A duration in seconds and an ``h:mm:ss`` clock reading ("2 hours, 7 minutes and 42 seconds" / "2:07:42")."""
    duration, clock = (left, right) if left.kind != "time" else (right, left)
    return duration.unit == "s" and clock.kind == "time" and bool(_CLOCK_DURATION.match(clock.text))


def raw_number(text: str) -> float | None:
    """The number as written, before its magnitude and unit ("50 gallons": 50)."""
    match = NUMBER.search(text)
    value = number_value(match) if match else None
    if value is None or match is None:
        return None
    return value[0] / (SCALES[match.group("scale").lower()] if match.group("scale") and scaled(match) else 1.0)


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
    parsed: Sequence[Parsed | None] | None = None,
) -> list[FactCheck]:
    """Check each sentence's facts against ``index``; facts ``given`` states (the question) count as supported.

    ``parsed`` holds each sentence's parse (or ``None``), for its names.
    """
    out = []
    for number, sentence in enumerate(sentences):
        facts = tuple(extract_facts(sentence, nlp=nlp, parsed=parsed[number] if parsed is not None else None))
        unsupported = tuple(f for f in facts if not index.supports(f) and not (given is not None and given.supports(f)))
        polarity = index.polarity_conflict(sentence) if negation else None
        out.append(FactCheck(sentence, facts, unsupported, polarity))
    return out
