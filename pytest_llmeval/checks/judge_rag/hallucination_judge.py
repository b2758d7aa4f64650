"""The ``hallucination_judge`` check: Share of retrieved chunks the answer contradicts (lower is better)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import ask_yes_no, judge_metrics

__all__ = ["assert_no_hallucination_judged", "HallucinationJudge"]


def assert_no_hallucination_judged(actual: str, context: Any, **kwargs: Any) -> Result:
    """The answer contradicts none of the retrieved chunks, as the judge reads them (LLM judge)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(HallucinationJudge, actual=actual, context=context, **kwargs)


CONTRADICTS_PROMPT = """Does the text directly contradict the context? Answer "yes" only for a direct contradiction, \
otherwise "no".
Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Text: {text}
"""


class HallucinationJudge(JudgeEvaluator):
    """Share of retrieved chunks the answer contradicts (lower is better)."""

    name = "hallucination_judge"
    helper = "assert_no_hallucination_judged"
    extra = "judge"
    description = "The answer contradicts none of the retrieved chunks (LLM judge)"
    requires = ("actual", "context")
    metrics = judge_metrics("hallucination", "share of chunks the answer contradicts", higher_is_better=False)

    def score(self, case: Case) -> Score:
        try:
            contradicted = self.fan_out(
                [
                    lambda i=i, chunk=chunk: ask_yes_no(
                        self,
                        CONTRADICTS_PROMPT,
                        f"{self.name} chunk {i}",  # type: ignore[misc]
                        context=chunk,
                        text=case.actual or "",
                    )
                    for i, chunk in enumerate(case.context)
                ]
            )
        except JudgeParseError as exc:
            return self.unscored(["hallucination"], exc)
        value = sum(contradicted) / len(contradicted)
        return Score(
            {"hallucination": value, "parse_failure": 0.0},
            f"contradicts {sum(contradicted)}/{len(contradicted)} chunks",
            {"verdicts": contradicted},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"contradicts": CONTRADICTS_PROMPT}
