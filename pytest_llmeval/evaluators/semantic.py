"""Embedding-based checks (catalog: Groundedness, Answer Accuracy, Answer Semantic
(Sentence) Similarity, Answer Relevancy (Sentence Similarity), Context Relevancy
(Soft Recall and Precision), Context Mean Reciprocal Rank).

Similarity ``S(x, y)`` is the cosine similarity of L2-normalised sentence
embeddings (``1 - cosine distance``), clipped to ``[0, 1]``. Each evaluator
gathers every sentence its batch of cases needs and encodes them in one call
through the session's :class:`~pytest_llmeval.models.Embedder`, which skips
texts already cached in memory or on disk.

This module holds the checks against the expected answer or the question; the
shared base is in :mod:`~pytest_llmeval.evaluators.embedding`, groundedness in
:mod:`~pytest_llmeval.evaluators.groundedness` and the checks of the retrieved
context in :mod:`~pytest_llmeval.evaluators.rag_embedding`.
Every one of them can be imported from here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..case import Case
from ..text import excerpt
from .base import MetricSpec, Score, require_choice, require_number, require_type
from ..text import embedded_sentences as _sentences
from .embedding import (
    MAX_SENTENCES as MAX_SENTENCES,
    SHORT_STRING_METRICS as SHORT_STRING_METRICS,
    EmbeddingEvaluator as EmbeddingEvaluator,
    _empty as _empty,
    _similarity as _similarity,
    calibrated as calibrated,
    model_family as model_family,
    short_string_similarity as short_string_similarity,
)
from .groundedness import GROUNDEDNESS_METHODS as GROUNDEDNESS_METHODS
from .groundedness import Groundedness as Groundedness
from .rag_embedding import (
    ContextMRR as ContextMRR,
    ContextRelevancy as ContextRelevancy,
    _chunk_relevance as _chunk_relevance,
)

if TYPE_CHECKING:
    import numpy as np

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

FACT_METRICS = (
    MetricSpec("fact_support", "share of the answer's facts (numbers, dates, names, negations) the expected answer states",
               threshold=1.0, gates=True),
    MetricSpec("fact_recall", "share of the expected answer's facts the answer states", threshold=None),
    MetricSpec("unsupported_facts", "facts of the answer the expected answer does not state", higher_is_better=False,
               range=(0.0, math.inf), threshold=None),
)


class _FactChecked(EmbeddingEvaluator):
    """Shared: the fact layer against the expected answer(s) (parameters ``facts``, ``entities``).

    With the fact layer on, a fact the expected answer does not state fails the check
    (named evidence); a similarity below its threshold alone leaves the answer
    *unverified* (a paraphrase can be far in embedding space and still right); the
    judge's answer correctness decides those when a judge is configured. With
    ``facts=False`` the similarity alone decides, as the catalog's check.
    """

    escalates_to = "answer_correctness"

    def weak_metrics(self) -> frozenset[str]:
        return frozenset({self.active_primary().name}) if self.params["facts"] else frozenset()

    def configure(self) -> None:
        super().configure()
        require_type(self.name, "facts", self.params["facts"], bool, "True or False")
        from .factlayer import FactLayer

        self.facts = FactLayer(self, self.params["entities"])

    def gating_metrics(self) -> list[MetricSpec]:
        gates = super().gating_metrics()
        return gates if self.params["facts"] else [spec for spec in gates if spec.name != "fact_support"]

    def signature_params(self) -> Mapping[str, Any]:
        params = dict(super().signature_params())
        if params.get("facts"):
            params["entities"] = self.facts.extractor()
        else:
            params.pop("entities", None)
        return params

    def reference_facts(self, actual: str, references: Sequence[str]) -> list[dict[str, Any]]:
        """Per expected answer: fact support, recall, unsupported count, messages and details."""
        sentences = _sentences(actual) or [actual]
        answer_index = self.facts.index(actual)
        out = []
        for reference in references:
            expected = self.facts.index(reference)
            support, unsupported, messages, details = self.facts.judge(sentences, expected, "expected answer")
            expected_facts = expected.facts  # extracted once, with the index
            recall = 1.0 if not expected_facts else sum(answer_index.supports(f) for f in expected_facts) / len(expected_facts)
            out.append({"fact_support": support, "fact_recall": recall, "unsupported_facts": float(unsupported),
                        "messages": messages, "details": details})
        return out


def _with_facts(score: Score, facts: dict[str, Any] | None) -> Score:
    """``score`` with the fact metrics of its chosen expected answer; fact failures lead the reason."""
    if facts is None:
        return Score({**score.metrics, "fact_support": None, "fact_recall": None, "unsupported_facts": None}, score.reason, score.details)
    metrics = {**score.metrics, **{k: facts[k] for k in ("fact_support", "fact_recall", "unsupported_facts")}}
    reason = "; ".join([*facts["messages"], score.reason])
    return Score(metrics, reason, {**score.details, "unsupported_facts": facts["details"]})


def _pick(scores: Sequence[float | None], facts: Sequence[dict[str, Any]] | None) -> int:
    """The expected answer that fits best: most facts supported, then the highest score."""
    def key(i: int) -> tuple[float, float]:
        support = facts[i]["fact_support"] if facts else 1.0
        value = scores[i]
        return (support, -1.0 if value is None else value)

    return max(range(len(scores)), key=key)


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


class AnswerAccuracy(_FactChecked, _SentenceMatch):
    """Sentence-level accuracy against the expected answer, with the catalog's short-string fallback and the fact layer.

    ``accuracy = min over answer sentences a of max over expected sentences e of S(a, e)``;
    with several expected answers, the one that supports most of the answer's
    facts, then the most accurate. When both the answer and an expected answer
    are at most ``short_string_threshold`` characters, ``short_string_metric``
    scores the pair instead (``normalized_edit_distance``, ``exact_match``,
    ``token_jaccard``, or ``embeddings`` to force the embedding score).

    With ``facts=True`` (default) a number, date or name of the answer that the
    expected answer does not state (or a negation they disagree on) fails the
    check and is named (``fact_support`` < 1).

    ``sentence_level_metrics`` (default ``True``) keeps every answer sentence's score in the
    details (``sentence_scores``); ``False`` keeps only the least accurate sentence.
    """

    name = "answer_accuracy"
    helper = "assert_accurate"
    extra = "embeddings"
    version = "3"
    description = "The least accurate answer sentence is still close to the expected answer, and its facts agree"
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "short_string_metric": "normalized_edit_distance", "short_string_threshold": 10,
                                   "facts": True, "entities": "auto", "sentence_level_metrics": True}
    reporting = ("sentence_level_metrics",)
    metrics = (
        MetricSpec("answer_accuracy", "similarity of the least accurate answer sentence", threshold=0.75, primary=True,
                   calibrated=calibrated(0.57, 0.75)),
        *FACT_METRICS,
    )

    def decide(self, failed: Sequence[str], unscored: bool, score: Score) -> str:
        # A short answer scored by edit distance or exact match ("No" for "Yes") differs in its words: that is evidence.
        if failed and score.details.get("method") not in (None, "embeddings"):
            return "fail"
        return super().decide(failed, unscored, score)

    def configure(self) -> None:
        super().configure()
        require_choice(self.name, "short_string_metric", self.params["short_string_metric"], SHORT_STRING_METRICS)
        threshold = self.params["short_string_threshold"]
        require_number(self.name, "short_string_threshold", threshold, low=0, integer=True)
        require_type(self.name, "sentence_level_metrics", self.params["sentence_level_metrics"], bool, "True or False")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        fallback = self.params["short_string_metric"]
        limit = self.params["short_string_threshold"]
        long_cases = []
        scores: list[Score | None] = []
        facts_per_case = [self.reference_facts(c.actual or "", list(c.expected)) if self.params["facts"] else None for c in cases]
        for case, facts in zip(cases, facts_per_case):
            actual = (case.actual or "").strip()
            shorts = [i for i, e in enumerate(case.expected) if len(actual) <= limit and len(e.strip()) <= limit]
            if fallback != "embeddings" and shorts:
                values = [short_string_similarity(actual, case.expected[i], fallback) for i in shorts]
                pick = _pick(values, [facts[i] for i in shorts] if facts else None)
                reference = shorts[pick]
                score = Score({"answer_accuracy": values[pick]}, f"short answer scored by {fallback}: {values[pick]:.3f}",
                              {"method": fallback, "reference": reference})
                scores.append(_with_facts(score, facts[reference] if facts else None))
            else:
                scores.append(None)
                long_cases.append(case)
        matched = iter(self.sentence_scores(long_cases))
        final: list[Score] = []
        for short, facts in zip(scores, facts_per_case):
            if short is not None:
                final.append(short)
                continue
            rows = next(matched)
            values = [None if sims is None else float(sims.min()) for _, _, sims in rows]
            if all(v is None for v in values):
                final.append(_with_facts(Score({"answer_accuracy": None}, "the answer or expected answer has no sentence to compare", {}), None))
                continue
            reference = _pick(values, facts)
            if values[reference] is None:
                reference = max((i for i, v in enumerate(values) if v is not None), key=lambda i: values[i] or 0.0)
            sentences, _, sims = rows[reference]
            value = float(sims.min())
            worst = int(sims.argmin())
            score = Score(
                {"answer_accuracy": value},
                f"least accurate sentence {excerpt(sentences[worst], 100)!r} ({value:.3f}) vs expected answer #{reference}",
                {"method": "embeddings", "reference": reference, "least_accurate": excerpt(sentences[worst], 200),
                 **({"sentence_scores": [float(v) for v in sims]} if self.params["sentence_level_metrics"] else {})},
            )
            final.append(_with_facts(score, facts[reference] if facts else None))
        return final


class SemanticSentenceSimilarity(_SentenceMatch):
    """Mean and minimum, over answer sentences, of the best similarity to an expected sentence."""

    name = "semantic_sentence_similarity"
    helper = "assert_similar_sentences"
    extra = "embeddings"
    description = "Answer sentences are close to expected-answer sentences (mean and minimum)"
    metrics = (
        MetricSpec("mean_similarity", "mean over answer sentences of the best match", threshold=0.75, primary=True, calibrated=calibrated(0.55, 0.75)),
        MetricSpec("min_similarity", "minimum over answer sentences of the best match", threshold=0.75, calibrated=calibrated(0.55, 0.75)),
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


class SemanticSimilarity(_FactChecked):
    """Whole-answer similarity to the expected answer(s): bi-encoder cosine, or a cross-encoder score; plus the fact layer.

    Parameters:
        method: ``embeddings`` (default) or ``cross-encoder``.
        cross_encoder: the cross-encoder model (name or folder) for ``method="cross-encoder"``.
        facts: with ``True`` (default) a number, date or name of the answer that the
            expected answer does not state fails the check and is named.
        entities: the fact layer's name extractor (``auto``, ``rules``, ``spacy``).
    """

    name = "semantic_similarity"
    helper = "assert_similar"
    extra = "embeddings"
    version = "3"
    description = "The answer means the same as the expected answer, and its facts agree"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "method": "embeddings", "cross_encoder": None, "facts": True, "entities": "auto"}
    metrics = (
        MetricSpec("similarity", "similarity to the closest expected answer", threshold=0.75, primary=True,
                   calibrated=calibrated(0.57, 0.75)),
        *FACT_METRICS,
    )

    def default_threshold(self, spec: MetricSpec) -> float | None:
        if self.params["method"] == "cross-encoder":
            return spec.threshold  # a cross-encoder's scale is its own: the catalog value
        return super().default_threshold(spec)

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
        params = dict(super().signature_params())
        params.pop("cross_encoder", None)  # named by the scoring model
        return params

    def _cross_encoder(self) -> Any:
        return self._cache().cross_encoder(self.params["cross_encoder"], owner=self.name, role="cross-encoder", parameter="cross_encoder")

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
            chunk = [float(v) for v in values[cursor:cursor + len(case.expected)]]
            cursor += len(case.expected)
            facts = self.reference_facts(case.actual or "", list(case.expected)) if self.params["facts"] else None
            best = _pick(chunk, facts)
            score = Score({"similarity": chunk[best]}, f"similarity {chunk[best]:.3f} to expected answer #{best}",
                          {"reference": best, "method": self.params["method"]})
            out.append(_with_facts(score, facts[best] if facts else None))
        return out


class AnswerRelevancySimilarity(EmbeddingEvaluator):
    """``relevancy = max over answer sentences a of S(question, a)``."""

    name = "answer_relevancy_similarity"
    helper = "assert_relevant"
    extra = "embeddings"
    description = "Some answer sentence is close to the question"
    requires = ("actual", "question")
    metrics = (MetricSpec("answer_relevancy", "best similarity of an answer sentence to the question", threshold=0.75, primary=True, calibrated=calibrated(0.35, 0.75)),)

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

