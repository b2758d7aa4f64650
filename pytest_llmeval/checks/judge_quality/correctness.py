"""The ``correctness`` check: Correctness against a reference answer on 1-5 (LlamaIndex's rubric; passes at 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import MetricSpec
from ...kit import Result
from ...kit.judge import PARSE_FAILURE
from .grades import ScaleJudge

__all__ = ["assert_correct", "Correctness"]


def assert_correct(actual: str, expected: Any, **kwargs: Any) -> Result:
    """Correct against the reference on the 1-5 scale; passes at 4 (LLM judge)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(Correctness, actual=actual, expected=expected, **kwargs)


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """You are grading a generated answer against a reference answer for a user query.
Score it from 1 to 5: 1 if the answer is not relevant to the query; 2 or 3 if it is relevant but contains mistakes;
4 or 5 if it is relevant and fully correct (5 when it is also complete and clear).
Reply with JSON only: {{"score": <1-5>, "reason": "<one sentence>"}}.

Query: {question}
Reference answer: {expected}
Generated answer: {actual}
"""
}


class Correctness(ScaleJudge):
    """Correctness against a reference answer on 1-5 (LlamaIndex's rubric; passes at 4)."""

    name = "correctness"
    helper = "assert_correct"
    extra = "judge"
    description = "The answer is relevant and correct against the reference, 1-5 (LLM judge)"
    requires = ("actual", "expected")
    uses = ("question",)
    metrics = (
        MetricSpec(
            "correctness",
            "1 irrelevant, 2-3 relevant with mistakes, 4-5 relevant and correct",
            range=(1.0, 5.0),
            threshold=4.0,
            primary=True,
        ),
        PARSE_FAILURE,
    )
    template = PROMPTS["template"]
