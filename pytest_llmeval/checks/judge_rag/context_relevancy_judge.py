"""The ``context_relevancy_judge`` check: Share of the retrieved context the judge finds relevant to the question, by
sentence (default) or chunk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Score
from ...kit import require_choice
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import ask_yes_no, judge_metrics
from ...kit.text import excerpt
from .sentences import MAX_SENTENCES, capped_sentences, check_max_sentences, sentences_of

__all__ = ["assert_context_relevant_judged", "ContextRelevancyJudge"]


def assert_context_relevant_judged(
    question: str, context: Any, *, unit: str = "sentence", max_sentences: int = 100, **kwargs: Any
) -> Result:
    """The retrieved context is relevant to the question, as the judge reads it (LLM judge; threshold 0.75).

    ``unit="sentence"`` (the catalog's formula) counts relevant sentences, ``unit="chunk"`` relevant chunks.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual"))
    params = {"unit": unit, "max_sentences": max_sentences}
    return check(ContextRelevancyJudge, question=question, context=context, params=params, **kwargs)


RELEVANT_PROMPT = """Is this part of the retrieved context relevant to answering the question? Reply with JSON only:
{{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Question: {question}
Context {unit}: {chunk}
"""


class ContextRelevancyJudge(JudgeEvaluator):
    """Share of the retrieved context the judge finds relevant to the question, by sentence (default) or chunk.

    Parameters:
        unit: ``sentence`` (seed 000: relevant sentences / all sentences of the context) or
            ``chunk`` (relevant chunks / all chunks).
        max_sentences: sentences judged at most per case (one judge call each).
    """

    name = "context_relevancy_judge"
    version = "2"  # 2: sentence-level by default (the catalog's formula)
    helper = "assert_context_relevant_judged"
    extra = "judge"
    description = "The retrieved context is relevant to the question, sentence by sentence (LLM judge)"
    requires = ("question", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unit": "sentence", "max_sentences": MAX_SENTENCES}
    metrics = judge_metrics("context_relevancy", "share of relevant context sentences (or chunks)")

    def configure(self) -> None:
        require_choice(self.name, "unit", self.params["unit"], ("sentence", "chunk"))
        check_max_sentences(self)

    def score(self, case: Case) -> Score:
        unit = self.params["unit"]
        parts, note = (
            capped_sentences(sentences_of(case.context), self.params["max_sentences"])
            if unit == "sentence"
            else (list(case.context), "")
        )
        if not parts:
            return Score({"context_relevancy": None, "parse_failure": 0.0}, "the context has no sentence to judge", {})
        try:
            relevant = self.fan_out(
                [
                    lambda i=i, part=part: ask_yes_no(
                        self,
                        RELEVANT_PROMPT,
                        f"{self.name} {unit} {i}",  # type: ignore[misc]
                        question=case.question or "",
                        unit=unit,
                        chunk=part,
                    )
                    for i, part in enumerate(parts)
                ]
            )
        except JudgeParseError as exc:
            return self.unscored(["context_relevancy"], exc)
        value = sum(relevant) / len(relevant)
        details: dict[str, Any] = {"unit": unit, "verdicts": relevant}
        if unit == "sentence":
            details["irrelevant"] = [excerpt(p, 120) for p, ok in zip(parts, relevant) if not ok][:5]
        return Score(
            {"context_relevancy": value, "parse_failure": 0.0},
            f"{sum(relevant)}/{len(relevant)} {unit}s relevant{note}",
            details,
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"relevant": RELEVANT_PROMPT}
