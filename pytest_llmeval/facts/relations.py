"""Who did what to whom: relations read from a dependency parse, and the two ways an answer can get them wrong
while using only names the context holds.

A relation is a verb (its lemma) with the things that fill its roles: ``subj``
(the doer; the agent of a passive), ``obj`` (what is done to; the subject of a
passive), and ``prep:<word>`` for a prepositional object ("born *in* Svelvik").
A filler is a name (the words of a named entity or of a run of proper nouns), a
number or date, or a plain noun (its lemma).

Against the relations of the context, an answer's relation shows

- a **role swap** when the context holds the same verb with the answer's two names
  in exchanged roles, and never as the answer has them ("Tableau acquired
  Salesforce" where the context says "Salesforce acquired Tableau");
- a **conflict** when the context holds the same verb with the same name in one role
  and another name or number in a second role, and never the answer's one, nor
  ever mentions the answer's one in a sentence with that name ("Kjelsberg was born
  in Buskerud" where the context says "Kjelsberg was born in Svelvik"; "won the
  Heisman Trophy in 1953" where it says "in 1952").

Without a parse (no spaCy model installed), `surface_swaps()` finds role swaps
from word order alone: two names joined by the same words, in the other order, or
by the passive of those words ("A acquired B" / "B was acquired by A").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .names import CONNECTORS, FUNCTION_WORDS, SPACY_LABELS, TITLES, WORD, fold, inflection_of, rule_names
from .syntax import Parsed

__all__ = ["Relation", "Conflict", "relations", "conflicts", "surface_swaps", "name_spans", "same_name"]


#: Entity labels that name something, as the fact layer reads names (numbers, dates and quantities are read as numbers).
NAME_LABELS = SPACY_LABELS


NUMBER_LABELS = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "CARDINAL"})


_SUBJECTS = frozenset({"nsubj", "csubj"})


_OBJECTS = frozenset({"dobj", "attr", "oprd"})


_RELATIVE = frozenset({"who", "which", "that", "whom"})


#: Sentences around a mention that may still speak of it ("... Rachdi ... She weighed 46st").
NEAR = 0


@dataclass(frozen=True)
class Filler:
    """What fills a role: ``kind`` is ``name``, ``number`` or ``noun``; ``key`` compares, ``text`` is shown."""

    kind: str
    key: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Relation:
    """A verb and its fillers by role, in one sentence of a parsed text."""

    verb: str
    roles: dict[str, tuple[Filler, ...]]
    sentence: str


@dataclass(frozen=True)
class Conflict:
    """An answer relation the context contradicts: ``kind`` is ``role swap`` or ``conflict``."""

    kind: str
    verb: str
    answer: str  # the answer's filler(s) as written
    context: str  # the context sentence that says otherwise

    def describe(self, where: str) -> str:
        if self.kind == "role swap":
            return f"{where} swaps the roles of {self.answer}: the context says {_quote(self.context)}"
        return f"{where} says {self.answer}, but the context says {_quote(self.context)}"


def _quote(text: str) -> str:
    from ..text.basics import excerpt

    return repr(excerpt(text, 120))


def name_key(text: str) -> tuple[str, ...]:
    """The words that identify a name: folded, without function words, connectors, titles or plural endings."""
    keys = []
    for match in WORD.finditer(text):
        word = match.group(0)
        folded = fold(word)
        if not folded or folded in FUNCTION_WORDS or folded in CONNECTORS or folded in TITLES:
            continue
        keys.append(inflection_of(word))
    return tuple(keys)


def same_name(left: tuple[str, ...], right: tuple[str, ...]) -> bool:
    """Two names are the same when the words of one are all among the other's ("Kjelsberg" / "Betzy Kjelsberg")."""
    if not left or not right:
        return False
    a, b = set(left), set(right)
    return a <= b or b <= a


def name_spans(parsed: Parsed, first: int = 0, last: int | None = None) -> list[tuple[int, int, tuple[str, ...]]]:
    """Token ranges and keys of the names in tokens ``first`` to ``last``: named entities, then runs of proper nouns."""
    last = len(parsed.tokens) if last is None else last
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    taken: set[int] = set()
    starts = {t[0]: i for i, t in enumerate(parsed.tokens)}
    ends = {t[1]: i for i, t in enumerate(parsed.tokens)}
    for start, end, label in parsed.ents:
        if start not in starts or end not in ends:
            continue
        a, b = starts[start], ends[end] + 1
        if a < first or b > last:
            continue
        taken.update(range(a, b))  # a date's or a number's proper nouns ("Sunday", "May") name nothing
        if label not in NAME_LABELS:
            continue
        # The tagger may take a whole clause for one name ("Tableau hired Salesforce" as an ORG): the parse's own
        # verbs end a name, so each run of tokens between them is a name of its own.
        run = a
        for index in range(a, b + 1):
            if index == b or parsed.pos(index) in ("VERB", "AUX"):
                key = name_key(parsed.text[parsed.tokens[run][0] : parsed.tokens[index - 1][1]]) if index > run else ()
                if key:
                    spans.append((run, index, key))
                run = index + 1
    index = first
    while index < last:
        if parsed.pos(index) == "PROPN" and index not in taken:
            end = index
            while end < last and parsed.pos(end) == "PROPN" and end not in taken:
                end += 1
            key = name_key(parsed.text[parsed.tokens[index][0] : parsed.tokens[end - 1][1]])
            if key:
                spans.append((index, end, key))
            index = end
        else:
            index += 1
    return spans


class _Reader:
    """Reads the fillers of tokens of one parse (names and numbers by token, found once)."""

    def __init__(self, parsed: Parsed) -> None:
        self.parsed = parsed
        self.names: dict[int, tuple[tuple[str, ...], str]] = {}
        for a, b, key in name_spans(parsed):
            text = parsed.text[parsed.tokens[a][0] : parsed.tokens[b - 1][1]]
            for i in range(a, b):
                self.names[i] = (key, text)
        self.numbers: dict[int, str] = {}
        starts = [t[0] for t in parsed.tokens]
        for start, end, label in parsed.ents:
            if label in NUMBER_LABELS:
                for i in range(bisect_left(starts, start), bisect_left(starts, end)):
                    self.numbers[i] = parsed.text[start:end]
        self.children: dict[int, list[int]] = {}
        for i, token in enumerate(parsed.tokens):
            if token[5] != i:
                self.children.setdefault(token[5], []).append(i)

    def filler(self, index: int) -> Filler | None:
        parsed = self.parsed
        if index in self.names:
            key, text = self.names[index]
            return Filler("name", key, text)
        if index in self.numbers or parsed.pos(index) == "NUM":
            text = self.numbers.get(index, parsed.word(index))
            return Filler("number", (text.casefold(),), text)
        if parsed.pos(index) in ("NOUN", "PROPN"):
            return Filler("noun", (parsed.lemma(index).casefold(),), parsed.word(index))
        return None

    def fillers(self, index: int) -> list[Filler]:
        """The filler of a token, with those of its conjuncts and appositions ("A and B", "Svelvik, Vestfold"), and the
        name a plain noun is "of" ("the town *of Marlow*")."""
        out: list[Filler] = []
        found = self.filler(index)
        if found is not None:
            out.append(found)
        for child in self.children.get(index, ()):
            dep = self.parsed.dep(child)
            if dep in ("conj", "appos"):
                out.extend(self.fillers(child))
            elif (
                dep == "prep"
                and found is not None
                and found.kind == "noun"
                and self.parsed.word(child).casefold() == "of"
            ):
                out.extend(
                    f
                    for noun in self.children.get(child, ())
                    if self.parsed.dep(noun) == "pobj"
                    for f in [self.filler(noun)]
                    if f is not None and f.kind == "name"
                )
        return out


def relations(parsed: Parsed) -> list[Relation]:
    """The relations of every verb of ``parsed`` that has at least two roles filled."""
    reader = _Reader(parsed)
    sentence_of: dict[int, str] = {}
    for first, last in parsed.sents:
        if last > first:
            text = parsed.text[parsed.tokens[first][0] : parsed.tokens[last - 1][1]]
            for i in range(first, last):
                sentence_of[i] = text
    out = []
    for verb in range(len(parsed.tokens)):
        if parsed.pos(verb) != "VERB":
            continue
        roles: dict[str, list[Filler]] = {}

        def add(role: str, token: int) -> None:
            roles.setdefault(role, []).extend(reader.fillers(token))

        head = parsed.head(verb)
        for child in reader.children.get(verb, ()):
            dep = parsed.dep(child)
            relative = parsed.word(child).casefold() in _RELATIVE and parsed.dep(verb) == "relcl"
            if dep in _SUBJECTS:
                add("subj", head if relative else child)
            elif dep == "nsubjpass":
                add("obj", head if relative else child)
            elif dep in _OBJECTS:
                add("obj", child)
            elif dep == "agent":
                for noun in reader.children.get(child, ()):
                    if parsed.dep(noun) == "pobj":
                        add("subj", noun)
            elif dep in ("prep", "dative"):  # "lend X *to* B": the parser calls a recipient's "to" a dative
                for noun in reader.children.get(child, ()):
                    if parsed.dep(noun) == "pobj":
                        add(f"prep:{parsed.word(child).casefold()}", noun)
        if parsed.dep(verb) == "acl" and any(parsed.dep(c) == "agent" for c in reader.children.get(verb, ())):
            add("obj", head)  # "a film directed by X": the noun is what is done to
        if parsed.dep(verb) == "conj" and "subj" not in roles and parsed.pos(head) == "VERB":
            for child in reader.children.get(head, ()):
                if parsed.dep(child) in _SUBJECTS:
                    add("subj", child)  # "X founded A and led B": the subject is shared
        filled = {role: tuple(found) for role, found in roles.items() if found}
        if len(filled) >= 2:
            lemma = parsed.lemma(verb).casefold()
            out.append(Relation(SAME_VERB.get(lemma, lemma), filled, sentence_of.get(verb, parsed.text)))
    return out


def _as_name(filler: Filler) -> Filler:
    """A capitalised noun the tagger did not take for a name ("Salesforce acquired ..." at a sentence's start)."""
    if filler.kind == "noun" and filler.text[:1].isupper():
        return Filler("name", name_key(filler.text), filler.text)
    return filler


def _same(left: Filler, right: Filler) -> bool:
    if left.kind != right.kind and "name" in (left.kind, right.kind):
        left, right = _as_name(left), _as_name(right)
    if left.kind != right.kind:
        return False
    if left.kind == "name":
        return same_name(left.key, right.key)
    if left.kind == "number":
        return _same_number(left.text, right.text)
    return left.key == right.key


@lru_cache(maxsize=4096)
def _same_number(answer: str, context: str) -> bool:
    """Whether a number or date as the context writes it states the answer's (at the answer's precision)."""
    from .collect import extract_facts
    from .extract import FactIndex

    facts = extract_facts(answer)
    if not facts:
        return answer.casefold() == context.casefold()
    index = FactIndex(context)
    return all(index.supports(f) for f in facts)


def _mentions(sentence: str, filler: Filler) -> bool:
    """Whether a context sentence mentions the filler at all (in any relation the parse may have missed)."""
    if filler.kind == "name":
        words = {inflection_of(m.group(0)) for m in WORD.finditer(sentence)}
        return set(filler.key) <= words
    if filler.kind == "number":
        from .collect import extract_facts
        from .extract import FactIndex

        facts = extract_facts(filler.text)
        index = FactIndex(sentence)
        return bool(facts) and all(index.supports(f) for f in facts)
    return filler.key[0] in sentence.casefold()


def conflicts(answer: Sequence[Relation], context: Sequence[Relation], sentences: Sequence[str]) -> list[Conflict]:
    """Role swaps and conflicts of the answer's relations with the context's (see the module docstring);
    ``sentences`` are the context's, where a name or number may be mentioned outside any relation."""
    by_verb: dict[str, list[Relation]] = {}
    for relation in context:
        by_verb.setdefault(relation.verb, []).append(relation)
    found: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    for relation in answer:
        same_verb = by_verb.get(relation.verb)
        if not same_verb:
            continue
        for conflict in _swaps(relation, same_verb) + _slot_conflicts(relation, same_verb, sentences):
            if (conflict.kind, conflict.answer) not in seen:
                seen.add((conflict.kind, conflict.answer))
                found.append(conflict)
    return found


def _holds(relations: Iterable[Relation], role: str, filler: Filler) -> list[Relation]:
    return [r for r in relations if any(_same(filler, other) for other in r.roles.get(role, ()))]


#: Verbs that state the same relation with their parties in the same roles, as one ("A bought B" is "A acquired B").
SAME_VERB = {
    verb: group.split()[0]
    for group in """
    acquire buy purchase
    defeat beat
    found establish
    lend loan
    hire employ recruit
    succeed replace
""".strip().splitlines()
    for verb in group.split()
}


#: Verbs whose two parties can trade places without changing the claim ("A married B" is "B married A").
SYMMETRIC = frozenset(
    """
    meet marry date divorce play face fight battle tie draw partner collaborate cooperate work merge share join
    resemble equal match neighbour neighbor border touch
""".split()
)


def _swaps(relation: Relation, context: Sequence[Relation]) -> list[Conflict]:
    """Two names of the context in exchanged roles of the same verb: doer and done-to ("A acquired B" / "B acquired
    A"), or any two roles ("A lost to B" / "B lost to A"); symmetric verbs ("A married B") excepted."""
    if relation.verb in SYMMETRIC:
        return []
    out = []
    roles = sorted(relation.roles)
    for first, second in ((a, b) for i, a in enumerate(roles) for b in roles[i + 1 :]):
        for one in map(_as_name, relation.roles[first]):
            for other in map(_as_name, relation.roles[second]):
                if one.kind != "name" or other.kind != "name" or _same(one, other):
                    continue
                stated = [r for r in _holds(context, first, one) if _holds([r], second, other)]
                swapped = [r for r in _holds(context, first, other) if _holds([r], second, one)]
                if swapped and not stated:
                    out.append(
                        Conflict("role swap", relation.verb, f"{one.text!r} and {other.text!r}", swapped[0].sentence)
                    )
    return out


def _slot_conflicts(relation: Relation, context: Sequence[Relation], sentences: Sequence[str]) -> list[Conflict]:
    out = []
    for anchor_role, anchors in relation.roles.items():
        for anchor in anchors:
            if anchor.kind != "name":
                continue  # a plain noun ("the company") is too loose an anchor
            anchored = _holds(context, anchor_role, anchor)
            if not anchored:
                continue
            near: set[int] | None = None  # the context sentences around the anchor's mentions, found once
            for role, fillers in relation.roles.items():
                if role == anchor_role:
                    continue
                for filler in fillers:
                    if filler.kind not in ("name", "number"):
                        continue
                    if _holds(anchored, role, filler):
                        continue  # the context says it too
                    others = [
                        r
                        for r in anchored
                        if any(o.kind == filler.kind and not _same(filler, o) for o in r.roles.get(role, ()))
                    ]
                    if not others:
                        continue
                    mentioned = [i for i, s in enumerate(sentences) if _mentions(s, filler)]
                    if not mentioned:
                        continue  # a name or number the context never states: the fact check names it
                    if near is None:
                        near = {
                            j
                            for i, s in enumerate(sentences)
                            if _mentions(s, anchor)
                            for j in range(i - NEAR, i + NEAR + 1)
                        }
                    if near.intersection(mentioned):
                        continue  # the context puts them close together: perhaps it says so in words the parse missed
                    phrase = f"{_verb_phrase(relation.verb, anchor_role, anchor, role, filler)}"
                    out.append(Conflict("conflict", relation.verb, phrase, others[0].sentence))
    return out


def _verb_phrase(verb: str, anchor_role: str, anchor: Filler, role: str, filler: Filler) -> str:
    """How a conflict is shown: ``'Kjelsberg' ... bear ... in 'Buskerud'``."""

    def part(r: str, f: Filler) -> str:
        return f"{r.partition(':')[2]} {f.text!r}" if r.startswith("prep:") else repr(f.text)

    parts = {anchor_role: part(anchor_role, anchor), role: part(role, filler)}
    ordered = [parts[r] for r in ("subj",) if r in parts] + [verb] + [parts[r] for r in parts if r != "subj"]
    return " ".join(ordered)


_BE = frozenset({"is", "was", "are", "were", "be", "been", "being", "has", "have", "had"})


_BETWEEN = re.compile(r"^[\s,]*((?:[a-z][\w'-]*\s+){0,4}[a-z][\w'-]*)[\s,]*$")


def _links(sentence: str) -> list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str, str]]:
    """``(verb words, doer, done, doer text, done text)`` for each two names joined by lower-case words."""
    names = list(rule_names(sentence))
    out = []
    for left, right in zip(names, names[1:]):
        between = sentence[left.start + len(left.text) : right.start]
        match = _BETWEEN.match(between)
        if not match:
            continue
        words = [w.casefold() for w in match.group(1).split()]
        left_key, right_key = name_key(left.text), name_key(right.text)
        if not left_key or not right_key:
            continue
        if len(words) >= 3 and words[-1] == "by" and words[0] in _BE:
            verb = tuple(_stem(w) for w in words[1:-1] if w not in _BE)
            out.append((verb, right_key, left_key, right.text, left.text))  # "A was acquired by B": B acquired A
        elif not set(words) <= FUNCTION_WORDS:
            verb = tuple(_stem(w) for w in words if w not in _BE)
            out.append((verb, left_key, right_key, left.text, right.text))
    return out


def _stem(word: str) -> str:
    from .names import word_stem

    stem = word_stem(word)
    return stem[:-1] if stem.endswith("e") and len(stem) > 4 else stem


#: `SYMMETRIC` as word order reads verbs.
_SYMMETRIC_STEMS = frozenset(_stem(word) for word in SYMMETRIC)


def surface_swaps(sentence: str, context_sentences: Sequence[str]) -> list[Conflict]:
    """Role swaps from word order, for texts without a parse (see the module docstring)."""
    mine = _links(sentence)
    if not mine:
        return []
    theirs = [(link, text) for text in context_sentences for link in _links(text)]
    out = []
    for verb, doer, done, doer_text, done_text in mine:
        if _SYMMETRIC_STEMS.intersection(verb):
            continue
        same = [(link, text) for link, text in theirs if link[0] == verb]
        stated = any(same_name(doer, link[1]) and same_name(done, link[2]) for link, _ in same)
        swapped = [text for link, text in same if same_name(done, link[1]) and same_name(doer, link[2])]
        if swapped and not stated:
            out.append(Conflict("role swap", " ".join(verb), f"{doer_text!r} and {done_text!r}", swapped[0]))
    return out
