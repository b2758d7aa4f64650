"""Comparisons the context's own figures reverse: "A was born before B" where the context gives A's birth as 1891 and
B's as 1885, "A has more species" where it gives A four species and B 48 to 56.

A comparison names two things and an order between them:

- in time: ``first``, ``earlier``, ``before``, ``older`` put the first thing earlier; ``after``, ``later``, ``younger``
  put it later. Each thing's time is the first date or year the context gives after its name, in a sentence that
  names it and not the other ("Allan Dwan (3 April 1885 - 28 December 1981)", "Jesus Camp is a 2006 documentary");
- in number: ``more <noun>`` and ``fewer`` / ``less <noun>`` compare the numbers the context puts before that noun
  ("a genus of 48-56 species").

The second thing is the name after ``than`` / ``before`` / ``after``, or the question's other choice ("Who was born
first, A or B?"). A short answer that only picks one of the question's choices ("Allan Dwan") makes the question's
comparison with it. Nothing is said when either figure is missing, has no year, or the two are equal or overlap: the
evidence is only the context reversing the answer's order.

>>> [found] = reversed_orders("George Marshall was born before Allan Dwan.", None,
...                           ["Allan Dwan (3 April 1885 - 28 December 1981) was a director.",
...                            "George E. Marshall (December 29, 1891 - February 17, 1975) was an actor."])
>>> found.describe("sentence 1")
"sentence 1 reverses the context's order: the context gives 'George Marshall' 1891 and 'Allan Dwan' 1885"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .names import FUNCTION_WORDS, root_stem
from .numerals import NUMBER_WORDS

__all__ = ["Order", "reversed_orders"]


@dataclass(frozen=True)
class Order:
    """A comparison the context reverses: the answer put ``first`` before or after ``second`` (in time or number);
    the context gives them ``first_value`` and ``second_value``, in the other order."""

    claim: str
    first: str
    second: str
    first_value: str
    second_value: str

    def describe(self, where: str) -> str:
        return (
            f"{where} reverses the context's order: the context gives {self.first!r} {self.first_value} and "
            f"{self.second!r} {self.second_value}"
        )


_WORD = re.compile(r"[^\W\d_][\w'’.-]*|\d[\d,]*", re.UNICODE)


#: A run of capitalised words (with the small words titles keep) or a quoted title: one choice of "A or B".
_SMALL_WORDS = r"(?:of|the|de|and|in|on|for|von|van|la|le|du|da)"
_CAPS = rf"(?:\"[^\"]{{1,80}}\"|[A-Z][\w'’.-]*(?:\s+(?:{_SMALL_WORDS}\s+)*[A-Z0-9][\w'’.-]*)*)"


_CHOICES = re.compile(rf"({_CAPS})\s*,?\s+or\s+(?:the\s+)?({_CAPS})")


#: A question's opening word, capitalised like a name ("Was A or B released first?").
_ASKING = re.compile(r"^(?:Was|Were|Is|Are|Did|Does|Do|Has|Have|Who|Which|What|When|Whose)\s+(?=\S)")


_EARLY = r"first|earlier|earliest|before|older|sooner|predates"
_LATE = r"after|later|younger|postdates"


_TIME = re.compile(rf"\b(?:({_EARLY})|({_LATE}))\b", re.IGNORECASE)


_COUNT = re.compile(r"\b(?:(more)|(fewer|less))\s+([^\W\d_]{3,})\b", re.IGNORECASE)


_OTHER = re.compile(r"\b(?:than|before|after)\s+(?:the\s+)?(" + _CAPS + ")")


#: Words after "more" that are no noun a number counts ("more often", "more popular").
_NOT_COUNTED = frozenset("than often popular likely recent famous successful widely commonly important".split())


#: The number words a count before "more" may be (one to twelve, "dozen"), from the parser's table.
_SMALL = {"one": 1, **{word: value for word, value in NUMBER_WORDS.items() if 1 <= value <= 12}}


def _key(text: str) -> frozenset[str]:
    """The root stems of a name's content words."""
    return frozenset(root_stem(w) for w in _WORD.findall(text.strip('"')) if w.casefold() not in FUNCTION_WORDS)


def _start(sentence: str, key: frozenset[str]) -> int | None:
    """Where a sentence that names ``key`` starts naming it, or None: every word of it is there, the words of a name
    of two or more but one in a short form ("Joe" for "Joseph")."""
    from .contrasts import nickname

    found: dict[str, int] = {}
    for match in _WORD.finditer(sentence):
        found.setdefault(root_stem(match.group()), match.start())
    missing = key - found.keys()
    if not key or len(missing) > (1 if len(key) > 1 else 0):
        return None
    for word in missing:
        short = [at for there, at in found.items() if nickname(word, there)]
        if not short:
            return None
        found[word] = min(short)
    return min(found[word] for word in key)


def _year(sentence: str, start: int) -> tuple[int, ...] | None:
    """The first date or year after ``start``, as (year, month, day) as far as given; None when it has no year."""
    from .collect import extract_facts

    for fact in extract_facts(sentence[start:]):
        if fact.kind == "year":
            return (int(fact.value),)
        if fact.kind == "date":
            year, month, day = fact.value
            if year is None:
                return None
            return tuple(v for v in (year, month, day) if v is not None)
    return None


def _count(sentence: str, start: int, noun: str) -> tuple[float, float] | None:
    """The number or range the sentence puts right before ``noun`` (in any inflection) after ``start``."""
    stem = root_stem(noun)
    words = [(m.group(), m.start()) for m in _WORD.finditer(sentence, start)]
    for index, (word, _) in enumerate(words):
        if root_stem(word) != stem or index == 0:
            continue
        before = [w.casefold().replace(",", "") for w, _ in words[max(0, index - 3) : index]]
        values = [float(w) if w.isdigit() else float(_SMALL[w]) for w in before if w.isdigit() or w in _SMALL]
        if values:
            return min(values), max(values)
    return None


#: Sentences glued without a space ("... and screenwriter.George E. Marshall (December 29, 1891 ..."): two sentences.
_GLUED = re.compile(r"(?<=[a-z0-9)\]\"][.!?])(?=[A-Z][a-z])")


def _figure(
    key: frozenset[str], other: frozenset[str], parts: Sequence[str], noun: str | None
) -> tuple[tuple[float, ...], str] | None:
    """The figure ``parts`` (the context's sentences, glued ones apart) give the thing named ``key``, and as shown."""
    for index, sentence in enumerate(parts):
        while index + 1 < len(parts) and (parts[index + 1][:1].isdigit() or parts[index + 1][:1].islower()):
            index += 1
            sentence = f"{sentence} {parts[index]}"  # "(born ca." / "1959) is ...": one sentence split at "ca."
        start = _start(sentence, key)
        if start is None:
            continue
        then = _start(sentence[start:], other)  # the other named after it: read up to there; before it: not at all
        if then is None and _start(sentence, other) is not None:
            continue
        sentence = sentence if then is None else sentence[: start + then]
        if noun is None:
            year = _year(sentence, start)
            if year is not None:
                return tuple(float(v) for v in year), str(year[0])
            continue
        counted = _count(sentence, start, noun)
        if counted is not None:
            low, high = counted
            shown = f"{low:g} {noun}" if low == high else f"{low:g} to {high:g} {noun}"
            return counted, shown
    return None


def _choices(question: str | None, answer: str) -> tuple[str, str] | None:
    """The question's two choices, the one the answer names first leading."""
    if not question:
        return None
    for match in _CHOICES.finditer(question):
        left, right = _ASKING.sub("", match.group(1)), match.group(2).rstrip(".")
        where = [(_start(answer, _key(side)), side) for side in (left, right)]
        named = sorted((at, side) for at, side in where if at is not None)
        if named:
            first = named[0][1]
            return first, right if first == left else left
    return None


def reversed_orders(sentence: str, question: str | None, context: Sequence[str]) -> list[Order]:
    """The comparisons of ``sentence`` whose order the ``context`` sentences reverse (none when unsure)."""
    bare = not (_TIME.search(sentence) or _COUNT.search(sentence))
    if bare and not (question and (_TIME.search(question) or _COUNT.search(question))):
        return []  # no word of either orders anything (most claims): nothing to read
    cue = sentence
    pair = _choices(question, sentence)
    if pair is not None and len(_WORD.findall(sentence)) <= 6 and bare:
        cue = question or ""  # "Allan Dwan" answers "Who was born first, A or B?": the question's comparison
    if pair is None:
        other = _OTHER.search(sentence)
        if other is None:
            return []
        subject = re.match(_CAPS, sentence.strip())
        if subject is None:
            return []
        pair = (subject.group().rstrip("."), other.group(1).rstrip("."))
    first, second = pair
    first_key, second_key = _key(first), _key(second)
    if not first_key or not second_key or first_key <= second_key or second_key <= first_key:
        return []
    count = _COUNT.search(cue)
    time = _TIME.search(cue) if count is None else None
    if count is not None and count.group(3).casefold() not in _NOT_COUNTED:
        noun: str | None = count.group(3)
        earlier = count.group(2) is not None  # "fewer": the first has the smaller number
    elif time is not None:
        noun, earlier = None, time.group(1) is not None
    else:
        return []
    parts = [part for text in context for part in _GLUED.split(text)]
    mine = _figure(first_key, second_key, parts, noun)
    theirs = _figure(second_key, first_key, parts, noun)
    if mine is None or theirs is None:
        return []
    if noun is not None:
        (low, high), (other_low, other_high) = mine[0], theirs[0]
        reverse = other_high < low if earlier else high < other_low
    else:
        reverse = mine[0] > theirs[0] if earlier else mine[0] < theirs[0]
        if mine[0][:1] == theirs[0][:1] and (len(mine[0]) == 1 or len(theirs[0]) == 1):
            reverse = False  # the same year, one without its day: no order to read
    if not reverse:
        return []
    return [Order(sentence, first, second, mine[1], theirs[1])]
