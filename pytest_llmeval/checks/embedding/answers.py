"""The base of the embedding checks that compare an answer with a reference, sentence by sentence
(``answer_accuracy``, ``semantic_similarity``, ``semantic_sentence_similarity``), and the fact layer's metrics they
record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_type
from ...kit.text import embedded_sentences as _sentences
from .base import EmbeddingEvaluator, cosine_matrix

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FACT_METRICS", "FactChecked", "with_facts", "pick_answer", "SentenceMatch"]


FACT_METRICS = (
    MetricSpec(
        "fact_support",
        "share of the answer's facts (numbers, dates, names, negations) the expected answer states",
        threshold=1.0,
        gates=True,
    ),
    MetricSpec("fact_recall", "share of the expected answer's facts the answer states", threshold=None),
    MetricSpec(
        "unsupported_facts",
        "facts of the answer the expected answer does not state",
        higher_is_better=False,
        range=(0.0, math.inf),
        threshold=None,
    ),
)


class FactChecked(EmbeddingEvaluator):
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
        from ...kit.facts import FactLayer

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
            recall = (
                1.0
                if not expected_facts
                else sum(answer_index.supports(f) for f in expected_facts) / len(expected_facts)
            )
            out.append(
                {
                    "fact_support": support,
                    "fact_recall": recall,
                    "unsupported_facts": float(unsupported),
                    "messages": messages,
                    "details": details,
                }
            )
        return out


def with_facts(score: Score, facts: dict[str, Any] | None) -> Score:
    """``score`` with the fact metrics of its chosen expected answer; fact failures lead the reason."""
    if facts is None:
        return Score(
            {**score.metrics, "fact_support": None, "fact_recall": None, "unsupported_facts": None},
            score.reason,
            score.details,
        )
    metrics = {**score.metrics, **{k: facts[k] for k in ("fact_support", "fact_recall", "unsupported_facts")}}
    reason = "; ".join([*facts["messages"], score.reason])
    return Score(metrics, reason, {**score.details, "unsupported_facts": facts["details"]})


def pick_answer(scores: Sequence[float | None], facts: Sequence[dict[str, Any]] | None) -> int:
    """The expected answer that fits best: most facts supported, then the highest score."""

    def key(i: int) -> tuple[float, float]:
        support = facts[i]["fact_support"] if facts else 1.0
        value = scores[i]
        return (support, -1.0 if value is None else value)

    return max(range(len(scores)), key=key)


class SentenceMatch(EmbeddingEvaluator):
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
                    rows.append((answers[index], reference, cosine_matrix(encoded[index], encoded[cursor]).max(axis=1)))
                else:
                    rows.append((answers[index], reference, None))
                cursor += 1
            out.append(rows)
        return out
