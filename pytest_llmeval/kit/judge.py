"""Asking the judge, for a check whose verdict is an LLM judge's (its base is `pytest_llmeval.kit.JudgeEvaluator`):
the yes/no and choice questions, the reply schemas, the metrics a judge check reports, a reply that cannot be read."""

from __future__ import annotations

from ..judges.base import JudgeParseError
from ..judges.evaluator import (
    PARSE_FAILURE,
    ask_choice,
    ask_yes_no,
    judge_metrics,
    judge_statements,
    list_schema,
    prompt_fields,
    score_schema,
    verdict_schema,
)
from ..judges.verdicts import PassFailJudge, pass_fail_metrics

__all__ = [
    "JudgeParseError",
    "PARSE_FAILURE",
    "ask_choice",
    "ask_yes_no",
    "judge_metrics",
    "judge_statements",
    "list_schema",
    "prompt_fields",
    "score_schema",
    "verdict_schema",
    "PassFailJudge",
    "pass_fail_metrics",
]
