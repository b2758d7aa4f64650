"""Offline evidence that an answer is not grounded in its context, sentence by sentence.

A check with an offline evidence model fails an answer only on evidence it can
name; a low closeness score alone leaves the answer *unverified* (see
`MetricSpec`'s ``weak``). The evidence:

- a **fact** the context does not state: a number, date, quantity or unit (``50
  gallons`` where the context says ``50 litres``), or a name or place it never
  mentions (`pytest_llmeval.facts.extract`);
- a **negation flip**: the answer denies what the context asserts, or the reverse;
- a **role swap** or a **conflict**: the context's own names in exchanged roles, or
  the same relation with another name or number (`pytest_llmeval.facts.relations`);
- a **claim that shares nothing with the context**: none of the sentence's own
  words (those the question does not already give) is found in the context, and
  it states no fact the context supports.

A sentence that makes no claim (a question back, a greeting, thanks, "Hope you
enjoy!") is evidence of nothing: it is not checked, and it does not count against
the answer's closeness.

>>> makes_claim("You're welcome, enjoy the film!"), makes_claim("Is it on Netflix?"), makes_claim("It opened in 1889.")
(False, False, True)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..text.basics import excerpt
from .extract import FactIndex, raw_number, ordinal_century
from .negation import NEGATION
from .names import CONTRACTION, FUNCTION_WORDS, WORD, CONVERSATIONAL, EVALUATIVE
from .fact import states_value
from .parsing import Fact

__all__ = [
    "Evidence",
    "makes_claim",
    "unshared_words",
    "small_count",
    "messages",
    "NumberSentences",
    "fact_kind",
    "YES_NO",
    "describe_unshared",
]


_NUMBER_STEM = re.compile(r"^n[\dmp]")


#: Words of talk and of judgement: a claim's own words leave them out.
_TALK = CONVERSATIONAL | EVALUATIVE


@dataclass(frozen=True)
class Evidence:
    """One piece of named evidence against an answer.

    Args:
        kind: The evidence kind's stable id (`pytest_llmeval.facts.kinds.KIND_IDS`: ``number``,
            ``changed_number``, ``name``, ``negation``, ``role_swap``, ``unshared`` ...).
        sentence: The answer sentence it is in (1-based).
        text: What is quoted from the answer.
        message: One line a person can act on.
        fails: Whether this kind fails the answer (``fail_on``); else it is a concern (verdict unverified).
    """

    kind: str
    sentence: int
    text: str
    message: str
    fails: bool = True


def messages(evidence: Sequence[Evidence]) -> list[str]:
    """The evidence's messages, the same finding in repeated sentences said once: the first sentence's message, then
    ``(the same in sentences 2 and 3)`` (a message names its sentence as
    `sentence_label()` writes it)."""
    groups: dict[str, list[Evidence]] = {}
    for piece in evidence:
        key = re.sub(rf"\bsentence {piece.sentence}\b", "sentence #", piece.message)
        groups.setdefault(key, []).append(piece)
    out = []
    for pieces in groups.values():
        others = sorted({p.sentence for p in pieces} - {pieces[0].sentence})
        if not others:
            out.append(pieces[0].message)
            continue
        listed = str(others[0]) if len(others) == 1 else f"{', '.join(map(str, others[:-1]))} and {others[-1]}"
        out.append(f"{pieces[0].message} (the same in sentence{'s' if len(others) > 1 else ''} {listed})")
    return out


#: A question without its question mark ("Do you like thrillers.").
_QUESTION = re.compile(
    r"^\W*(?:(?:do|does|did|have|has|had|are|is|was|were|would|could|can|will|shall|should|may|might)"
    r"(?:n['’]t)?\s+(?:you|they|we|he|she|it|i|there|that|this|those|these)\b|(?:who|what|when|where|why|which|how)\s)",
    re.IGNORECASE,
)


#: A bare yes or no: a claim when it answers a question.
YES_NO = re.compile(r"^\W*(?:yes|no|yeah|nope|yep|correct|incorrect|true|false)\W*$", re.IGNORECASE)


#: A sentence about the speaker ("I enjoy thrillers.", "Oh, I've never seen it."): a claim only with a fact in it.
_SPEAKER = re.compile(
    r"^\W*(?:(?:yes|no|well|oh|ok|okay|sure|really|honestly|personally|actually)\W+)*I(?:['’](?:m|ve|d|ll))?\b",
    re.IGNORECASE,
)


#: A question that asks for a count or an amount ("How many ...?"), for which a bare number is the claim.
ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long|old|often|far|tall|high)\b|\bwhat\s+(?:number|percentage|amount)\b"
    r"|\bnumber\s+of\b",
    re.IGNORECASE,
)


#: Bare counts below this are small counts (see `small_count()`).
SMALL_COUNT = 13


def small_count(fact: Fact, question: str | None) -> bool:
    """A bare count of a few things ("the other two", "five times", "parts 1 and 2", "Cars 3"): no unit, below
    `SMALL_COUNT`. Unless the question asks how many, its absence from the context is too weak to fail on:
    such counts are computed or paraphrased ("both", "a pair") and name parts of titles."""
    return (
        fact.kind == "number"
        and fact.unit is None
        and abs(fact.value) < SMALL_COUNT
        and not (question and ASKS_NUMBER.search(question))
    )


def makes_claim(sentence: str, facts: Sequence[Fact] = ()) -> bool:
    """Whether a sentence claims anything a context could support or contradict.

    A question makes no claim; nor does a sentence without a fact whose words are all function
    words, words of conversation (thanks, greetings, wishes) and of judgement ("great"), nor an
    exclamation or a sentence about the speaker without a fact ("Enjoy the movies!", "I have
    never seen it.").
    """
    text = sentence.strip()
    if not text or text.endswith("?") or _QUESTION.match(text):
        return False
    if facts:
        return True
    if text.endswith("!") or _SPEAKER.match(text):
        return False
    for match in WORD.finditer(text):
        word = CONTRACTION.sub("", match.group(0)).casefold()
        if (
            word
            and word not in FUNCTION_WORDS
            and word not in CONVERSATIONAL
            and word not in EVALUATIVE
            and not NEGATION.fullmatch(word)
        ):
            return True
    return False


def unshared_words(
    sentence: str,
    facts: Sequence[Fact],
    source: FactIndex,
    source_stems: set[str],
    given_stems: set[str],
    given: FactIndex | None = None,
    *,
    roots: tuple[Collection[str], Collection[str]] = ((), ()),
) -> list[str]:
    """The words of a claim that show it shares nothing with the source, or ``[]``.

    The sentence's own content words are those the question (``given`` and
    ``given_stems``) does not already give; the claim shares nothing when it has
    some, none of them is in the source (``source_stems``), and it states no fact of
    its own that the source supports. ``roots``: the source's and the question's words without inflection
    (`root_stems()`): a word they hold in another form ("worked" for "working") is shared.
    """
    from .layer import content_stems, root_stems

    if _SPEAKER.match(sentence):
        return []  # "I have never seen them play": the speaker's words, only its facts are checked
    if any(source.supports(fact) and not (given is not None and given.supports(fact)) for fact in facts):
        return []
    words: list[str] = []  # the claim's own words, one per stem the source lacks
    for match in WORD.finditer(sentence):
        word = match.group(0)
        if CONTRACTION.sub("", word).casefold() in _TALK:
            continue
        stems = [s for s in content_stems(word) if not _NUMBER_STEM.match(s)]
        rooted = root_stems(word) if stems and any(roots) else []
        for stem in stems:
            if stem in given_stems:
                continue
            if stem in source_stems or any(r in roots[0] for r in rooted):
                return []
            if not any(r in roots[1] for r in rooted):
                words.append(word)
    return list(dict.fromkeys(words))


def describe_unshared(number: int, sentence: str, words: Sequence[str], *, numbered: bool = True) -> str:
    from .layer import sentence_label

    shown = ", ".join(repr(w) for w in words[:4]) + (" ..." if len(words) > 4 else "")
    verb = "appears" if len(words) == 1 else "appear"
    return (
        f"{sentence_label(number, numbered)} {excerpt(sentence, 80)!r} shares nothing with "
        f"the context: {shown} {verb} nowhere in it"
    )


def fact_kind(fact: Fact, instead: Fact | None, currencies: set[str] | frozenset[str] = frozenset()) -> str:
    """The evidence kind of an unstated fact: ``name``, ``date``, ``time``, ``unit`` (the context's number in another
    unit
    or currency: ``instead``), or ``number``."""
    if fact.kind == "name":
        return "name"
    if fact.kind in ("date", "year") or ordinal_century(fact) is not None:
        return "date"
    if fact.kind == "time":
        return "time"
    if instead is not None and (instead.unit != fact.unit or raw_number(instead.text) == raw_number(fact.text)):
        return "unit"  # "50 gallons" where the context says "50 litres"
    if fact.kind == "money" and fact.unit and currencies and fact.unit not in currencies:
        return "unit"
    return "number"


#: The word after a number that names what it counts ("10 *employees*"), when it has no unit.
_NOUN_AFTER = re.compile(r"[ \t]*([^\W\d_][\w-]*)")


#: Share of an answer sentence's content words (numbers aside) that the context sentence of another number for the
#: same thing holds: the two sentences say the same thing with another number.
SAME_THING = 0.6


class NumberSentences:
    """The numbers of a context, each with its sentence's content words, to find the one a changed number replaces."""

    def __init__(self, sentences: Sequence[str]) -> None:
        from .layer import content_stems
        from .parsing import number_facts, detokenize_numbers

        self.entries: list[tuple[Fact, str, frozenset[str], str | None]] = []
        for sentence in sentences:
            text = detokenize_numbers(sentence)
            found = number_facts(text)
            if not found:
                continue
            stems = frozenset(s for s in content_stems(text) if not _NUMBER_STEM.match(s))
            for fact in found:
                self.entries.append((fact, sentence, stems, _counted(text, fact)))

    def changed(self, fact: Fact, sentence: str) -> tuple[Fact, str] | None:
        """The context's number for the same thing as ``fact`` of answer ``sentence``, when it is another value: same
        kind
        and unit (or, without one, the same noun after it), in a context sentence holding most of the answer sentence's
        words; with the context sentence, or ``None``."""
        from .layer import content_stems
        from .parsing import detokenize_numbers

        if fact.kind not in ("number", "percent", "money") or self.entries == []:
            return None
        text = detokenize_numbers(sentence)
        mine = {s for s in content_stems(text) if not _NUMBER_STEM.match(s)}
        if len(mine) < 2:
            return None
        noun = _counted(text, fact) if fact.unit is None else None
        if fact.unit is None and noun is None:
            return None
        best: tuple[float, Fact, str] | None = None
        for other, context_sentence, stems, other_noun in self.entries:
            if other.kind != fact.kind or other.unit != fact.unit or states_value(fact, other.value):
                continue
            if fact.unit is None and other_noun != noun:
                continue
            share = len(mine & stems) / len(mine)
            if share >= SAME_THING and (best is None or share > best[0]):
                best = (share, other, context_sentence)
        return None if best is None else (best[1], best[2])


def _counted(text: str, fact: Fact) -> str | None:
    """The stem of the noun a unitless number counts ("10 employees": ``employe``), or ``None``."""
    from .names import word_stem

    if fact.unit is not None:
        return None
    match = _NOUN_AFTER.match(text, fact.start + len(fact.text))
    if match is None or match.group(1).casefold() in FUNCTION_WORDS:
        return None
    return word_stem(match.group(1))
