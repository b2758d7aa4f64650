"""The ``flesch_reading_ease`` check: Flesch reading ease (higher is easier); ``min=60`` asks for plain English.
Parameters: ``min_words`` (100), ``fields``."""

from __future__ import annotations

from typing import Any

from ...kit import MetricSpec, package_version
from ...kit import Result
from .statistics import (
    INF,
    ANSWER_FIELDS,
    ReadabilityStatistic,
    syllable_total,
    bounded_metrics,
    cmudict_syllables,
    statistic_check,
)

__all__ = ["assert_flesch_reading_ease", "FleschReadingEase"]


def assert_flesch_reading_ease(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    min_words: int = 100,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """Flesch reading ease of the answer within bounds (higher is easier; ``min=60``: plain English).

    Texts under ``min_words`` words (100, as the seed) are not scored, and fail when a bound is given.
    """
    __tracebackhide__ = True
    return statistic_check(
        FleschReadingEase, actual, context, kwargs, min=min, max=max, min_words=min_words, fields=fields
    )


_FLESCH_BANDS = (
    (90, "very easy, 5th grade"),
    (80, "easy, 6th grade"),
    (70, "fairly easy, 7th grade"),
    (60, "standard, 8th-9th grade"),
    (50, "fairly difficult, 10th-12th grade"),
    (30, "difficult, college"),
    (-INF, "very difficult, college graduate"),
)


class FleschReadingEase(ReadabilityStatistic):
    """Flesch reading ease (higher is easier); ``min=60`` asks for plain English. Parameters: ``min_words`` (100),
    ``fields``."""

    name = "flesch_reading_ease"
    helper = "assert_flesch_reading_ease"
    description = "Flesch reading ease (0 hard - 100 easy) from sentence length and syllables per word"
    metrics = (
        *bounded_metrics(
            "flesch_reading_ease",
            "206.835 - 1.015 words/sentence - 84.6 syllables/word",
            higher_is_better=True,
            low=-INF,
            high=206.835 - 1.015 - 84.6,
        ),
        MetricSpec(
            "words_per_sentence", "mean words per sentence", higher_is_better=False, range=(0.0, INF), threshold=None
        ),
        MetricSpec(
            "syllables_per_word", "mean syllables per word", higher_is_better=False, range=(0.0, INF), threshold=None
        ),
    )

    def backend(self) -> str:
        return package_version("cmudict")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        tokens, sentences, short = self.counts(texts)
        if short:
            return (
                {"flesch_reading_ease": None, "words_per_sentence": None, "syllables_per_word": None},
                short,
                {"words": len(tokens)},
            )
        per_sentence = len(tokens) / sentences
        per_word = syllable_total(tokens, cmudict_syllables()) / len(tokens)
        score = 206.835 - 1.015 * per_sentence - 84.6 * per_word
        band = next(label for floor, label in _FLESCH_BANDS if score >= floor)
        reason = (
            f"Flesch reading ease {score:.1f} ({band}): {per_sentence:.1f} words per "
            f"sentence, {per_word:.2f} syllables per word"
        )
        metrics: dict[str, float | None] = {
            "flesch_reading_ease": score,
            "words_per_sentence": per_sentence,
            "syllables_per_word": per_word,
        }
        return metrics, reason, {"words": len(tokens), "sentences": sentences, "band": band}
