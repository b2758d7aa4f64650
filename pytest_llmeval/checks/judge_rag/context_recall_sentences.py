"""The ``context_recall_sentences`` check: Seed 002's context recall: share of the answer's sentences found in the
context (higher is better)."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from .sentences import SentenceSupport, support_metrics

__all__ = ["assert_answer_in_context", "SentenceContextRecall"]


def assert_answer_in_context(actual: str, context: Any, *, max_sentences: int = 100, **kwargs: Any) -> Result:
    """Most of the answer's sentences are found in the context (seed 002's context recall; LLM judge; threshold
    0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(
        SentenceContextRecall, actual=actual, context=context, params={"max_sentences": max_sentences}, **kwargs
    )


class SentenceContextRecall(SentenceSupport):
    """Seed 002's context recall: share of the answer's sentences found in the context (higher is better)."""

    name = "context_recall_sentences"
    helper = "assert_answer_in_context"
    description = "The answer's sentences are found in the retrieved context (LLM judge)"
    metrics = support_metrics("context_recall")
