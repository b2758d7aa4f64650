"""The ``reading_time`` check: Seconds an average adult takes to read the answer (``min`` / ``max`` in seconds).
Parameters: ``wpm`` (265), ``fields``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import require_number
from ...kit import Result
from .statistics import ANSWER_FIELDS, TextStatistic, bounded_metrics, statistic_check, words

__all__ = ["assert_reading_time", "ReadingTime"]


def assert_reading_time(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    wpm: float = 265,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer takes between ``min`` and ``max`` seconds to read at ``wpm`` words per minute (plus images)."""
    __tracebackhide__ = True
    return statistic_check(ReadingTime, actual, context, kwargs, min=min, max=max, wpm=wpm, fields=fields)


_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)|<img\b[^>]*>", re.IGNORECASE)


_TAG = re.compile(r"</?[a-zA-Z][^>\n]*>")


class ReadingTime(TextStatistic):
    """Seconds an average adult takes to read the answer (``min`` / ``max`` in seconds). Parameters: ``wpm`` (265),
    ``fields``.

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = ReadingTime().evaluate([Case(actual="word " * 265 + "![chart](c.png)")])
    >>> r.metrics["reading_time"]
    72.0
    """

    name = "reading_time"
    helper = "assert_reading_time"
    description = "Seconds to read the answer at 265 words per minute (plus images), within optional min / max"
    defaults: ClassVar[Mapping[str, Any]] = {**TextStatistic.defaults, "wpm": 265}
    metrics = bounded_metrics(
        "reading_time", "words / wpm x 60 + 12 s for the first image (one less per image, at least 3 s)"
    )

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
