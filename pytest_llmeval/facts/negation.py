"""Negation: its cues, what a cue bears on, and an answer clause that flips the negation of the context clause it restates.

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

__all__ = ["NEGATION", "negated", "negation_scope", "content_words", "clause_index", "polarity_conflict", "SCOPE_WORDS"]

NEGATION = re.compile(
    r"(?i)\b(?:not(?!\s+only\b)|no(?![.]?\s*\d)(?!\s+(?:doubt|longer|less|more)\b)|never|none|nobody|nothing|neither|nor"
    r"|without|cannot)\b|n['’]t\b"
)

#: Content words after a negation cue that it bears on (the first: "not *dishwasher* safe", "not *support* backups").
SCOPE_WORDS = 1

_CLAUSE = re.compile(r"[,;:()\[\]]|\s-\s|--|—|–|\bbut\b|\bwhile\b|\bwhereas\b|\balthough\b", re.IGNORECASE)

#: A context clause: its text, content words and whether it is negated.
Clause = tuple[str, set[str], bool]


def negated(sentence: str) -> bool:
    """Whether a sentence carries a negation cue."""
    return NEGATION.search(sentence) is not None


def negation_scope(clause: str) -> set[str]:
    """The stems of the first content words after each negation cue of ``clause`` ("not *dishwasher safe*")."""
    scope: set[str] = set()
    for cue in NEGATION.finditer(clause):
        taken = 0
        for match in WORD.finditer(clause, cue.end()):
            word = match.group(0)
            if word.casefold() in FUNCTION_WORDS or NEGATION.fullmatch(word):
                continue
            scope.add(word_stem(word))
            taken += 1
            if taken == SCOPE_WORDS:
                break
    return scope


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip()]


def content_words(sentence: str) -> set[str]:
    """The stems of a sentence's content words, negation cues left out."""
    return {word_stem(m.group(0)) for m in WORD.finditer(sentence)
            if m.group(0).casefold() not in FUNCTION_WORDS and not NEGATION.fullmatch(m.group(0))}


def clause_index(sentences: Iterable[str]) -> list[Clause]:
    """The context's clauses (cut at commas, semicolons, dashes, brackets and "but"), to compare answer clauses with."""
    return [(c, content_words(c), negated(c)) for s in sentences for c in _clauses(s)]


def polarity_conflict(index: list[Clause], sentence: str) -> str | None:
    """A negation the answer and the context passage it restates disagree on.

    Each answer clause of three or more content words is matched with the context clauses (``index``) holding at least
    70% of its content words. The clause is in conflict when it is negated and none of those is, or the reverse; the
    conflicting context clause is returned, else ``None``.
    """
    for clause in _clauses(sentence):
        content = content_words(clause)
        if len(content) < 3:
            continue
        matches = [(c, words, neg) for c, words, neg in index if len(content & words) >= 0.7 * len(content)]
        if not matches:
            continue
        mine = negated(clause)
        if any(neg == mine for _, _, neg in matches):
            continue
        for other, words, _ in matches:
            # The negation must bear on what the two clauses share ("has not been fined ... and will be in
            # the squad" says nothing against "will be in the squad").
            scope = negation_scope(clause if mine else other)
            if scope & (words if mine else content):
                return other
    return None
