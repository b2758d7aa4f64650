"""The ``syllable_count`` check: Syllables of the answer's words (CMU Pronouncing Dictionary, spelling rules for unknown
words)."""

from __future__ import annotations

from typing import Any

from ...kit import package_version
from ...kit import Result
from ...kit.text import counted
from .statistics import (
    ANSWER_FIELDS,
    TextStatistic,
    syllable_total,
    bounded_metrics,
    cmudict_syllables,
    statistic_check,
    words,
)

__all__ = ["assert_syllable_count", "SyllableCount"]


def assert_syllable_count(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer's words have between ``min`` and ``max`` syllables in all (CMU Pronouncing Dictionary)."""
    __tracebackhide__ = True
    return statistic_check(SyllableCount, actual, context, kwargs, min=min, max=max, fields=fields)


class SyllableCount(TextStatistic):
    """Syllables of the answer's words (CMU Pronouncing Dictionary, spelling rules for unknown words)."""

    name = "syllable_count"
    helper = "assert_syllable_count"
    description = "Syllables in the answer (CMU Pronouncing Dictionary), within optional min / max"
    extra = "textstats"
    metrics = bounded_metrics("syllable_count", "syllables of all words (cmudict, else spelling rules)")

    def backend(self) -> str:
        return package_version("cmudict")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        table = cmudict_syllables()
        tokens = [w for text in texts for w in words(text)]
        count = syllable_total(tokens, table)
        unknown = sorted({w.lower() for w in tokens if w.lower().replace("’", "'") not in table})
        details = {"words": len(tokens), "not_in_cmudict": unknown[:20]}
        return (
            {"syllable_count": float(count)},
            f"{counted(count, 'syllable')} in {counted(len(tokens), 'word')}",
            details,
        )
