"""The ``semantic_sentence_similarity`` check: Mean and minimum, over answer sentences, of the best similarity to an
expected sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from .answers import SentenceMatch
from .base import calibrated

__all__ = ["assert_similar_sentences", "SemanticSentenceSimilarity"]


def assert_similar_sentences(
    actual: str, expected: Any, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any
) -> Result:
    """Answer sentences are close to expected sentences (mean similarity 0.75; ``thresholds`` for the minimum)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(
        SemanticSentenceSimilarity,
        actual=actual,
        expected=expected,
        params={"model": scorer_argument("assert_similar_sentences", scorer, embedding_model=embedding_model)},
        **kwargs,
    )


class SemanticSentenceSimilarity(SentenceMatch):
    """Mean and minimum, over answer sentences, of the best similarity to an expected sentence."""

    name = "semantic_sentence_similarity"
    helper = "assert_similar_sentences"
    extra = "embeddings"
    description = "Answer sentences are close to expected-answer sentences (mean and minimum)"
    metrics = (
        MetricSpec(
            "mean_similarity",
            "mean over answer sentences of the best match",
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.55, 0.75),
        ),
        MetricSpec(
            "min_similarity",
            "minimum over answer sentences of the best match",
            threshold=0.75,
            calibrated=calibrated(0.55, 0.75),
        ),
    )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        out = []
        for rows in self.sentence_scores(cases):
            candidates = [(float(s.mean()), float(s.min()), i) for i, (_, _, s) in enumerate(rows) if s is not None]
            if not candidates:
                out.append(
                    Score(
                        {"mean_similarity": None, "min_similarity": None},
                        "the answer or expected answer has no sentence to compare",
                        {},
                    )
                )
                continue
            mean, low, reference = max(candidates)
            out.append(
                Score(
                    {"mean_similarity": mean, "min_similarity": low},
                    f"mean {mean:.3f}, min {low:.3f} vs expected answer #{reference}",
                    {"reference": reference},
                )
            )
        return out
