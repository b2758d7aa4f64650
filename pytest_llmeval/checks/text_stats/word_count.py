"""The ``word_count`` check: Words in the answer (letters or digits; ``don't`` and ``15,969`` are one word each)."""

from __future__ import annotations

from typing import Any

from ...kit import Result
from ...kit.text import counted
from .statistics import ANSWER_FIELDS, TextStatistic, bounded_metrics, statistic_check, words

__all__ = ["assert_word_count", "WordCount"]


def assert_word_count(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` words (``don't`` and ``15,969`` are one word each)."""
    __tracebackhide__ = True
    return statistic_check(WordCount, actual, context, kwargs, min=min, max=max, fields=fields)


class WordCount(TextStatistic):
    """Words in the answer (letters or digits; ``don't`` and ``15,969`` are one word each).

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = WordCount(max=5).evaluate([Case(actual="One two three, four five six.")])
    >>> r.metrics["word_count"], r.passed, r.reason
    (6.0, False, 'word_count 6 is above max 5; 6 words')
    """

    name = "word_count"
    helper = "assert_word_count"
    description = "Words in the answer, within optional min / max"
    metrics = bounded_metrics("word_count", "words (runs of letters or digits)")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(len(words(text)) for text in texts)
        return {"word_count": float(count)}, counted(count, "word"), {}
