"""How relevant each retrieved chunk is to the question: shared by ``context_relevancy`` and ``context_mrr``."""

from __future__ import annotations

from collections.abc import Sequence

from ...kit import Case
from ...kit.text import embedded_sentences as _sentences
from .base import EmbeddingEvaluator, cosine_matrix

__all__ = ["chunk_relevance"]


def chunk_relevance(evaluator: EmbeddingEvaluator, cases: Sequence[Case]) -> list[list[float]]:
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
            values.append(
                float(cosine_matrix(encoded[cursor], questions[index : index + 1]).max()) if sentences else 0.0
            )
            cursor += 1
        out.append(values)
    return out
