"""The ``fact_check`` check: Whether the answer contains false information, scored 0-1 by the judge (seed 000's
fact-check agent prompt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, prompt_fields

__all__ = ["assert_fact_checked", "FactCheck"]


def assert_fact_checked(actual: str, *, question: str | None = None, **kwargs: Any) -> Result:
    """The judge finds no false information in the answer, 0-1 (LLM judge; seed 000's fact-check prompt; passes at
    0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "context"))
    return check(FactCheck, actual=actual, question=question, **kwargs)


_FACT_CHECK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "evaluation_score": {"type": "number", "minimum": 0, "maximum": 1},
        "evaluation_summary": {"type": "string"},
    },
    "required": ["evaluation_score", "evaluation_summary"],
}


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """You are an agent whose role is to evaluate the text of the ACTUAL ANSWER.
Instructions for WHAT should be evaluated:
[BEGIN EVALUATION INSTRUCTIONS]
Fact-check the text and determine whether the text contains false information.
Use what you know to verify the information.
[END EVALUATION INSTRUCTIONS]
Reply with JSON only: {{"answer": string, "evaluation_score": float, "evaluation_summary": string}}, where
evaluation_score is between 0.0 and 1.0 (1.0: the ACTUAL ANSWER passed, it holds no false information; 0.0: it failed)
and evaluation_summary briefly justifies the score.
[BEGIN ACTUAL ANSWER]
{actual}
[END ACTUAL ANSWER]
If it may help, use the QUESTION which the ACTUAL ANSWER answered:
[BEGIN QUESTION]
{question}
[END QUESTION]
"""
}


class FactCheck(JudgeEvaluator):
    """Whether the answer contains false information, scored 0-1 by the judge (seed 000's fact-check agent prompt)."""

    name = "fact_check"
    helper = "assert_fact_checked"
    extra = "judge"
    description = "The answer contains no false information, 0-1 (LLM judge; seed 000's fact-check agent prompt)"
    requires = ("actual",)
    uses = ("question",)
    metrics = (
        MetricSpec("fact_check", "1 when the judge finds no false information", threshold=0.75, primary=True),
        PARSE_FAILURE,
    )
    template = PROMPTS["template"]

    def score(self, case: Case) -> Score:
        try:
            reply, _ = self.ask_fields(self.template, prompt_fields(case), what=self.name, schema=_FACT_CHECK_SCHEMA)
        except JudgeParseError as exc:
            return self.unscored(["fact_check"], exc)
        value = float(reply["evaluation_score"])
        return Score(
            {"fact_check": value, "parse_failure": 0.0},
            f"fact-check {value:.2f}: {str(reply.get('evaluation_summary', ''))[:300]}",
            {},
        )
