"""The ``context_relevancy`` check: Soft recall and precision of the retrieved context for the question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from .base import EmbeddingEvaluator, calibrated
from .chunks import chunk_relevance

__all__ = ["assert_context_relevant", "ContextRelevancy"]


def assert_context_relevant(
    question: str, context: Any, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any
) -> Result:
    """The retrieved context is relevant to the question (soft recall 0.75; ``thresholds`` for precision)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual"))
    return check(
        ContextRelevancy,
        question=question,
        context=context,
        params={"model": scorer_argument("assert_context_relevant", scorer, embedding_model=embedding_model)},
        **kwargs,
    )


class ContextRelevancy(EmbeddingEvaluator):
    """Soft recall and precision of the retrieved context for the question.

    ``chunk relevancy = max over chunk sentences s of S(question, s)``;
    ``recall = max over chunks``; ``precision = mean over chunks``.
    """

    name = "context_relevancy"
    helper = "assert_context_relevant"
    extra = "embeddings"
    description = "The retrieved chunks are relevant to the question"
    requires = ("question", "context")
    metrics = (
        MetricSpec(
            "recall_relevancy",
            "relevancy of the most relevant chunk",
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.31, 0.75),
        ),
        MetricSpec(
            "precision_relevancy", "mean relevancy of the chunks", threshold=0.75, calibrated=calibrated(0.31, 0.75)
        ),
    )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        out = []
        for values in chunk_relevance(self, cases):
            recall, precision = max(values), sum(values) / len(values)
            out.append(
                Score(
                    {"recall_relevancy": recall, "precision_relevancy": precision},
                    f"best chunk #{values.index(recall)} {recall:.3f}, mean {precision:.3f}",
                    {"chunk_relevancy": values},
                )
            )
        return out
