"""Embedding-based checks (catalog: Groundedness, Answer Accuracy, Answer Semantic
(Sentence) Similarity, Answer Relevancy (Sentence Similarity), Context Relevancy
(Soft Recall and Precision), Context Mean Reciprocal Rank).

Similarity ``S(x, y)`` is the cosine similarity of L2-normalised sentence
embeddings (``1 - cosine distance``), clipped to ``[0, 1]``. Each evaluator
gathers every sentence its batch of cases needs and encodes them in one call
through the session's :class:`~pytest_llmeval.models.Embedder`, which skips
texts already cached in memory or on disk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..case import Case
from ..text import excerpt, normalize, split_sentences
from .base import MetricSpec, ModelEvaluator, Score, package_version, require_choice, require_number, require_type

if TYPE_CHECKING:
    import numpy as np

    from ..models import Embedder

__all__ = [
    "EmbeddingEvaluator",
    "Groundedness",
    "AnswerAccuracy",
    "SemanticSentenceSimilarity",
    "SemanticSimilarity",
    "AnswerRelevancySimilarity",
    "ContextRelevancy",
    "ContextMRR",
    "short_string_similarity",
]

SHORT_STRING_METRICS = ("normalized_edit_distance", "exact_match", "token_jaccard", "embeddings")


class EmbeddingEvaluator(ModelEvaluator):
    """Base of the embedding checks: a bound model cache and batched encoding.

    Parameter ``model``: the embedding model (a sentence-transformers name or a
    local folder); default the session's ``llmeval_embedding_model``.
    """

    defaults: Mapping[str, Any] = {"model": None}

    @property
    def embedder(self) -> Embedder:
        return self._cache().embedder(self.params["model"])

    def configure(self) -> None:
        model = self.params["model"]
        if model is not None:
            require_type(self.name, "model", model, str, "a sentence-transformers model name or a local folder")

    def backend(self) -> str:
        return package_version("sentence-transformers")

    def scoring_model(self) -> str | None:
        return self.embedder.signature

    def signature_params(self) -> Mapping[str, Any]:
        return {k: v for k, v in super().signature_params().items() if k != "model"}

    def encode_all(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Encode every group of texts with one call; one matrix per group."""
        flat = [text for group in groups for text in group]
        matrix = self.embedder.encode(flat) if flat else None
        out, start = [], 0
        for group in groups:
            out.append(matrix[start:start + len(group)] if matrix is not None else _empty())
            start += len(group)
        return out


def _empty() -> np.ndarray:
    import numpy as np

    return np.zeros((0, 0), dtype=np.float32)


def _similarity(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.clip(left.astype(np.float32) @ right.astype(np.float32).T, 0.0, 1.0)


#: Sentences of one text that are embedded at most; a longer text is scored on its
#: first ones (a megabyte of prose would otherwise take minutes on a CPU).
MAX_SENTENCES = 256


def _sentences(text: str) -> list[str]:
    sentences = split_sentences(text) or ([text.strip()] if text.strip() else [])
    return sentences[:MAX_SENTENCES]


def short_string_similarity(actual: str, expected: str, metric: str) -> float:
    """The catalog's fallback scores for short answers (case and punctuation ignored).

    >>> short_string_similarity("Yes", "yes", "exact_match")
    1.0
    >>> round(short_string_similarity("colour", "color", "normalized_edit_distance"), 3)
    0.833
    """
    if metric == "exact_match":
        return float(normalize(actual, ignore_case=True, ignore_punctuation=True) == normalize(expected, ignore_case=True, ignore_punctuation=True))
    if metric == "token_jaccard":
        left = set(re.findall(r"\w+", actual.casefold()))
        right = set(re.findall(r"\w+", expected.casefold()))
        return 1.0 if not left and not right else len(left & right) / len(left | right)
    from .lexical import levenshtein

    a = normalize(actual, ignore_case=True, ignore_punctuation=True)
    b = normalize(expected, ignore_case=True, ignore_punctuation=True)
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


class Groundedness(EmbeddingEvaluator):
    """Is every answer sentence supported by some context sentence?

    ``groundedness = min over answer sentences a of max over context sentences c of S(a, c)``.
    The least grounded sentence and its best match are reported.
    """

    name = "groundedness"
    description = "Every answer sentence is close to some sentence of the retrieved context"
    requires = ("actual", "context")
    metrics = (MetricSpec("groundedness", "similarity of the least grounded answer sentence to the context", threshold=0.75, primary=True),)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        answers = [_sentences(c.actual or "") for c in cases]
        contexts = [[s for chunk in c.context for s in _sentences(chunk)] for c in cases]
        encoded = self.encode_all([*answers, *contexts])
        scores = []
        for index, (sentences, context) in enumerate(zip(answers, contexts)):
            if not sentences or not context:
                missing = "answer" if not sentences else "context"
                scores.append(Score({"groundedness": None}, f"the {missing} has no sentence to compare", {}))
                continue
            sims = _similarity(encoded[index], encoded[len(cases) + index])
            best = sims.max(axis=1)
            match = sims.argmax(axis=1)
            worst = int(best.argmin())
            per_sentence = [
                {"sentence": excerpt(s, 200), "score": float(best[i]), "best_match": excerpt(context[int(match[i])], 200)}
                for i, s in enumerate(sentences)
            ]
            reason = (
                f"least grounded sentence {excerpt(sentences[worst], 100)!r} ({best[worst]:.3f}); "
                f"closest context: {excerpt(context[int(match[worst])], 100)!r}"
            )
            scores.append(Score({"groundedness": float(best[worst])}, reason, {"sentences": per_sentence, "least_grounded": worst}))
        return scores


class _SentenceMatch(EmbeddingEvaluator):
    """Shared: per actual sentence, the best similarity to any expected sentence (best expected answer)."""

    requires = ("actual", "expected")

    def sentence_scores(self, cases: Sequence[Case]) -> list[list[tuple[list[str], list[str], np.ndarray]]]:
        answers = [_sentences(c.actual or "") for c in cases]
        expected = [[_sentences(e) for e in c.expected] for c in cases]
        groups: list[list[str]] = list(answers)
        for per_case in expected:
            groups.extend(per_case)
        encoded = self.encode_all(groups)
        out = []
        cursor = len(cases)
        for index, per_case in enumerate(expected):
            rows = []
            for reference in per_case:
                if answers[index] and reference:
                    rows.append((answers[index], reference, _similarity(encoded[index], encoded[cursor]).max(axis=1)))
                else:
                    rows.append((answers[index], reference, None))
                cursor += 1
            out.append(rows)
        return out


class AnswerAccuracy(_SentenceMatch):
    """Sentence-level accuracy against the expected answer, with the catalog's short-string fallback.

    ``accuracy = min over answer sentences a of max over expected sentences e of S(a, e)``;
    with several expected answers, the best. When both the answer and an expected
    answer are at most ``short_string_threshold`` characters, ``short_string_metric``
    scores the pair instead (``normalized_edit_distance``, ``exact_match``,
    ``token_jaccard``, or ``embeddings`` to force the embedding score).
    """

    name = "answer_accuracy"
    description = "The least accurate answer sentence is still close to the expected answer"
    defaults: Mapping[str, Any] = {"model": None, "short_string_metric": "normalized_edit_distance", "short_string_threshold": 10}
    metrics = (MetricSpec("answer_accuracy", "similarity of the least accurate answer sentence", threshold=0.75, primary=True),)

    def configure(self) -> None:
        super().configure()
        require_choice(self.name, "short_string_metric", self.params["short_string_metric"], SHORT_STRING_METRICS)
        threshold = self.params["short_string_threshold"]
        require_number(self.name, "short_string_threshold", threshold, low=0, integer=True)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        fallback = self.params["short_string_metric"]
        limit = self.params["short_string_threshold"]
        long_cases = []
        scores: list[Score | None] = []
        for case in cases:
            actual = (case.actual or "").strip()
            shorts = [e for e in case.expected if len(actual) <= limit and len(e.strip()) <= limit]
            if fallback != "embeddings" and shorts:
                values = [short_string_similarity(actual, e, fallback) for e in shorts]
                best = max(range(len(values)), key=values.__getitem__)
                scores.append(Score({"answer_accuracy": values[best]}, f"short answer scored by {fallback}: {values[best]:.3f}",
                                    {"method": fallback, "reference": case.expected.index(shorts[best])}))
            else:
                scores.append(None)
                long_cases.append(case)
        matched = iter(self.sentence_scores(long_cases))
        final = []
        for score in scores:
            if score is not None:
                final.append(score)
                continue
            rows = next(matched)
            candidates = [(float(sims.min()), i, sents, sims) for i, (sents, _, sims) in enumerate(rows) if sims is not None]
            if not candidates:
                final.append(Score({"answer_accuracy": None}, "the answer or expected answer has no sentence to compare", {}))
                continue
            value, reference, sentences, sims = max(candidates, key=lambda c: c[0])
            worst = int(sims.argmin())
            final.append(
                Score(
                    {"answer_accuracy": value},
                    f"least accurate sentence {excerpt(sentences[worst], 100)!r} ({value:.3f}) vs expected answer #{reference}",
                    {"method": "embeddings", "reference": reference, "least_accurate": excerpt(sentences[worst], 200),
                     "sentence_scores": [float(v) for v in sims]},
                )
            )
        return final


class SemanticSentenceSimilarity(_SentenceMatch):
    """Mean and minimum, over answer sentences, of the best similarity to an expected sentence."""

    name = "semantic_sentence_similarity"
    description = "Answer sentences are close to expected-answer sentences (mean and minimum)"
    metrics = (
        MetricSpec("mean_similarity", "mean over answer sentences of the best match", threshold=0.75, primary=True),
        MetricSpec("min_similarity", "minimum over answer sentences of the best match", threshold=0.75),
    )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        out = []
        for rows in self.sentence_scores(cases):
            candidates = [(float(s.mean()), float(s.min()), i) for i, (_, _, s) in enumerate(rows) if s is not None]
            if not candidates:
                out.append(Score({"mean_similarity": None, "min_similarity": None}, "the answer or expected answer has no sentence to compare", {}))
                continue
            mean, low, reference = max(candidates)
            out.append(Score({"mean_similarity": mean, "min_similarity": low},
                             f"mean {mean:.3f}, min {low:.3f} vs expected answer #{reference}", {"reference": reference}))
        return out


class SemanticSimilarity(EmbeddingEvaluator):
    """Whole-answer similarity to the expected answer(s): bi-encoder cosine, or a cross-encoder score.

    Parameters:
        method: ``embeddings`` (default) or ``cross-encoder``.
        cross_encoder: the cross-encoder model (name or folder) for ``method="cross-encoder"``.
    """

    name = "semantic_similarity"
    description = "The answer means the same as the expected answer"
    requires = ("actual", "expected")
    defaults: Mapping[str, Any] = {"model": None, "method": "embeddings", "cross_encoder": None}
    metrics = (MetricSpec("similarity", "similarity to the closest expected answer", threshold=0.75, primary=True),)

    def configure(self) -> None:
        super().configure()
        require_choice(self.name, "method", self.params["method"], ("embeddings", "cross-encoder"))
        if self.params["method"] == "cross-encoder":
            require_type(self.name, "cross_encoder", self.params["cross_encoder"], str, "a cross-encoder model name or folder")

    def scoring_model(self) -> str | None:
        if self.params["method"] == "cross-encoder":
            from ..models import model_identity

            return f"cross-encoder:{model_identity(self.params['cross_encoder'])}"
        return super().scoring_model()

    def signature_params(self) -> Mapping[str, Any]:
        return {"method": self.params["method"]}

    def _cross_encoder(self) -> Any:
        name = self.params["cross_encoder"]

        def build() -> Any:
            from sentence_transformers import CrossEncoder

            from ..models import resolve_device

            return CrossEncoder(name, device=resolve_device(self._cache().device))

        return self._cache().model(f"cross-encoder {name}", build)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import numpy as np

        pairs = [(c.actual or "", e) for c in cases for e in c.expected]
        if self.params["method"] == "cross-encoder":
            raw = np.asarray(self._cross_encoder().predict(pairs, show_progress_bar=False), dtype=np.float32).reshape(len(pairs), -1)
            values = np.clip(raw[:, -1], 0.0, 1.0)
        else:
            actual, expected = self.encode_all([[p[0] for p in pairs], [p[1] for p in pairs]])
            values = np.clip((actual * expected).sum(axis=1), 0.0, 1.0)
        out, cursor = [], 0
        for case in cases:
            chunk = values[cursor:cursor + len(case.expected)]
            cursor += len(case.expected)
            best = int(chunk.argmax())
            out.append(Score({"similarity": float(chunk[best])}, f"similarity {chunk[best]:.3f} to expected answer #{best}",
                             {"reference": best, "method": self.params["method"]}))
        return out


class AnswerRelevancySimilarity(EmbeddingEvaluator):
    """``relevancy = max over answer sentences a of S(question, a)``."""

    name = "answer_relevancy_similarity"
    description = "Some answer sentence is close to the question"
    requires = ("actual", "question")
    metrics = (MetricSpec("answer_relevancy", "best similarity of an answer sentence to the question", threshold=0.75, primary=True),)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        answers = [_sentences(c.actual or "") for c in cases]
        encoded = self.encode_all([*answers, [c.question or "" for c in cases]])
        questions = encoded[-1]
        out = []
        for index, sentences in enumerate(answers):
            if not sentences:
                out.append(Score({"answer_relevancy": None}, "the answer has no sentence to compare", {}))
                continue
            sims = _similarity(encoded[index], questions[index:index + 1])[:, 0]
            best = int(sims.argmax())
            out.append(Score({"answer_relevancy": float(sims[best])},
                             f"most relevant sentence {excerpt(sentences[best], 100)!r} ({sims[best]:.3f})",
                             {"most_relevant": excerpt(sentences[best], 200), "sentence_scores": [float(v) for v in sims]}))
        return out


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
    description = "The retrieved chunks are relevant to the question"
    requires = ("question", "context")
    metrics = (
        MetricSpec("recall_relevancy", "relevancy of the most relevant chunk", threshold=0.75, primary=True),
        MetricSpec("precision_relevancy", "mean relevancy of the chunks", threshold=0.75),
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
    least ``relevance_threshold``; a first relevant chunk at a rank above
    ``out_of_range_rank`` counts as none (reciprocal rank 0).
    """

    name = "context_mrr"
    description = "The first relevant chunk is ranked high"
    requires = ("question", "context")
    defaults: Mapping[str, Any] = {"model": None, "relevance_threshold": 0.7, "out_of_range_rank": 10}
    metrics = (MetricSpec("reciprocal_rank", "1 / rank of the first relevant chunk", threshold=0.75, primary=True),)

    def configure(self) -> None:
        super().configure()
        threshold = self.params["relevance_threshold"]
        require_number(self.name, "relevance_threshold", threshold, low=0, high=1)
        require_number(self.name, "out_of_range_rank", self.params["out_of_range_rank"], low=1, integer=True)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        limit = self.params["relevance_threshold"]
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
