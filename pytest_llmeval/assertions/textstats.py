"""Text statistics (seed 003): counts, readability, reading time, tokens, Japanese characters.

Every helper records the value; ``min`` / ``max`` (inclusive, optional) fail the test when the
value lies outside, naming the bound. ``fields`` picks what is measured: the answer
(``"actual"``, the default), and also the prompt (``"question"``) and the retrieved
``"context"``, summed.

>>> assert_word_count("One two three.", max=5).metrics["word_count"]
3.0
"""

from __future__ import annotations

from typing import Any

from ..result import Result
from .core import _common, assert_check

__all__ = ['assert_word_count', 'assert_sentence_count', 'assert_syllable_count', 'assert_flesch_reading_ease',
           'assert_dale_chall', 'assert_reading_time', 'assert_token_count', 'assert_japanese_character_count']

_ANSWER = ("actual",)


def _statistic(name: str, actual: str, context: Any, kwargs: dict[str, Any], **params: Any) -> Result:
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check(name, actual=actual, context=context, params=params, **kwargs)


def assert_word_count(
    actual: str, *, min: float | None = None, max: float | None = None, context: Any = None, fields: Any = _ANSWER,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` words (``don't`` and ``15,969`` are one word each)."""
    __tracebackhide__ = True
    return _statistic("word_count", actual, context, kwargs, min=min, max=max, fields=fields)


def assert_sentence_count(
    actual: str, *, min: float | None = None, max: float | None = None, context: Any = None, fields: Any = _ANSWER,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` sentences."""
    __tracebackhide__ = True
    return _statistic("sentence_count", actual, context, kwargs, min=min, max=max, fields=fields)


def assert_syllable_count(
    actual: str, *, min: float | None = None, max: float | None = None, context: Any = None, fields: Any = _ANSWER,
    **kwargs: Any,
) -> Result:
    """The answer's words have between ``min`` and ``max`` syllables in all (CMU Pronouncing Dictionary)."""
    __tracebackhide__ = True
    return _statistic("syllable_count", actual, context, kwargs, min=min, max=max, fields=fields)


def assert_flesch_reading_ease(
    actual: str, *, min: float | None = None, max: float | None = None, min_words: int = 100, context: Any = None,
    fields: Any = _ANSWER, **kwargs: Any,
) -> Result:
    """Flesch reading ease of the answer within bounds (higher is easier; ``min=60``: plain English).

    Texts under ``min_words`` words (100, as the seed) are not scored, and fail when a bound is given.
    """
    __tracebackhide__ = True
    return _statistic("flesch_reading_ease", actual, context, kwargs, min=min, max=max, min_words=min_words, fields=fields)


def assert_dale_chall(
    actual: str, *, min: float | None = None, max: float | None = None, min_words: int = 100, context: Any = None,
    fields: Any = _ANSWER, **kwargs: Any,
) -> Result:
    """Dale-Chall readability of the answer within bounds (lower is easier; ``max=8.9``: up to 12th grade).

    Texts under ``min_words`` words (100, as the seed) are not scored, and fail when a bound is given.
    """
    __tracebackhide__ = True
    return _statistic("dale_chall", actual, context, kwargs, min=min, max=max, min_words=min_words, fields=fields)


def assert_reading_time(
    actual: str, *, min: float | None = None, max: float | None = None, wpm: float = 265, context: Any = None,
    fields: Any = _ANSWER, **kwargs: Any,
) -> Result:
    """The answer takes between ``min`` and ``max`` seconds to read at ``wpm`` words per minute (plus images)."""
    __tracebackhide__ = True
    return _statistic("reading_time", actual, context, kwargs, min=min, max=max, wpm=wpm, fields=fields)


def assert_token_count(
    actual: str, *, min: float | None = None, max: float | None = None, encoding: str = "cl100k_base", context: Any = None,
    fields: Any = _ANSWER, **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` tiktoken tokens (``cl100k_base``, or ``o200k_base``)."""
    __tracebackhide__ = True
    return _statistic("token_count", actual, context, kwargs, min=min, max=max, encoding=encoding, fields=fields)


def assert_japanese_character_count(
    actual: str, *, min: float | None = None, max: float | None = None, context: Any = None, fields: Any = _ANSWER,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` Japanese characters (hiragana, katakana, kanji)."""
    __tracebackhide__ = True
    return _statistic("japanese_character_count", actual, context, kwargs, min=min, max=max, fields=fields)
