"""The ``japanese_character_count`` check: Japanese characters (hiragana, katakana, kanji) in the answer, and their
share of its non-space characters."""

from __future__ import annotations

import re
from typing import Any

from ...kit import MetricSpec
from ...kit import Result
from ...kit.text import counted
from .statistics import ANSWER_FIELDS, TextStatistic, bounded_metrics, statistic_check

__all__ = ["assert_japanese_character_count", "JapaneseCharacterCount", "japanese_characters"]


def assert_japanese_character_count(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` Japanese characters (hiragana, katakana, kanji)."""
    __tracebackhide__ = True
    return statistic_check(JapaneseCharacterCount, actual, context, kwargs, min=min, max=max, fields=fields)


_JAPANESE = re.compile(
    "[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f\u3005-\u3007"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]"
)


def japanese_characters(text: str) -> int:
    """Hiragana, katakana and kanji in ``text``.

    >>> japanese_characters("東京タワーは、とても高いです。Tokyo")
    13
    """
    return len(_JAPANESE.findall(text))


class JapaneseCharacterCount(TextStatistic):
    """Japanese characters (hiragana, katakana, kanji) in the answer, and their share of its non-space characters."""

    name = "japanese_character_count"
    helper = "assert_japanese_character_count"
    description = "Japanese characters (kana and kanji) in the answer, within optional min / max"
    metrics = (
        *bounded_metrics("japanese_character_count", "hiragana, katakana and kanji characters", higher_is_better=True),
        MetricSpec("japanese_share", "Japanese characters / non-space characters", threshold=None),
    )

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        count = sum(japanese_characters(text) for text in texts)
        visible = sum(len(text) - sum(ch.isspace() for ch in text) for text in texts)
        share = count / visible if visible else 0.0
        return (
            {"japanese_character_count": float(count), "japanese_share": share},
            f"{counted(count, 'Japanese character')} ({share:.0%})",
            {},
        )
