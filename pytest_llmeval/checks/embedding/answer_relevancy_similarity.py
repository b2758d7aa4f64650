"""The ``answer_relevancy_similarity`` check: ``relevancy = max over answer sentences a of S(question, a)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit.text import embedded_sentences as _sentences
from ...kit.text import excerpt
from .base import EmbeddingEvaluator, cosine_matrix, calibrated

__all__ = ["assert_relevant", "AnswerRelevancySimilarity"]


def assert_relevant(
    actual: str, question: str, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any
) -> Result:
    """Some answer sentence is close to the question (answer relevancy, 0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history"))
    return check(
        AnswerRelevancySimilarity,
        actual=actual,
        question=question,
        params={"model": scorer_argument("assert_relevant", scorer, embedding_model=embedding_model)},
        **kwargs,
    )


class AnswerRelevancySimilarity(EmbeddingEvaluator):
    """``relevancy = max over answer sentences a of S(question, a)``."""

    name = "answer_relevancy_similarity"
    helper = "assert_relevant"
    extra = "embeddings"
    description = "Some answer sentence is close to the question"
    requires = ("actual", "question")
    metrics = (
        MetricSpec(
            "answer_relevancy",
            "best similarity of an answer sentence to the question",
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.35, 0.75),
        ),
    )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        answers = [_sentences(c.actual or "") for c in cases]
        encoded = self.encode_all([*answers, [c.question or "" for c in cases]])
        questions = encoded[-1]
        out = []
        for index, sentences in enumerate(answers):
            if not sentences:
                out.append(Score({"answer_relevancy": None}, "the answer has no sentence to compare", {}))
                continue
            sims = cosine_matrix(encoded[index], questions[index : index + 1])[:, 0]
            best = int(sims.argmax())
            out.append(
                Score(
                    {"answer_relevancy": float(sims[best])},
                    f"most relevant sentence {excerpt(sentences[best], 100)!r} ({sims[best]:.3f})",
                    {"most_relevant": excerpt(sentences[best], 200), "sentence_scores": [float(v) for v in sims]},
                )
            )
        return out
