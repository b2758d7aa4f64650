"""Offline evidence that an answer is not grounded in its context, gathered claim by claim for the groundedness check
(`pytest_llmeval.checks.embedding.groundedness`).

What a context gives once (`Source`: its fact index, words, relations, numbers and records) and
`find_evidence()`: per claim, facts the context does not state (by kind: ``number``, ``changed_number``, ``unit``,
``date``, ``time``, ``name``), a field the record leaves empty (``null_field``), a negation flip, role swaps and
conflicting relations, a comparison whose order the context's own dates or figures reverse (``order``), claims
sharing nothing with the context; `unlinked()` adds the word pairs an answer to a question puts together that the
context never does. Each piece is marked as failing the answer or as a concern by ``fail_on``
(`pytest_llmeval.facts.kinds`). `read_answer()` and `read_chunk()` read an answer (Markdown,
lead-ins about the sources, sentences that claim nothing, refusals) and a context chunk (records) first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..text.basics import excerpt
from .fact import fact_end
from .evidence import Evidence, describe_unshared, fact_kind, messages, small_count, unshared_words
from .layer import PairIndex, describe_fact, sentence_label
from .names import FUNCTION_WORDS

if TYPE_CHECKING:
    from .contrasts import ClauseIndex
    from .evidence import NumberSentences
    from .extract import FactCheck, FactIndex
    from .parsing import Fact
    from .records import Record
    from .relations import Relation
    from .syntax import Parsed

__all__ = [
    "Source",
    "find_evidence",
    "confirmed_by_record",
    "unlinked",
    "said",
    "failing_first",
    "read_answer",
    "read_chunk",
    "Answer",
    "SHOWN",
    "context_chunks",
]


#: Pieces of evidence named in a reason (the details list more).
SHOWN = 5


#: Answering a question, a claim that no context sentence supports (support below this) but whose words come from
#: the context and the question links things the context keeps apart when (a) most of its content words are there
#: (this share) and two of them never meet in one context sentence, or (b) nearly all are there (this share) and two
#: neighbours of it are never neighbours in a context sentence.
LINK_SUPPORT = 0.7


#: A claim that shares no word with the context shares nothing when its similarity to every context sentence is also
#: below this, or when it answers a question with at most this many words of its own.
UNSHARED_SIMILARITY = 0.4


UNSHARED_WORDS = 2


LINK_COVERAGE = 0.7


LINK_COVERAGE_NEAR = 0.9


@dataclass
class Source:
    """What the checks of one context need, computed once per context: its fact index, relations and words."""

    index: FactIndex
    parse: Parsed | None  # None without a parse
    pairs: PairIndex  # its sentences' words, word pairs and stems
    sentences: list[str]
    chunks: tuple[str, ...] = ()  # the context as given (records in their own form)

    @property
    def stems(self) -> set[str]:
        return self.pairs.words

    @cached_property
    def roots(self) -> set[str]:
        """Its content words without inflection (read on first use), to tell a word it never uses in any form."""
        from .layer import root_stems

        return {r for sentence in self.sentences for r in root_stems(sentence)}

    @cached_property
    def verbs(self) -> set[str]:
        """The lemmas of the context's verbs (read once): an answer sentence with none of them has no relation to
        compare."""
        parse = self.parse
        return (
            set()
            if parse is None
            else {parse.lemma(i).casefold() for i in range(len(parse.tokens)) if parse.pos(i) == "VERB"}
        )

    @cached_property
    def numbers(self) -> NumberSentences:
        """The context's numbers with their sentences (read on first use), to tell a changed number."""
        from .evidence import NumberSentences

        return NumberSentences(self.sentences)

    @cached_property
    def records(self) -> list[Record]:
        """The context's chunks read as records (a dict, JSON or Python-literal text), for their null fields."""
        return [record for record in (read_chunk(chunk) for chunk in self.chunks) if record is not None]

    @cached_property
    def clauses(self) -> ClauseIndex:
        """The context's clauses by their predicate words (read on first use), to find an opposite predicate."""
        from .contrasts import ClauseIndex
        from .fields import key_words

        return ClauseIndex(self.sentences, keys=[w for record in self.records for w in key_words(record)])

    @cached_property
    def names(self) -> list[tuple[tuple[str, ...], str]]:
        """The context's names of two or more words (their words and text), to tell a name with one word changed."""
        found = {(fact.value, fact.text) for fact in self.index.facts if fact.kind == "name" and len(fact.value) > 1}
        return sorted(found)

    @cached_property
    def relations(self) -> list[Relation]:
        """The context's relations, read on first use."""
        from .relations import relations

        return relations(self.parse) if self.parse is not None else []


def find_evidence(
    checked: Sequence[str],
    checks: Sequence[FactCheck],
    claimed: Sequence[int],
    parses: Sequence[Parsed | None],
    source: Source,
    given_stems: set[str],
    given: FactIndex | None,
    question: str | None,
    similarity: Sequence[float],
    *,
    numbered: bool,
    fail_on: frozenset[str] | set[str],
) -> tuple[list[Evidence], list[str]]:
    """The named evidence against each claim (``checked[i]`` for ``i`` in ``claimed``), in sentence order, each marked
    as failing the answer when its kind is in ``fail_on``, and notes on what was too weak to count."""
    from .order import reversed_orders
    from .relations import conflicts, relations, surface_swaps

    from .layer import root_stems

    out: list[Evidence] = []
    notes: list[str] = []
    verbs = source.verbs if claimed else set()
    asked = set(root_stems(question)) if question and claimed else set()  # the question's words, in any form

    def add(kind: str, number: int, text: str, message: str) -> None:
        out.append(Evidence(kind, number, text, message, kind in fail_on))

    for i in claimed:
        text, check, number = checked[i], checks[i], i + 1
        where = sentence_label(number, numbered)
        for fact in check.unsupported:
            instead = source.index.counterpart(fact, text)
            kind = fact_kind(fact, instead, source.index.currencies)
            if kind == "name" and any(source.index.has_word(w) for w in fact.value if w not in FUNCTION_WORDS):
                kind = "name_part"
            field = record_field(source.records, text, fact) if kind in ("number", "time", "date", "unit") else None
            if field is not None:
                add(
                    "changed_number", number, fact.text, f"{fact.text!r} ({where}) is not what the record says: {field}"
                )
                continue
            changed = source.numbers.changed(fact, text) if kind == "number" else None
            if changed is not None:
                other, said = changed
                add(
                    "changed_number",
                    number,
                    fact.text,
                    f"{fact.text!r} ({where}) is not what the context says: it says "
                    f"{other.text!r} ({excerpt(said, 100)!r})",
                )
                continue
            if kind == "date" and source.index.yearless(fact):
                notes.append(f"{fact.text!r} ({where}) adds a year to a date the context gives without one")
                continue
            if kind in ("name", "name_part") and (
                _SOURCE_BEFORE.search(text, 0, max(0, fact.start)) or _SOURCE_AFTER.match(text, fact_end(fact))
            ):
                notes.append(f"{fact.text!r} ({where}) names where the answer comes from, not what it claims")
                continue
            if kind == "name" and _spelled_out(fact.text, text, source.index):
                notes.append(
                    f"{fact.text!r} ({where}) is the initialism of words the answer spells out and the context states"
                )
                continue
            if small_count(fact, question):
                notes.append(
                    f"{fact.text!r} ({where}) is not stated in the context, but a small count is too weak to fail on"
                )
                continue
            if fact.weak:
                notes.append(
                    f"{fact.text!r} ({where}) appears nowhere in the context, but a capitalised first word may "
                    "not be a name (spaCy's English model would tell: the embeddings extra installs it)"
                )
                continue
            if kind == "name_part":
                from .contrasts import changed_name, head_index

                named = changed_name(fact.value, fact.text, source.names, source.index.has_word)
                if named is not None:
                    add(
                        "changed_name",
                        number,
                        fact.text,
                        f"{fact.text!r} ({where}) is not the context's name: it says {named!r}",
                    )
                    continue
                missing = [w for w in fact.value if w not in FUNCTION_WORDS and not source.index.has_word(w)]
                if given is not None and given.has_words(missing):
                    notes.append(f"{fact.text!r} ({where}) is partly in the context and partly in the question")
                    continue
                if missing == [fact.value[head_index(fact.value, fact.text)]]:
                    notes.append(
                        f"{fact.text!r} ({where}) is only partly in the context ({missing[0]!r} is not), but the "
                        "head of a name is often another word for the same thing ('Summer Games', 'Summer Olympics')"
                    )
                    continue
                add(
                    kind,
                    number,
                    fact.text,
                    f"{fact.text!r} ({where}) is only partly in the context: "
                    f"{', '.join(map(repr, missing))} appear{'s' if len(missing) == 1 else ''} nowhere in it",
                )
                continue
            add(kind, number, fact.text, describe_fact(fact, where, "context", instead))
        for fact in check.facts if source.records else ():
            if fact in check.unsupported or fact.kind not in ("number", "money"):
                continue
            stated = record_mismatch(source.records, text, fact)  # the record's number, but another field's
            if stated is not None:
                add(
                    "changed_number",
                    number,
                    fact.text,
                    f"{fact.text!r} ({where}) is not what the record says: {stated}",
                )
        if check.polarity is not None:
            add(
                "negation",
                number,
                text,
                f"{where} and the context disagree on a negation: the context says {excerpt(check.polarity, 100)!r}",
            )
        for contrast in source.clauses.contrasts(text):
            add("antonym", number, contrast.said, contrast.describe(where))
        parse = parses[i]
        if parse is not None and source.parse is not None:
            shared = any(
                parse.pos(t) == "VERB" and parse.lemma(t).casefold() in verbs for t in range(len(parse.tokens))
            )
            found = conflicts(relations(parse), source.relations, source.sentences) if shared else []
        else:
            found = surface_swaps(text, source.sentences)
        for conflict in found:
            add(conflict.kind.replace(" ", "_"), number, conflict.answer, conflict.describe(where))
        for order in reversed_orders(text, question, source.sentences):
            add("order", number, order.claim, order.describe(where))
        for path in (p for record in source.records for p in record.asserted_nulls(text)):
            add("null_field", number, text, f"{where} speaks of what the record leaves empty: {path} is not given")
        if not check.unsupported:
            words = unshared_words(
                text, check.facts, source.index, source.stems, given_stems, given, roots=(source.roots, asked)
            )
            # Shares nothing: no word, and no meaning near the context's either, unless it answers a question
            # with a word or two of its own ("... was actually a wrestler.").
            if words and (similarity[i] < UNSHARED_SIMILARITY or (question and len(words) <= UNSHARED_WORDS)):
                add("unshared", number, text, describe_unshared(number, text, words, numbered=numbered))
            elif not words:
                from .contrasts import invented_clauses

                # Words in any form: "account" is the context's "accounting", "punish" its "Punishing".
                for clause, own in invented_clauses(text, source.roots, asked, root_stems):
                    shown = ", ".join(repr(w) for w in own[:4]) + (" ..." if len(own) > 4 else "")
                    add(
                        "clause",
                        number,
                        clause,
                        f"{where} adds a clause of its own: {excerpt(clause, 80)!r} "
                        f"({shown} appear{'s' if len(own) == 1 else ''} nowhere in the context)",
                    )
    return out, notes


#: Words after a name that make it the answer's source ("a *Pew Research* survey found", "the *Gallup* poll shows").
_SOURCE_AFTER = re.compile(
    r"(?:['’]s)?\s+(?:survey|study|poll|report|analysis|article|paper|census|review)s?\s+"
    r"(?:found|finds|shows?|showed|says?|said|reports?|reported|suggests?|suggested|estimates?|"
    r"estimated|concluded|concludes|states?|stated|notes?|noted)\b",
    re.IGNORECASE,
)

#: Words before a name that make it the answer's source ("According to a news article by *NPR*", "published in
#: *Nature*"): the name says where the claim comes from, not what it is.
_SOURCE_BEFORE = re.compile(
    r"(?:\baccording\s+to|\b(?:reported|posted|cited|quoted|stated)\s+(?:by|in|on)|\bpublished\s+(?:in|on)|"
    r"\b(?:article|report|"
    r"study|survey|post|page|blog|paper|interview|entry|website|site)\s+(?:by|from|in|on)|\bas\s+reported\s+(?:by|in))"
    r"(?:\s+(?:a|an|the|its|their|his|her))?(?:\s+[\w'’.-]+){0,3}\s*\Z",
    re.IGNORECASE,
)


def _spelled_out(name: str, sentence: str, index: FactIndex) -> bool:
    """An initialism ("MVD") whose words the answer writes out ("Marburg Virus Disease (MVD)") and the context
    states."""
    letters = name.replace(".", "")
    if not (2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper()):
        return False
    words = re.findall(r"[A-Za-z][\w'’-]*", sentence)
    significant = [w for w in words if w.casefold() not in FUNCTION_WORDS]
    for start in range(len(significant) - len(letters) + 1):
        run = significant[start : start + len(letters)]
        if "".join(w[0] for w in run).upper() == letters.upper() and all(index.has_word(w.casefold()) for w in run):
            return True
    return False


def record_field(records: Sequence[Record], sentence: str, fact: Fact) -> str | None:
    """The record field an answer sentence speaks of (its key's words in the sentence, nearest the fact) whose value is
    a fact of the
    same kind and unit as ``fact`` (a number, a time, a date), described (``hours.Monday is '10:0-20:0'``); ``None``
    when there is no such field, or when a key itself writes the number ("kids_under_12")."""
    from .parsing import clock_time_facts, date_facts, number_facts
    from .records import describe, field_for

    reader = {"time": clock_time_facts, "date": date_facts}.get(fact.kind, number_facts)
    digits = re.sub(r"\D", "", fact.text)

    def same_kind(value: str) -> bool:
        return any(other.kind == fact.kind and other.unit == fact.unit for other in reader(value))

    for record in records:
        found = field_for(record, sentence, same_kind, near=fact.start)
        if found is not None and not (digits and digits in re.sub(r"\D", " ", found[0]).split()):
            return describe(*found)
    return None


def record_mismatch(records: Sequence[Record], sentence: str, fact: Fact) -> str | None:
    """The one numeric record field an answer sentence names (every word of its key), when the sentence states one
    number and the field's is another (``'£12.99'`` where ``prices.paperback`` is 8.5, though the record gives 12.99
    for another key), described; else ``None``."""
    from .fields import mismatched_field

    return next((found for record in records if (found := mismatched_field(record, sentence, fact)) is not None), None)


def confirmed_by_record(records: Sequence[Record], sentence: str, facts: Sequence[Fact]) -> str | None:
    """The record field that states the whole of an answer sentence (`pytest_llmeval.facts.fields.confirming_field`),
    described, or ``None``."""
    from .fields import confirming_field

    return next((found for record in records if (found := confirming_field(record, sentence, facts)) is not None), None)


def unlinked(
    checked: list[str],
    claimed: list[int],
    support: list[float],
    together: Any,
    near: Any,
    found: list[Evidence],
    *,
    numbered: bool,
    fails: bool,
) -> list[Evidence]:
    """Claims of an answer to a question built from the context's and the question's words that no context sentence
    supports: the word pairs no context sentence holds are the evidence (see `LINK_COVERAGE`)."""
    from .layer import sentence_label, unlinked_pairs

    out = []
    accused = {e.sentence for e in found}
    for i in claimed:
        if i + 1 in accused or support[i] >= LINK_SUPPORT:
            continue
        coverage, missing = unlinked_pairs(checked[i], together)
        if coverage < LINK_COVERAGE or not missing:
            coverage, missing = unlinked_pairs(checked[i], near)
            if coverage < LINK_COVERAGE_NEAR or not missing:
                continue
        where = sentence_label(i + 1, numbered)
        shown = ", ".join(f"{a!r} with {b!r}" for a, b in missing[:3]) + (" ..." if len(missing) > 3 else "")
        out.append(
            Evidence(
                "word_pair",
                i + 1,
                checked[i],
                f"{where} puts {shown} together, which the context never does (support {support[i]:.3f})",
                fails,
            )
        )
    return out


def failing_first(evidence: Sequence[Evidence]) -> list[Evidence]:
    return [e for e in evidence if e.fails] + [e for e in evidence if not e.fails]


def said(evidence: Sequence[Evidence]) -> list[str]:
    """What a reason says of the evidence: the failing kinds' messages, then the concerns' (a finding repeated in
    several sentences said once)."""
    out: list[str] = []
    for fails in (True, False):
        lines = messages([e for e in evidence if e.fails == fails])
        if not lines:
            continue
        shown = lines[:SHOWN]
        if len(lines) > SHOWN:
            shown.append(f"... and {len(lines) - SHOWN} more piece(s) of {'evidence' if fails else 'concern'}")
        if not fails:
            kinds = ", ".join(dict.fromkeys(e.kind for e in evidence if not e.fails))
            shown[0] = f"concern ({kinds}: a kind that only warns, see fail_on): {shown[0]}"
        out.extend(shown)
    return out


@lru_cache(maxsize=256)
def read_chunk(chunk: str) -> Record | None:
    """A context chunk read as a record (a JSON or Python-literal dict or list), or ``None`` for prose."""
    from .records import read_record

    head = chunk.lstrip()[:1]
    return read_record(chunk) if head in ("{", "[", "`") else None


def context_chunks(context: Sequence[str]) -> tuple[str, ...]:
    """The context as the fact layer reads it: a record chunk as its sentences (``hours Monday: 10:0-20:0.``), prose
    as it is."""
    from .records import null_sentences

    out = []
    for chunk in context:
        record = read_chunk(chunk)
        out.append(" ".join((*record.sentences, *null_sentences(record))) if record is not None else chunk)
    return tuple(out)


#: Numbered citation marks ("[2]", "[1, 3]", "[4-6]").
_CITATION_MARKS = re.compile(r"[ \t]*\[\d{1,3}(?:[ \t]*[,–-][ \t]*\d{1,3}){0,9}\]")


@dataclass(frozen=True)
class Answer:
    """An answer as groundedness reads it: its sentences (Markdown read as sentences, a lead-in about the sources
    dropped: "Based on the passages, X" is X), and why a sentence claims nothing about the source."""

    sentences: tuple[str, ...]
    #: Sentence index -> why it is not checked: about the sources, a prompt echo, a closing, a heading, a refusal.
    not_claims: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The sentences that say the sources lack the answer.
    refusals: tuple[int, ...] = ()


@lru_cache(maxsize=1024)
def read_answer(text: str, question: str | None, limit: int) -> Answer:
    """The answer's sentences (at most ``limit``) and those that claim nothing about the source; kept for the next
    read of the same answer (the check reads it when planning its parses ahead and again when scoring)."""
    from .claims import framing, markdown_sentences, non_claim, refusal

    sentences: list[str] = []
    not_claims: dict[int, str] = {}
    refusals: list[int] = []
    for sentence in markdown_sentences(text)[:limit]:
        sentence = _CITATION_MARKS.sub("", sentence) or sentence  # "[2][5]": which passage, not a number of the claim
        framed, whole = framing(sentence), sentence
        if framed is not None and framed[1].strip():
            sentence = framed[1].strip()
        index = len(sentences)
        sentences.append(sentence)
        if refusal(whole):  # with its lead-in: "Based on the context, there is no indication that ..."
            not_claims[index] = "refusal"
            refusals.append(index)
            continue
        reason = non_claim(sentence, question)
        if reason is not None:
            not_claims[index] = reason
    return Answer(tuple(sentences), MappingProxyType(not_claims), tuple(refusals))
