"""The ``hallucination_sentences`` check: Seed 002's hallucination: share of the answer's sentences the context does not
support (lower is better)."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from .sentences import SentenceSupport, support_metrics

__all__ = ["assert_no_hallucinated_sentences", "SentenceHallucination"]


def assert_no_hallucinated_sentences(actual: str, context: Any, *, max_sentences: int = 100, **kwargs: Any) -> Result:
    """Few of the answer's sentences lack support in the context (seed 002's hallucination; LLM judge; at most 0.25)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(
        SentenceHallucination, actual=actual, context=context, params={"max_sentences": max_sentences}, **kwargs
    )


class SentenceHallucination(SentenceSupport):
    """Seed 002's hallucination: share of the answer's sentences the context does not support (lower is better)."""

    name = "hallucination_sentences"
    helper = "assert_no_hallucinated_sentences"
    description = "No answer sentence lacks support in the retrieved context (LLM judge)"
    metrics = support_metrics("hallucination")
