"""The ``sentence_count`` check: Sentences in the answer (NLTK's Punkt, else the rule-based splitter; a sentence holds
at least one word)."""

from __future__ import annotations

from typing import Any

from ...kit import Result
from ...kit.text import counted
from .statistics import ANSWER_FIELDS, SentenceStatistic, bounded_metrics, sentence_count, statistic_check

__all__ = ["assert_sentence_count", "SentenceCount"]


def assert_sentence_count(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` sentences."""
    __tracebackhide__ = True
    return statistic_check(SentenceCount, actual, context, kwargs, min=min, max=max, fields=fields)


class SentenceCount(SentenceStatistic):
    """Sentences in the answer (NLTK's Punkt, else the rule-based splitter; a sentence holds at least one word)."""

    name = "sentence_count"
    helper = "assert_sentence_count"
    description = "Sentences in the answer, within optional min / max"
    metrics = bounded_metrics("sentence_count", "sentences holding a word")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(sentence_count(text, self.splitter[1]) for text in texts)
        return {"sentence_count": float(count)}, counted(count, "sentence"), {}
