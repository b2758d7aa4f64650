"""The ``dale_chall`` check: Dale-Chall readability (lower is easier); ``max=8.9`` asks for 12th grade. Parameters:
``min_words`` (100), ``fields``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ...kit import MetricSpec, package_version
from ...kit import Result
from .statistics import (
    INF,
    ANSWER_FIELDS,
    EXTRA_HINT,
    ReadabilityStatistic,
    bounded_metrics,
    package_dir,
    statistic_check,
)

__all__ = ["assert_dale_chall", "DaleChall"]


def assert_dale_chall(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    min_words: int = 100,
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """Dale-Chall readability of the answer within bounds (lower is easier; ``max=8.9``: up to 12th grade).

    Texts under ``min_words`` words (100, as the seed) are not scored, and fail when a bound is given.
    """
    __tracebackhide__ = True
    return statistic_check(DaleChall, actual, context, kwargs, min=min, max=max, min_words=min_words, fields=fields)


@lru_cache(maxsize=1)
def dale_chall_words() -> frozenset[str]:
    """The Dale-Chall familiar words, from the installed ``textstat`` package's data (textstat is not imported)."""
    for folder in package_dir("textstat"):
        path = folder / "resources" / "en" / "easy_words.txt"
        if path.is_file():
            return frozenset(
                line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
            )
    raise ImportError(f"the Dale-Chall word list comes from the textstat package: {EXTRA_HINT}")


def _bases(word: str) -> Iterator[str]:
    """Candidate base forms of a regularly inflected word (plurals, possessives, -ed, -ing, -er, -est)."""
    base = re.sub(r"'(?:s|ll|re|ve|d|m)?$", "", word)  # possessives, contractions
    if base != word:
        word = base
        yield word
    for suffix, endings in (
        ("ies", ("y",)),
        ("ied", ("y",)),
        ("ier", ("y",)),
        ("iest", ("y",)),
        ("es", ("",)),
        ("s", ("",)),
        ("ed", ("", "e")),
        ("ing", ("", "e")),
        ("er", ("", "e")),
        ("est", ("", "e")),
    ):
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


_DALE_CHALL_BANDS = (
    (5, "4th grade or lower"),
    (6, "5th-6th grade"),
    (7, "7th-8th grade"),
    (8, "9th-10th grade"),
    (9, "11th-12th grade"),
    (10, "13th-15th grade, college"),
    (INF, "16th grade or higher, college graduate"),
)


class DaleChall(ReadabilityStatistic):
    """Dale-Chall readability (lower is easier); ``max=8.9`` asks for 12th grade. Parameters: ``min_words`` (100),
    ``fields``."""

    name = "dale_chall"
    helper = "assert_dale_chall"
    description = "Dale-Chall readability (U.S. grade band) from unfamiliar words and sentence length"
    metrics = (
        *bounded_metrics("dale_chall", "0.1579 x % difficult words + 0.0496 words/sentence (+3.6365 above 5%)"),
        MetricSpec(
            "difficult_words",
            "share of words not on the Dale-Chall familiar list",
            higher_is_better=False,
            threshold=None,
        ),
        MetricSpec(
            "words_per_sentence", "mean words per sentence", higher_is_better=False, range=(0.0, INF), threshold=None
        ),
    )

    def backend(self) -> str:
        return f"dale-chall list from {package_version('textstat')}"

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        tokens, sentences, short = self.counts(texts)
        if short:
            return (
                {"dale_chall": None, "difficult_words": None, "words_per_sentence": None},
                short,
                {"words": len(tokens)},
            )
        easy = dale_chall_words()
        verdicts = {token: familiar(token, easy) for token in set(tokens)}
        difficult = [w for w in tokens if not verdicts[w]]
        share, per_sentence = len(difficult) / len(tokens), len(tokens) / sentences
        score = 0.1579 * share * 100 + 0.0496 * per_sentence + (3.6365 if share * 100 > 5 else 0.0)
        band = next(label for ceiling, label in _DALE_CHALL_BANDS if score < ceiling)
        reason = f"Dale-Chall {score:.2f} ({band}): {share:.1%} difficult words, {per_sentence:.1f} words per sentence"
        details = {
            "words": len(tokens),
            "sentences": sentences,
            "band": band,
            "difficult_examples": sorted({w.lower() for w in difficult})[:20],
        }
        return {"dale_chall": score, "difficult_words": share, "words_per_sentence": per_sentence}, reason, details
