"""Negation: its cues, what a cue bears on, and an answer clause that flips the negation of the context clause it
restates.

>>> negated("The museum does not open on Mondays."), negated("No doubt it opens at 9.")
(True, False)
>>> index = clause_index(["Sale items are not refundable."])
>>> polarity_conflict(index, "Sale items are refundable.")
'Sale items are not refundable.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .names import FUNCTION_WORDS, WORD, word_stem

__all__ = ["NEGATION", "negated", "cue_scopes", "content_words", "clause_index", "polarity_conflict", "SCOPE_WORDS"]

NEGATION = re.compile(
    r"(?i)(?<!\bor\s)\b(?:not(?!\s+(?:only|currently)\b)|no(?![.]?\s*\d)(?!\s+(?:doubt|longer|less|more)\b)|never|none|"
    r"nobody|nothing|neither|nor"
    r"|without|cannot)\b|n['’]t\b"
)

#: Content words after a negation cue that it bears on (the first two: "not *dishwasher safe*", "not *support
#: backups*", "is not *in orbit around the Earth*"); the other clause must hold them all to restate what is denied.
SCOPE_WORDS = 2

#: "not ... until" dates an event rather than denying it ("was not founded until 1608": founded in 1608).
_UNTIL = re.compile(r"(?i)\b(?:until|till)\b")

#: Words that finish a cue rather than tell what it denies ("not *yet* open": it bears on "open").
_CUE_ENDS = frozenset({"yet", "ever", "anymore"})

_CLAUSE = re.compile(r"[,;:()\[\]]|\s-\s|--|—|–|\bbut\b|\bwhile\b|\bwhereas\b|\balthough\b", re.IGNORECASE)

#: A context clause: its text, content words and whether it is negated.
Clause = tuple[str, set[str], bool]


def negated(sentence: str) -> bool:
    """Whether a sentence carries a negation cue ("whether or not" is none, and "not ... until" dates an event)."""
    return any(not _UNTIL.search(sentence, cue.end()) for cue in NEGATION.finditer(sentence))


def cue_scopes(clause: str) -> list[set[str]]:
    """Per negation cue of ``clause`` (less one that "until" follows), the stems of the first `SCOPE_WORDS` content
    words after it ("not *dishwasher safe*")."""
    scopes = []
    for cue in NEGATION.finditer(clause):
        if _UNTIL.search(clause, cue.end()):
            continue
        scope: set[str] = set()
        for match in WORD.finditer(clause, cue.end()):
            word = match.group(0)
            if word.casefold() in FUNCTION_WORDS or word.casefold() in _CUE_ENDS or NEGATION.fullmatch(word):
                continue
            scope.add(word_stem(word))
            if len(scope) == SCOPE_WORDS:
                break
        if scope:
            scopes.append(scope)
    return scopes


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip()]


def content_words(sentence: str) -> set[str]:
    """The stems of a sentence's content words, negation cues left out."""
    return {
        word_stem(m.group(0))
        for m in WORD.finditer(sentence)
        if m.group(0).casefold() not in FUNCTION_WORDS and not NEGATION.fullmatch(m.group(0))
    }


def clause_index(sentences: Iterable[str]) -> list[Clause]:
    """The context's clauses (cut at commas, semicolons, dashes, brackets and "but"), to compare answer clauses with."""
    return [(c, content_words(c), negated(c)) for s in sentences for c in _clauses(s)]


def polarity_conflict(index: list[Clause], sentence: str) -> str | None:
    """A negation the answer and the context passage it restates disagree on.

    Each answer clause of three or more content words is matched with the context clauses (``index``) holding at least
    70% of its content words. The clause is in conflict when it is negated and none of those is, or the reverse, the
    negation bears on words both clauses hold, and no other clause of the sentence restates that context clause as it
    stands ("Although I-75 is the longest Interstate Highway, it is not the longest highway" knows what the context
    says); the conflicting context clause is returned, else ``None``.
    """
    clauses = clause_index([sentence])  # the answer's clauses, read as the context's are
    for clause, content, mine in clauses:
        if len(content) < 3:
            continue
        matches = [(c, words, neg) for c, words, neg in index if len(content & words) >= 0.7 * len(content)]
        if not matches:
            continue
        if any(neg == mine for _, _, neg in matches):
            continue
        for other, words, _ in matches:
            # The negation must bear on what the two clauses share ("has not been fined ... and will be in
            # the squad" says nothing against "will be in the squad"; "is not in orbit around the Earth" nothing
            # against "orbits the Sun").
            if not any(scope <= (words if mine else content) for scope in cue_scopes(clause if mine else other)):
                continue
            if not any(
                len(theirs) >= 3 and len(theirs & words) >= 0.7 * len(theirs) and polar != mine
                for said, theirs, polar in clauses
                if said != clause
            ):
                return other
    return None
