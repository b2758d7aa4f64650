"""Embedding checks of retrieved context (catalog: Context Relevancy (Soft Recall and Precision), Context Mean
Reciprocal Rank); groundedness of the answer is in :mod:`pytest_llmeval.evaluators.groundedness`.

Similarity ``S(x, y)`` is as in :mod:`pytest_llmeval.evaluators.embedding`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from .base import MetricSpec, Score, require_number
from ..text import embedded_sentences as _sentences
from .embedding import EmbeddingEvaluator, _similarity, calibrated

__all__ = ["ContextRelevancy", "ContextMRR"]

def _chunk_relevance(evaluator: EmbeddingEvaluator, cases: Sequence[Case]) -> list[list[float]]:
    """Per case, per context chunk: max over the chunk's sentences of S(question, sentence)."""
    chunks = [[_sentences(chunk) for chunk in c.context] for c in cases]
    groups: list[list[str]] = [[c.question or "" for c in cases]]
    for per_case in chunks:
        groups.extend(per_case)
    encoded = evaluator.encode_all(groups)
    questions = encoded[0]
    out, cursor = [], 1
    for index, per_case in enumerate(chunks):
        values = []
        for sentences in per_case:
            values.append(float(_similarity(encoded[cursor], questions[index:index + 1]).max()) if sentences else 0.0)
            cursor += 1
        out.append(values)
    return out


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
        MetricSpec("recall_relevancy", "relevancy of the most relevant chunk", threshold=0.75, primary=True, calibrated=calibrated(0.31, 0.75)),
        MetricSpec("precision_relevancy", "mean relevancy of the chunks", threshold=0.75, calibrated=calibrated(0.31, 0.75)),
    )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        out = []
        for values in _chunk_relevance(self, cases):
            recall, precision = max(values), sum(values) / len(values)
            out.append(Score({"recall_relevancy": recall, "precision_relevancy": precision},
                             f"best chunk #{values.index(recall)} {recall:.3f}, mean {precision:.3f}",
                             {"chunk_relevancy": values}))
        return out


class ContextMRR(EmbeddingEvaluator):
    """Reciprocal rank of the first relevant chunk (its leaderboard mean is the MRR).

    A chunk is relevant when its relevancy (as in :class:`ContextRelevancy`) is at
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
        for values in _chunk_relevance(self, cases):
            rank = next((i + 1 for i, v in enumerate(values) if v >= limit), None)
            if rank is None or rank > self.params["out_of_range_rank"]:
                reason = "no relevant chunk" if rank is None else f"first relevant chunk at rank {rank}, out of range"
                out.append(Score({"reciprocal_rank": 0.0}, reason, {"chunk_relevancy": values, "rank": rank}))
            else:
                out.append(Score({"reciprocal_rank": 1.0 / rank}, f"first relevant chunk at rank {rank}",
                                 {"chunk_relevancy": values, "rank": rank}))
        return out
