"""Embedding checks of retrieval-augmented answers (catalog: Groundedness, Context
Relevancy (Soft Recall and Precision), Context Mean Reciprocal Rank).

Similarity ``S(x, y)`` is as in :mod:`pytest_llmeval.evaluators.embedding`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..text import excerpt
from .base import MetricSpec, Score, require_choice, require_number, require_type
from ..text import embedded_sentences as _sentences
from .embedding import EmbeddingEvaluator, _similarity, calibrated

__all__ = ["Groundedness", "ContextRelevancy", "ContextMRR", "GROUNDEDNESS_METHODS"]

GROUNDEDNESS_METHODS = ("facts", "embeddings", "nli")


class Groundedness(EmbeddingEvaluator):
    """Is every answer sentence supported by the context?

    ``method="facts"`` (default): an answer sentence is grounded when its facts
    (numbers, dates, names; see :mod:`pytest_llmeval.facts`) are all stated in the
    context **and** it is close to the context. Closeness (``support``) is, per
    claim, the mean of its best cosine similarity to a context sentence and its
    word support (the share of its content words the context uses, times the share
    of their nearby pairs that one context sentence also holds; see
    :func:`~pytest_llmeval.evaluators.factlayer.word_pair_support`), minimised over
    claims. A short answer (at most
    ``short_answer_words`` words) given with its ``question`` is judged as the
    claim the two make together; its words must be found in the context.

    ``method="embeddings"``: the catalog's check alone,
    ``groundedness = min over answer sentences a of max over context sentences c of S(a, c)``,
    reported by every method and the only verdict of this one.

    ``method="nli"``: the fact layer plus an NLI cross-encoder (``nli_model``, a
    name or local folder): per claim the best entailment probability over
    context windows of ``nli_window`` sentences, minimised over claims.
    """

    name = "groundedness"
    helper = "assert_grounded"
    extra = "embeddings"
    version = "2"
    description = "The answer's facts are stated in the retrieved context and every sentence is close to it"
    requires = ("actual", "context")
    uses = ("question",)
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None, "method": "facts", "entities": "auto", "short_answer_words": 5, "negation": True,
        "nli_model": None, "entailment_label": "entailment", "nli_window": 2,
    }
    metrics = (
        MetricSpec("support", "least supported claim: mean of its similarity to the context and its word support",
                   threshold=0.7, primary=True, calibrated={"all-minilm-l6-v2": 0.7}),
        MetricSpec("fact_support", "share of the answer's facts (numbers, dates, names, negations) the context states",
                   threshold=1.0, gates=True),
        MetricSpec("groundedness", "catalog: similarity of the least grounded answer sentence to the context",
                   threshold=0.75, calibrated=calibrated(0.75, 0.75)),
        MetricSpec("claim_similarity", "similarity of the least similar claim to its closest context sentence", threshold=None),
        MetricSpec("word_pair_support", "lowest word support of a claim (word coverage x pair support)", threshold=None),
        MetricSpec("unsupported_facts", "facts of the answer the context does not state", higher_is_better=False,
                   range=(0.0, math.inf), threshold=None),
        MetricSpec("entailment", "nli: entailment probability of the least entailed claim", threshold=0.5),
    )

    def configure(self) -> None:
        super().configure()
        method = self.params["method"]
        require_choice(self.name, "method", method, GROUNDEDNESS_METHODS)
        require_number(self.name, "short_answer_words", self.params["short_answer_words"], low=0, integer=True)
        require_number(self.name, "nli_window", self.params["nli_window"], low=1, integer=True)
        require_type(self.name, "negation", self.params["negation"], bool, "True or False")
        if method == "nli":
            require_type(self.name, "nli_model", self.params["nli_model"], str, "an NLI cross-encoder name or local folder")
            require_type(self.name, "entailment_label", self.params["entailment_label"], str, "the NLI class meaning entailment")
        from .factlayer import FactLayer

        self.facts = FactLayer(self, self.params["entities"])

    def active_primary(self) -> MetricSpec:
        specs = self.metric_specs()
        return specs[{"facts": "support", "embeddings": "groundedness", "nli": "entailment"}[self.params["method"]]]

    def gating_metrics(self) -> list[MetricSpec]:
        primary = self.active_primary()
        return [primary] if self.params["method"] == "embeddings" else [primary, self.metric_specs()["fact_support"]]

    def scoring_model(self) -> str | None:
        model = super().scoring_model()
        if self.params["method"] == "nli":
            from ..models import model_identity

            return f"{model};nli:{model_identity(self.params['nli_model'])}"
        return model

    def signature_params(self) -> Mapping[str, Any]:
        params = dict(super().signature_params())
        params["entities"] = self.facts.extractor()
        if self.params["method"] != "nli":
            for key in ("nli_model", "entailment_label", "nli_window"):
                params.pop(key, None)
        else:
            params.pop("nli_model", None)  # named by the scoring model
        return params

    def _claims(self, case: Case, sentences: list[str]) -> tuple[list[str], bool]:
        """The texts to embed per answer sentence, and whether the answer is one short claim with its question."""
        actual = (case.actual or "").strip()
        limit = self.params["short_answer_words"]
        if case.question and actual and len(actual.split()) <= limit:
            return [f"{case.question.strip()} {actual}"], True
        return sentences, False

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        from .factlayer import PairIndex, word_pair_support

        answers = [_sentences(c.actual or "") for c in cases]
        contexts = [[s for chunk in c.context for s in _sentences(chunk)] for c in cases]
        claims = []
        for case, sentences in zip(cases, answers):
            claims.append(self._claims(case, sentences))
        # A long answer's claims are its sentences (already encoded); a short one's is the question with it.
        encoded = self.encode_all([*answers, *contexts, *(texts if joined else [] for texts, joined in claims)])
        entailments = self._entailment(cases, claims, contexts) if self.params["method"] == "nli" else None
        n = len(cases)
        scores = []
        for index, (case, sentences, context) in enumerate(zip(cases, answers, contexts)):
            if not sentences or not context:
                missing = "answer" if not sentences else "context"
                scores.append(Score({name: None for name in self.metric_specs()}, f"the {missing} has no sentence to compare", {}))
                continue
            sims = _similarity(encoded[index], encoded[n + index])
            best = sims.max(axis=1)
            match = sims.argmax(axis=1)
            worst = int(best.argmin())
            catalog = float(best[worst])
            claim_texts, joined = claims[index]
            claim_sims = _similarity(encoded[2 * n + index], encoded[n + index]).max(axis=1) if joined else best
            pair_index = PairIndex([*context, *([case.question] if case.question else [])])
            checked = [case.actual.strip()] if joined and case.actual else sentences
            pairs = [word_pair_support(s, pair_index) for s in checked]
            support_per_claim = [(float(claim_sims[i]) + pairs[i]) / 2 for i in range(len(checked))]
            weakest = min(range(len(checked)), key=support_per_claim.__getitem__)
            source = self.facts.index(list(case.context))
            given = self.facts.index(case.question) if case.question else None
            fact_support, unsupported, messages, fact_details = self.facts.judge(
                checked, source, "context", given=given, negation=self.params["negation"], numbered=not joined)
            metrics: dict[str, float | None] = {
                "support": support_per_claim[weakest],
                "fact_support": fact_support,
                "groundedness": catalog,
                "claim_similarity": float(claim_sims.min()),
                "word_pair_support": min(pairs),
                "unsupported_facts": float(unsupported),
                "entailment": None,
            }
            details: dict[str, Any] = {
                "sentences": [
                    {"sentence": excerpt(s, 200), "score": float(best[i]), "best_match": excerpt(context[int(match[i])], 200)}
                    for i, s in enumerate(sentences)
                ],
                "least_grounded": worst,
                "claims": [
                    {"claim": excerpt(claim_texts[i], 200), "similarity": float(claim_sims[i]), "word_pair_support": pairs[i],
                     "support": support_per_claim[i]}
                    for i in range(len(checked))
                ],
                "unsupported_facts": fact_details,
                "short_answer": joined,
            }
            method = self.params["method"]
            if method == "embeddings":
                reason = (
                    f"least grounded sentence {excerpt(sentences[worst], 100)!r} ({catalog:.3f}); "
                    f"closest context: {excerpt(context[int(match[worst])], 100)!r}"
                )
            else:
                weak_text = excerpt(checked[weakest], 100)
                if method == "nli" and entailments is not None:
                    values = entailments[index]
                    metrics["entailment"] = min(values)
                    details["entailment"] = values
                    low = min(range(len(values)), key=values.__getitem__)
                    closeness = f"least entailed claim {excerpt(checked[low], 100)!r} ({values[low]:.3f})"
                else:
                    closeness = (f"least supported {'answer' if joined else f'sentence {weakest + 1}'} {weak_text!r} "
                                 f"(support {support_per_claim[weakest]:.3f}: similarity {float(claim_sims[weakest]):.3f}, "
                                 f"word pairs {pairs[weakest]:.3f})")
                reason = "; ".join([*messages, closeness])
            scores.append(Score(metrics, reason, details))
        return scores

    def _entailment(self, cases: Sequence[Case], claims: list[tuple[list[str], bool]], contexts: list[list[str]]) -> list[list[float]]:
        """Per case, per claim: the best entailment probability over windows of context sentences."""
        from .detectors import nli_entailment

        window = self.params["nli_window"]
        pairs: list[tuple[str, str]] = []
        shape = []
        for (texts, _), context in zip(claims, contexts):
            windows = [" ".join(context[i:i + window]) for i in range(max(1, len(context) - window + 1))] if context else []
            shape.append((len(texts), len(windows)))
            pairs.extend((w, t) for t in texts for w in windows)
        if not pairs:
            probabilities: list[float] = []
        else:
            probabilities = nli_entailment(self, self.params["nli_model"], self.params["entailment_label"], pairs, parameter="nli_model")
        out, cursor = [], 0
        for n_claims, n_windows in shape:
            per_case = []
            for _ in range(n_claims):
                chunk = probabilities[cursor:cursor + n_windows]
                cursor += n_windows
                per_case.append(max(chunk) if chunk else 0.0)
            out.append(per_case)
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
