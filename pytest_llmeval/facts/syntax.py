"""Parsed texts: tokens with lemma, part of speech and dependency, sentences and named entities.

The fact layer reads names from a text's entities and relations (who did what to
whom) from its dependency parse. Both come from spaCy's English pipeline when one
is installed (the ``embeddings`` extra ships ``en_core_web_sm``); each distinct text
is parsed once per process, texts are parsed in batches (``nlp.pipe``), and the parses
are kept on disk beside the embeddings (``<cache dir>/parses/``), keyed by the
text and the parser's signature (spaCy model and version, and `PARSER_VERSION`),
so a rerun of unchanged texts neither parses anything nor imports spaCy.

A `Parsed` text is plain data (it travels through JSON):

>>> parsed = Parsed.from_json("Bacon designed it.", {"t": [[0, 5, "Bacon", "PROPN", "nsubj", 1],
...     [6, 14, "design", "VERB", "ROOT", 1], [15, 17, "it", "PRON", "dobj", 1], [17, 18, ".", "PUNCT", "punct", 1]],
...     "s": [[0, 4]], "e": [[0, 5, "PERSON"]]})
>>> [parsed.word(i) for i in range(3)], parsed.lemma(1), parsed.head(0)
(['Bacon', 'designed', 'it'], 'design', 1)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..models.stores import ParseStore, text_key
from .names import SPACY_MAX_CHARS, entity_name

if TYPE_CHECKING:
    from ..models.cache import ModelCache
    from .parsing import Fact

__all__ = [
    "Parsed",
    "Parser",
    "ModelSource",
    "PARSER_VERSION",
    "MAX_PARSE_CHARS",
    "prepare",
    "parser_for",
    "proper_runs",
]


#: Bumped whenever what is kept of a parse, or how a text is prepared for it, changes.
PARSER_VERSION = "2"


#: Texts longer than this are not parsed (their names come from the rules): the fact layer's limit for spaCy.
MAX_PARSE_CHARS = SPACY_MAX_CHARS


#: Texts parsed in one ``nlp.pipe`` batch.
BATCH = 64


def prepare(text: str) -> str:
    """The text as it is parsed: numbers a tokeniser split joined again, lone surrogates replaced (one character
    each, so offsets hold; spaCy cannot encode a lone surrogate)."""
    from ..text.basics import replace_surrogates
    from .parsing import detokenize_numbers

    return replace_surrogates(detokenize_numbers(text))


@dataclass(frozen=True)
class Parsed:
    """One parsed text.

    Attributes:
        text: The text as parsed (`prepare()`'s output).
        tokens: Per token ``(start, end, lemma, pos, dep, head)``: character offsets in
            ``text``, the lemma, the universal part of speech, the dependency label and
            the index of its head token (the root is its own head).
        sents: Token ranges ``(first, last + 1)`` of the sentences.
        ents: Named entities as character spans ``(start, end, label)``.
    """

    text: str
    tokens: tuple[tuple[int, int, str, str, str, int], ...]
    sents: tuple[tuple[int, int], ...]
    ents: tuple[tuple[int, int, str], ...]

    def word(self, index: int) -> str:
        start, end = self.tokens[index][:2]
        return self.text[start:end]

    def lemma(self, index: int) -> str:
        return self.tokens[index][2]

    def pos(self, index: int) -> str:
        return self.tokens[index][3]

    def dep(self, index: int) -> str:
        return self.tokens[index][4]

    def head(self, index: int) -> int:
        return self.tokens[index][5]

    def to_json(self) -> dict[str, Any]:
        return {
            "t": [list(t) for t in self.tokens],
            "s": [list(s) for s in self.sents],
            "e": [list(e) for e in self.ents],
        }

    @classmethod
    def from_json(cls, text: str, data: dict[str, Any]) -> Parsed:
        return cls(
            text,
            tuple((int(a), int(b), str(c), str(d), str(e), int(f)) for a, b, c, d, e, f in data["t"]),
            tuple((int(a), int(b)) for a, b in data["s"]),
            tuple((int(a), int(b), str(c)) for a, b, c in data["e"]),
        )

    @classmethod
    def from_doc(cls, text: str, doc: Any) -> Parsed:
        """From a spaCy ``Doc`` of ``text``."""
        tokens = tuple((t.idx, t.idx + len(t.text), t.lemma_, t.pos_, t.dep_, t.head.i) for t in doc)
        sents = tuple((s.start, s.end) for s in doc.sents) if doc.has_annotation("SENT_START") else ((0, len(doc)),)
        ents = tuple((e.start_char, e.end_char, e.label_) for e in doc.ents)
        return cls(text, tokens, sents, ents)


class ModelSource(Protocol):
    """What a parser needs of the model cache (`ModelCache`): where parses are
    kept, and a model loaded once per process."""

    cache_dir: str | None

    def model(self, key: str, build: Callable[[], Any]) -> Any: ...


class Parser:
    """spaCy's English pipeline behind a cache: `parse_many()` parses what is not cached, in batches.

    One per spaCy model and `ModelCache` (so per process);
    the pipeline loads through the model cache on the first text that needs parsing.
    """

    #: Parses kept in memory (the most recent); the disk cache keeps them all.
    KEEP = 4096

    def __init__(self, model: str, cache: ModelSource) -> None:
        from importlib import metadata

        self.model = model
        self._cache = cache
        try:
            version = metadata.version(model.replace("_", "-"))
        except metadata.PackageNotFoundError:
            version = "?"
        try:
            spacy_version = metadata.version("spacy")
        except metadata.PackageNotFoundError:
            spacy_version = "?"
        #: What the parses depend on; part of the signature of every check that reads them.
        self.signature = f"spacy:{model}=={version}|spacy=={spacy_version}|parse v{PARSER_VERSION}"
        self._memory: dict[str, Parsed] = {}
        self._new: dict[str, dict[str, Any]] = {}
        self._store = ParseStore(cache.cache_dir, self.signature) if cache.cache_dir else None
        self._disk: dict[str, Any] | None = None
        self.parsed = 0
        self.hits = 0

    def nlp(self) -> Any:
        """The loaded pipeline (tagger, parser, lemmatizer, entities), loaded once per process."""
        name = self.model

        def build() -> Any:
            import spacy

            return spacy.load(name)

        return self._cache.model(f"spaCy {name}", build)

    def parse_many(self, texts: Sequence[str]) -> list[Parsed | None]:
        """The parse of each text (``None`` for one too long to parse), parsing the missing ones in batches."""
        prepared = [prepare(t) for t in texts]
        keys = [text_key(p) for p in prepared]
        missing: dict[str, str] = {}
        for key, text in zip(keys, prepared):
            if key in self._memory or key in missing or len(text) > MAX_PARSE_CHARS:
                continue
            stored = self._from_disk(key, text)
            if stored is not None:
                self._memory[key] = stored
            else:
                missing[key] = text
        self.hits += sum(1 for k, t in zip(keys, prepared) if len(t) <= MAX_PARSE_CHARS) - len(missing)
        if missing:
            nlp = self.nlp()
            for (key, text), doc in zip(missing.items(), nlp.pipe(list(missing.values()), batch_size=BATCH)):
                parsed = Parsed.from_doc(text, doc)
                self._memory[key] = parsed
                self._new[key] = parsed.to_json()
            self.parsed += len(missing)
        out = [self._memory.get(key) if len(text) <= MAX_PARSE_CHARS else None for key, text in zip(keys, prepared)]
        if len(self._memory) > self.KEEP:  # the oldest go; the disk cache still has them
            for key in list(itertools.islice(self._memory, len(self._memory) - self.KEEP)):
                del self._memory[key]
        return out

    def _from_disk(self, key: str, text: str) -> Parsed | None:
        if self._store is None:
            return None
        if self._disk is None:
            self._disk = self._store.load()
        data = self._disk.get(key)
        if data is None:
            return None
        try:
            return Parsed.from_json(text, data)
        except (KeyError, TypeError, ValueError):
            return None  # an entry of another layout: parsed again

    def flush(self) -> None:
        if self._store is not None and self._new:
            self._store.save(self._new)
            self._new = {}

    def compact(self) -> None:
        if self._store is not None:
            self._store.compact()

    def stats(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "signature": self.signature,
            "parsed": self.parsed,
            "cache_hits": self.hits,
            "rejected_cache_files": self._store.rejected if self._store else 0,
        }


def parser_for(models: ModelCache, model: str) -> Parser:
    """The parser of spaCy model ``model`` with its parse cache: one per model cache (so per process), kept beside
    the models so that the session flushes and counts it with the embeddings."""
    return models.kept("parsers", model, lambda: Parser(model, models))


def proper_runs(parsed: Parsed, months: Container[str]) -> Iterator[Fact]:
    """Names the entity recogniser missed: runs of capitalised proper nouns outside every entity ("Anders Lindqvist",
    "Royal Geographical Society" after an entity cut short at "the Gold Medal of"), of two words or more (a single
    capitalised word the recogniser left out is too often a label: "Suite 200", "Wi-Fi", "ZIP code")."""
    taken = [(start, end) for start, end, _ in parsed.ents]
    run: list[int] = []

    def flush() -> Iterator[Fact]:
        if len(run) > 1:
            start, end = parsed.tokens[run[0]][0], parsed.tokens[run[-1]][1]
            fact = entity_name(parsed.text[start:end], start)
            if fact is not None:
                yield fact
        run.clear()

    for index, token in enumerate(parsed.tokens):
        word = parsed.text[token[0] : token[1]]
        inside = any(start <= token[0] < end for start, end in taken)
        if token[3] == "PROPN" and word[:1].isupper() and not inside and word.casefold() not in months:
            run.append(index)
            continue
        yield from flush()
    yield from flush()
