"""Contradictions a person sees at once, and clauses a sentence adds of its own.

Three kinds of evidence that need no model, each read from the answer and the context alone:

- an **antonym**: an answer clause states a predicate the context states in the opposite sense about the same thing
  ("The pharmacy is *open* on holidays" where the context says "The pharmacy is *closed* on holidays"; approved /
  rejected, refundable / non-refundable, increased / decreased, won / lost). Opposites are the pairs of
  `OPPOSITES` and the negative prefixes (``un``, ``non``, ``in``/``im``/``il``/``ir`` before an adjective ending:
  "available" / "unavailable"). WordNet's antonyms would be the fuller source, but its data comes only from NLTK's
  downloader, which a machine reaching only package registries cannot use: the list here holds the predicates
  answers about records, policies, results and events turn on. A clause and its context clause must share the rest
  of what they say (`SAME_REST`), the words before the predicate must not name another subject ("B won" is
  not against "A lost to B"), and a negation on one side only turns the pair back into agreement.
- a **changed name**: a name the context gives with one word changed, where the changed word is the fact and not
  the name's head ("Pierre Curie" where the context says "Marie Curie"; "Nobel Prize in Physics" where it says
  "Nobel Prize in Chemistry"; "North Terminal" / "South Terminal"). A differing head is another word for the same
  thing more often than another thing ("Summer Games" / "Summer Olympics") and is left to the ``name_part`` kind.
- an **invented clause**: a coordinated or relative clause (", and ...", ", which ...", "; ...") of a sentence whose
  own content words the context holds none of, or one of at least `CLAUSE_WORDS` + 1 ("Refunds take 5 days, and
  shipping costs are also reimbursed"): the clause is a claim of its own, checked apart from the supported half.

>>> opposite("open", "closed"), opposite("refundable", "nonrefundable"), opposite("open", "opened")
(True, True, False)
>>> head_index(("nobel", "prize", "physics"), "Nobel Prize in Physics"), head_index(
...     ("summer", "olympics"), "Summer Olympics")
(1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .names import FUNCTION_WORDS, fold, inflection_of, word_stem

__all__ = [
    "OPPOSITES",
    "opposite",
    "Contrast",
    "ClauseIndex",
    "changed_name",
    "head_index",
    "nickname",
    "invented_clauses",
    "clauses",
]


def _groups(text: str) -> dict[str, frozenset[str]]:
    out = {}
    for line in text.strip().splitlines():
        name, _, words = line.partition(":")
        out[name.strip()] = frozenset(words.split())
    return out


#: Groups of words of one sense; `OPPOSITES` pairs the groups that state the opposite of each other.
GROUPS = _groups("""
open: open opens opened reopened reopens
closed: closed shut
approved: approve approves approved approval granted grants grant accepted accept accepts
rejected: reject rejects rejected rejection denied deny denies declined refused refuses refuse turned-down
allowed: allow allows allowed permit permits permitted permissible legal lawful
forbidden: prohibit prohibits prohibited forbid forbids forbidden ban bans banned illegal unlawful
up: increase increases increased increasing rise rises rose risen rising grew grow grows growing raised raise raises
    climbed climbs soared soars surged surges jumped jumps gained gains expanded expands
down: decrease decreases decreased decreasing decline declines declined declining fall falls fell fallen falling
      drop drops dropped dropping shrank shrinks shrunk reduced reduces reduce lowered lowers cut cuts slumped plunged
      dipped contracted contracts
higher: higher highest larger largest bigger biggest greater greatest
lower: lower lowest smaller smallest fewer fewest
won: won win wins winning victory victorious
lost: lost lose loses losing defeat
profit: profit profits profitable
loss: loss losses unprofitable loss-making
true: true correct accurate valid
false: false incorrect inaccurate invalid wrong
alive: alive living
dead: dead died deceased
succeeded: succeeded succeeds success successful successfully passed
failed: failed fails failure unsuccessful unsuccessfully
included: include includes included including inclusive
excluded: exclude excludes excluded excluding exclusive
started: started starts begun began begins launched
ended: ended finished discontinued
required: required mandatory compulsory obligatory
optional: optional voluntary
public: public
private: private
north: north northern northbound
south: south southern southbound
east: east eastern eastbound
west: west western westbound
upper: upper
lower_place: lower
early: early earliest
late: late latest
first: first
last: last final
maximum: maximum max most-expensive
minimum: minimum min cheapest
positive: positive
negative: negative
present: present
absent: absent missing
online: online
offline: offline in-person
domestic: domestic
international: international foreign overseas
safe: safe
dangerous: dangerous unsafe hazardous
guilty: guilty convicted
innocent: innocent acquitted
agree: agree agrees agreed
disagree: disagree disagrees disagreed
support: supports supported support
oppose: opposes opposed oppose
confirmed: confirmed confirms confirm
denied_claim: denied denies deny
male: male
female: female
full: full
empty: empty
enabled: enabled enable enables
disabled: disabled disable disables
""")


#: Pairs of groups that say the opposite of each other.
OPPOSITES: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("open", "closed"),
        ("approved", "rejected"),
        ("allowed", "forbidden"),
        ("up", "down"),
        ("higher", "lower"),
        ("won", "lost"),
        ("profit", "loss"),
        ("true", "false"),
        ("alive", "dead"),
        ("succeeded", "failed"),
        ("included", "excluded"),
        ("started", "ended"),
        ("required", "optional"),
        ("public", "private"),
        ("north", "south"),
        ("east", "west"),
        ("upper", "lower_place"),
        ("early", "late"),
        ("first", "last"),
        ("maximum", "minimum"),
        ("positive", "negative"),
        ("present", "absent"),
        ("online", "offline"),
        ("domestic", "international"),
        ("safe", "dangerous"),
        ("guilty", "innocent"),
        ("agree", "disagree"),
        ("support", "oppose"),
        ("confirmed", "denied_claim"),
        ("male", "female"),
        ("full", "empty"),
        ("enabled", "disabled"),
    )
)


#: Each word's groups (a word may be of two: "declined" is rejected and down).
_BY_WORD: dict[str, frozenset[str]] = {}
for _name, _words in GROUPS.items():
    for _word in _words:
        _BY_WORD[_word] = _BY_WORD.get(_word, frozenset()) | {_name}


#: Each group's opposite words: the words of the groups `OPPOSITES` pairs it with.
_AGAINST: dict[str, frozenset[str]] = {
    name: frozenset(word for pair in OPPOSITES if name in pair for other in pair - {name} for word in GROUPS[other])
    for name in GROUPS
}


#: Groups whose opposite is the same event told from the other side ("A won" / "B lost"): a subject must be named.
_CONVERSE = frozenset({"won", "lost", "profit", "loss", "higher", "lower"})


#: Negative prefixes, and the endings of the adjectives ``in``/``im``/``il``/``ir`` make negative ("in-sufficient").
_LATIN_PREFIXES = ("in", "im", "il", "ir")
_ADJECTIVE_ENDINGS = ("able", "ible", "ent", "ant", "al", "ar", "ive", "ete", "ate", "ous", "ic")
#: Words that begin with a negative prefix without being the negative of the rest.
_NOT_NEGATIVE = frozenset(
    "unless until under understand understood union unit unique uniform universal university "
    "unify unified unity unison uncle undergo nonetheless none".split()
)


@lru_cache(maxsize=65536)
def _negative_of(word: str, other: str) -> bool:
    """``word`` is ``other`` with a negative prefix ("unavailable" / "available", "non-refundable" / "refundable")."""
    if word in _NOT_NEGATIVE or len(other) < 5:
        return False
    if word in (f"un{other}", f"non{other}"):
        return True
    return other.endswith(_ADJECTIVE_ENDINGS) and any(word == prefix + other for prefix in _LATIN_PREFIXES)


def opposite(word: str, other: str) -> bool:
    """Whether two words (lower case, hyphens dropped or kept) state opposite senses."""
    a, b = word.replace("-", ""), other.replace("-", "")
    if a == b:
        return False
    if _negative_of(a, b) or _negative_of(b, a):
        return True
    left, right = _BY_WORD.get(word, _BY_WORD.get(a, frozenset())), _BY_WORD.get(other, _BY_WORD.get(b, frozenset()))
    return any(frozenset((g, h)) in OPPOSITES for g in left for h in right)


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)


_NEGATION = re.compile(r"(?i)\b(?:not|no|never|none|neither|nor|cannot|without)\b|n['’]t\b")


#: Where a sentence divides into clauses for contrasts: punctuation, coordinators and subordinators.
_CLAUSE = re.compile(
    r"[;,()\[\]]|[.!?](?=\s)|\s[-–—]\s|\b(?:and|but|while|whereas|although|though|however)\b", re.IGNORECASE
)


#: A negative prefix a tokenised text wrote apart ("non - binary").
_SPACED_PREFIX = re.compile(r"\b(non|un)\s+-\s*(?=[^\W\d_])|\b(non|un)\s*-\s+(?=[^\W\d_])", re.IGNORECASE)


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence as `contrasts` reads them (split at commas, semicolons, brackets, dashes and
    coordinators; a record's ``key: value`` stays whole)."""
    sentence = _SPACED_PREFIX.sub(lambda m: f"{m.group(1) or m.group(2)}-", sentence)
    return [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip()]


@dataclass(frozen=True)
class _Clause:
    text: str
    sentence: str
    words: tuple[str, ...]  # lower-case words, in order
    stems: frozenset[str]  # stems of its content words
    negated: bool
    names: frozenset[int]  # positions of capitalised words after the first: parts of names ("the *North* Fork")


def _read(clause: str, sentence: str) -> _Clause:
    found = [m.group(0) for m in _TOKEN.finditer(clause)]
    words = tuple(fold(w).strip("'’") for w in found)
    stems = frozenset(word_stem(w) for w in words if w not in FUNCTION_WORDS and len(w) > 1)
    names = frozenset(i for i, w in enumerate(found) if i and w[:1].isupper())
    return _Clause(clause, sentence, words, stems, _NEGATION.search(clause) is not None, names)


#: Share of an answer clause's other content words (those the context uses anywhere) that the context clause of an
#: opposite predicate must hold: the two say the same of the same thing but for the predicate.
SAME_REST = 0.7


@dataclass(frozen=True)
class Contrast:
    """An answer clause's predicate the context states in the opposite sense."""

    said: str  # the answer's word
    instead: str  # the context's word
    clause: str  # the answer clause
    context: str  # the context clause that says otherwise

    def describe(self, where: str) -> str:
        from ..text.basics import excerpt

        return f"{where} says {self.said!r} where the context says {self.instead!r}: {excerpt(self.context, 120)!r}"


class ClauseIndex:
    """The context's clauses, indexed by the predicate words they hold, to find an answer clause's opposite."""

    def __init__(self, sentences: Iterable[str], *, keys: Iterable[str] = ()) -> None:
        #: A record's clauses name a field by its key: what an answer clause must share with one is the key words it
        #: uses ("the shop is open on *Sundays*" against ``hours Sunday: closed``), not what the record is of.
        self.keys = frozenset(word_stem(key) for key in keys)
        self.clauses: list[_Clause] = []
        self.stems: set[str] = set()
        #: Each sentence's content stems and lower-case words, by sentence.
        self.sentences: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        for sentence in sentences:
            whole = _read(sentence, sentence)
            self.sentences[sentence] = (whole.stems, frozenset(whole.words))
            for clause in clauses(sentence):
                read = _read(clause, sentence)
                self.clauses.append(read)
                self.stems |= read.stems
        by_word: dict[str, list[int]] = {}
        for number, read in enumerate(self.clauses):
            for word in set(read.words):
                by_word.setdefault(word, []).append(number)
        #: The clauses holding each word, by the word without its hyphens ("nonrefundable": "non-refundable" too).
        self.spellings: dict[str, dict[str, list[int]]] = {}
        for word, numbers in by_word.items():
            self.spellings.setdefault(word.replace("-", ""), {})[word] = numbers

    def _opposites(self, word: str) -> list[tuple[str, int]]:
        """The context's words of the opposite sense to ``word`` (as written, each spelling the candidate's first),
        with the clauses holding them."""
        out: list[tuple[str, int]] = []
        bare = word.replace("-", "")
        candidates: set[str] = set()
        for group in _BY_WORD.get(word, _BY_WORD.get(bare, frozenset())):
            candidates |= _AGAINST[group]
        for prefix in ("un", "non", *_LATIN_PREFIXES):
            candidates.add(prefix + bare)
            if bare.startswith(prefix):
                candidates.add(bare[len(prefix) :])
        for candidate in candidates:
            if candidate != word and opposite(word, candidate):
                spellings = self.spellings.get(candidate.replace("-", ""), {})
                for written in sorted(spellings, key=lambda w: w != candidate):
                    if written == candidate or written.replace("-", "") == candidate:
                        out.extend((written, number) for number in spellings[written])
        return out

    def contrasts(self, sentence: str) -> list[Contrast]:
        """The predicates of an answer ``sentence`` the context states in the opposite sense, the first of each clause
        (the words a question gives count among what the two clauses share: "Is it open on Mondays?" asks of what the
        context says)."""
        out: list[Contrast] = []
        for clause in clauses(sentence):
            mine = _read(clause, sentence)
            found = next(
                (
                    contrast
                    for position, word in enumerate(mine.words)
                    if not ((word in FUNCTION_WORDS and word not in _BY_WORD) or position in mine.names)
                    for instead, number in self._opposites(word)
                    if (contrast := self._contrast(mine, position, word, instead, self.clauses[number])) is not None
                ),
                None,
            )
            if found is not None:
                out.append(found)
        return out

    def _contrast(self, mine: _Clause, position: int, word: str, instead: str, theirs: _Clause) -> Contrast | None:
        """The contrast of answer clause ``mine``'s word at ``position`` with the opposite word ``instead`` of context
        clause ``theirs``, when the two say the same of the same thing but for it; else ``None``."""
        if word in theirs.words or mine.negated != theirs.negated:
            return None  # the context says both, or one side's negation turns the opposite into agreement
        their_position = theirs.words.index(instead)
        if their_position in theirs.names:
            return None  # part of a name ("the North Fork"), not a predicate
        own = word_stem(word)
        rest = {s for s in mine.stems - {own} if s in self.keys} if self.keys else mine.stems - {own}
        if not rest or instead in mine.words:
            return None  # nothing else to compare, or the answer says both ("required to carry a voluntary label")
        if len(rest & theirs.stems) < SAME_REST * len(rest):
            # The answer may join what the context says in two clauses of one sentence ("non-refundable, but can be
            # moved up to 48 hours before"): the sentence holds the rest, and never the word.
            stems, words = self.sentences[theirs.sentence]
            if word in words or len(rest & stems) < SAME_REST * len(rest) or 2 * len(rest & theirs.stems) < len(rest):
                return None
        before = {word_stem(w) for w in mine.words[:position] if w not in FUNCTION_WORDS}
        if self.keys:
            before &= self.keys
        their_before = {word_stem(w) for w in theirs.words[:their_position] if w not in FUNCTION_WORDS}
        if not before <= their_before:
            return None  # another subject: "B won" beside "A lost to B", "skin repair" beside "wound cleaning"
        if not before and _BY_WORD.get(word, frozenset()) & _CONVERSE:
            return None  # "won" of no one named: the other side of the same event may have lost
        return Contrast(word, instead, mine.text, theirs.text)


#: Prepositions that begin a name's complement ("Prize *in* Physics", "University *of* Warsaw"): the head is before.
_COMPLEMENT = frozenset({"of", "in", "for", "at", "on", "de", "du", "des", "del", "della", "di", "von", "van"})


def head_index(keys: Sequence[str], text: str) -> int:
    """The position among a name's ``keys`` of its head word: the last key before a complement's preposition ("Nobel
    *Prize* in Physics"), else the last key ("Summer *Olympics*")."""
    words = [fold(m.group(0)) for m in _TOKEN.finditer(text)]
    position = -1
    for word in words:
        if word in _COMPLEMENT and position >= 0:
            return position
        if position + 1 < len(keys) and word == keys[position + 1]:
            position += 1
    return len(keys) - 1


def nickname(left: str, right: str) -> bool:
    """A short form of a given name ("Joe" / "Joseph", "Tom" / "Thomas"; "Bill" / "William" aside): the same first
    letter, and the short one's letters in the long one's order."""
    short, long = sorted((left, right), key=len)
    if short[:1] != long[:1]:
        return False
    rest = iter(long[1:])
    return all(letter in rest for letter in short[1:])


def changed_name(
    keys: Sequence[str],
    text: str,
    context_names: Iterable[tuple[tuple[str, ...], str]],
    has_word: Callable[[str], bool],
) -> str | None:
    """The context's name (as written) that an answer name repeats with one word other than its head changed, that
    word absent from the context (``has_word``: the context's look-up), or ``None``."""
    if len(keys) < 2:
        return None
    mine = [inflection_of(k) for k in keys]
    head = head_index(keys, text)
    for other_keys, other_text in context_names:
        if len(other_keys) != len(keys):
            continue
        theirs = [inflection_of(k) for k in other_keys]
        differ = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
        if len(differ) != 1:
            continue
        (i,) = differ
        if i == head or has_word(keys[i]) or head_index(other_keys, other_text) != head or nickname(mine[i], theirs[i]):
            continue
        return other_text
    return None


#: Where an answer sentence's coordinated and relative clauses begin.
_CLAUSE_START = re.compile(r",\s+(?:and|which|who|plus)\b|;\s+|\s+and\s+(?:also|additionally)\b", re.IGNORECASE)


#: An invented clause shares at most one of this many own content words with the context (none of fewer).
CLAUSE_WORDS = 3


def invented_clauses(
    sentence: str,
    context_stems: set[str] | frozenset[str],
    given: set[str] | frozenset[str],
    stems_of: Callable[[str], Iterable[str]],
) -> list[tuple[str, list[str]]]:
    """The coordinated or relative clauses of ``sentence`` (not its first) whose own content words (those the
    question does not give) the context holds none of, or one of more than `CLAUSE_WORDS`: each with those words."""
    parts = [p.strip(" ,;") for p in _CLAUSE_START.split(sentence)]
    if len(parts) < 2:
        return []
    out = []
    for part in parts[1:]:
        words = [m.group(0) for m in _TOKEN.finditer(part)]
        own = [
            (w, s)
            for w in words
            for s in stems_of(w)
            if s not in given and w.casefold() not in FUNCTION_WORDS and not _NEGATION.search(w)
        ]
        stems = {s for _, s in own}
        if len(stems) < 2:
            continue
        found = {s for s in stems if s in context_stems}
        # What a clause says it adds ("the east wing is *also fully wheelchair accessible*"): none of its words in the
        # context invents it too.
        verb = _ALSO.search(part)
        said = {s for w, s in own if verb is not None and part.find(w, verb.end()) >= 0} if verb else set()
        if (
            (not found and len(stems) >= CLAUSE_WORDS)
            or (len(found) == 1 and len(stems) > CLAUSE_WORDS)
            or (len(said) >= 2 and not said & context_stems)
        ):
            out.append((part, list(dict.fromkeys(w for w, s in own if s not in context_stems))))
    return out


#: A clause that says it adds something ("... is *also* fully accessible"): what follows is its own claim.
_ALSO = re.compile(r"\b(?:also|additionally|too|as well)\b", re.IGNORECASE)
