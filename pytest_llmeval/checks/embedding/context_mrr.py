"""The ``context_mrr`` check: Reciprocal rank of the first relevant chunk (its leaderboard mean is the MRR)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit import Result
from .base import EmbeddingEvaluator, calibrated
from .chunks import chunk_relevance

__all__ = ["assert_context_ranked", "ContextMRR"]


def assert_context_ranked(
    question: str,
    context: Any,
    *,
    relevance_threshold: float | None = None,
    out_of_range_rank: int = 10,
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The first relevant chunk is ranked high (reciprocal rank, 0.75: the first chunk must be relevant); a chunk is
    relevant at ``relevance_threshold`` (default: the cut-off calibrated for the embedding model, as
    ``evaluate("context_mrr")`` uses)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual"))
    params = {
        "model": scorer_argument("assert_context_ranked", scorer, embedding_model=embedding_model),
        "relevance_threshold": relevance_threshold,
        "out_of_range_rank": out_of_range_rank,
    }
    return check(ContextMRR, question=question, context=context, params=params, **kwargs)


class ContextMRR(EmbeddingEvaluator):
    """Reciprocal rank of the first relevant chunk (its leaderboard mean is the MRR).

    A chunk is relevant when its relevancy (as in `ContextRelevancy`) is at
    least ``relevance_threshold`` (default: the relevancy threshold calibrated for
    the embedding model, 0.31 for the embedded MiniLM, else the catalog's 0.7); a
    first relevant chunk at a rank above ``out_of_range_rank`` counts as none
    (reciprocal rank 0).
    """

    name = "context_mrr"
    helper = "assert_context_ranked"
    extra = "embeddings"
    version = "2"
    description = "The first relevant chunk is ranked high"
    requires = ("question", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "relevance_threshold": None, "out_of_range_rank": 10}
    metrics = (MetricSpec("reciprocal_rank", "1 / rank of the first relevant chunk", threshold=0.75, primary=True),)
    #: The catalog's relevance cut-off, and the ones calibrated per embedding model.
    RELEVANCE = MetricSpec("relevance", "chunk relevancy cut-off", threshold=0.7, calibrated=calibrated(0.31, 0.7))

    def configure(self) -> None:
        super().configure()
        threshold = self.params["relevance_threshold"]
        if threshold is not None:
            require_number(self.name, "relevance_threshold", threshold, low=0, high=1)
        require_number(self.name, "out_of_range_rank", self.params["out_of_range_rank"], low=1, integer=True)

    def relevance_threshold(self) -> float:
        chosen = self.params["relevance_threshold"]
        return float(chosen if chosen is not None else self.default_threshold(self.RELEVANCE) or 0.7)

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "relevance_threshold": self.relevance_threshold()}

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        limit = self.relevance_threshold()
        out = []
        for values in chunk_relevance(self, cases):
            rank = next((i + 1 for i, v in enumerate(values) if v >= limit), None)
            if rank is None or rank > self.params["out_of_range_rank"]:
                reason = "no relevant chunk" if rank is None else f"first relevant chunk at rank {rank}, out of range"
                out.append(Score({"reciprocal_rank": 0.0}, reason, {"chunk_relevancy": values, "rank": rank}))
            else:
                out.append(
                    Score(
                        {"reciprocal_rank": 1.0 / rank},
                        f"first relevant chunk at rank {rank}",
                        {"chunk_relevancy": values, "rank": rank},
                    )
                )
        return out
