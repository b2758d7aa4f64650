"""The ``answer_accuracy`` check: Sentence-level accuracy against the expected answer, with the catalog's short-string
fallback and the fact layer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import Verdict
from ...kit import MetricSpec, Score
from ...kit import require_choice, require_number, require_type
from ...kit import Result
from ...kit.text import excerpt
from .answers import FACT_METRICS, FactChecked, SentenceMatch, pick_answer, with_facts
from .base import SHORT_STRING_METRICS, calibrated, short_string_similarity

__all__ = ["assert_accurate", "AnswerAccuracy"]


def assert_accurate(
    actual: str,
    expected: Any,
    *,
    short_string_metric: str = "normalized_edit_distance",
    short_string_threshold: int = 10,
    facts: bool = True,
    entities: str = "auto",
    sentence_level_metrics: bool = True,
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The least accurate answer sentence is close to the expected answer, and its facts agree (answer accuracy).

    Short answers (both at most ``short_string_threshold`` characters) are scored by
    ``short_string_metric`` instead: ``normalized_edit_distance``, ``exact_match``,
    ``token_jaccard`` or ``embeddings``. With ``facts=True`` a number, date or name
    that the expected answer does not state fails the check and is named.
    ``sentence_level_metrics=False`` leaves each sentence's score out of the record.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_accurate", scorer, embedding_model=embedding_model),
        "short_string_metric": short_string_metric,
        "short_string_threshold": short_string_threshold,
        "facts": facts,
        "entities": entities,
        "sentence_level_metrics": sentence_level_metrics,
    }
    return check(AnswerAccuracy, actual=actual, expected=expected, params=params, **kwargs)


class AnswerAccuracy(FactChecked, SentenceMatch):
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
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "short_string_metric": "normalized_edit_distance",
        "short_string_threshold": 10,
        "facts": True,
        "entities": "auto",
        "sentence_level_metrics": True,
    }
    reporting = ("sentence_level_metrics",)
    metrics = (
        MetricSpec(
            "answer_accuracy",
            "similarity of the least accurate answer sentence",
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.57, 0.75),
        ),
        *FACT_METRICS,
    )

    def decide(self, failed: Sequence[str], unscored: bool, score: Score) -> Verdict:
        # A short answer scored by edit distance or exact match ("No" for "Yes") differs in its words: that is evidence.
        if failed and score.details.get("method") not in (None, "embeddings"):
            return Verdict("fail", "rules", tuple(failed))
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
        facts_per_case = [
            self.reference_facts(c.actual or "", list(c.expected)) if self.params["facts"] else None for c in cases
        ]
        for case, facts in zip(cases, facts_per_case):
            actual = (case.actual or "").strip()
            shorts = [i for i, e in enumerate(case.expected) if len(actual) <= limit and len(e.strip()) <= limit]
            if fallback != "embeddings" and shorts:
                values = [short_string_similarity(actual, case.expected[i], fallback) for i in shorts]
                pick = pick_answer(values, [facts[i] for i in shorts] if facts else None)
                reference = shorts[pick]
                score = Score(
                    {"answer_accuracy": values[pick]},
                    f"short answer scored by {fallback}: {values[pick]:.3f}",
                    {"method": fallback, "reference": reference},
                )
                scores.append(with_facts(score, facts[reference] if facts else None))
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
                final.append(
                    with_facts(
                        Score(
                            {"answer_accuracy": None}, "the answer or expected answer has no sentence to compare", {}
                        ),
                        None,
                    )
                )
                continue
            reference = pick_answer(values, facts)
            if values[reference] is None:
                reference = max((i for i, v in enumerate(values) if v is not None), key=lambda i: values[i] or 0.0)
            sentences, _, sims = rows[reference]
            value = float(sims.min())
            worst = int(sims.argmin())
            score = Score(
                {"answer_accuracy": value},
                f"least accurate sentence {excerpt(sentences[worst], 100)!r} ({value:.3f}) vs expected answer "
                f"#{reference}",
                {
                    "method": "embeddings",
                    "reference": reference,
                    "least_accurate": excerpt(sentences[worst], 200),
                    **({"sentence_scores": [float(v) for v in sims]} if self.params["sentence_level_metrics"] else {}),
                },
            )
            final.append(with_facts(score, facts[reference] if facts else None))
        return final
