"""The ``prometheus`` check: A 1-5 grade against a fixed rubric (Prometheus's absolute grading; passes at 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import MetricSpec
from ...kit import require_type
from ...kit import Result
from ...kit.judge import PARSE_FAILURE
from .grades import ScaleJudge

__all__ = ["assert_rubric", "Prometheus"]


def assert_rubric(actual: str, criteria: str, rubric: Any, *, expected: Any = None, **kwargs: Any) -> Result:
    """A grade of 4 or 5 on your five-level ``rubric`` (score 1's description first), Prometheus-style (LLM judge).

    ``expected`` is the reference answer that would score 5, when there is one; ``question=`` and
    ``context=`` are shown to the judge too.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "question", "context"))
    return check(
        Prometheus, actual=actual, expected=expected, params={"criteria": criteria, "rubric": rubric}, **kwargs
    )


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """###Task Description:
An instruction (might include an input inside it), a response to evaluate, a reference answer that gets a score of 5, \
and a
score rubric representing an evaluation criterion are given.
1. Write a detailed feedback that assesses the quality of the response strictly based on the given score rubric, not
evaluating in general.
2. After writing the feedback, give a score that is an integer between 1 and 5, referring to the score rubric.
3. Reply with JSON only: {{"reason": "<the feedback>", "score": <1-5>}}.

###The instruction to evaluate:
{question}{context_block}

###Response to evaluate:
{actual}

###Reference Answer (Score 5):
{expected}

###Score Rubrics:
[{criteria}]
{levels}

###Feedback:
"""
}


class Prometheus(ScaleJudge):
    """A 1-5 grade against a fixed rubric (Prometheus's absolute grading; passes at 4).

    Parameters:
        criteria: what is graded, one question ("Is the answer helpful and accurate for a customer?").
        rubric: five descriptions, the score 1 one first (a list, or a mapping of 1..5 to text).

    The evaluation steps are the rubric itself, not written by the judge (seed 004). The
    prompt follows Prometheus's format (task description, instruction, response,
    reference answer with score 5, score rubric), so a Prometheus model can be the judge
    (``judge.for prometheus=MODEL``); any judge that replies in JSON works.
    """

    name = "prometheus"
    helper = "assert_rubric"
    extra = "judge"
    description = "The answer earns a high grade on your five-level rubric (Prometheus prompt; LLM judge)"
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"criteria": None, "rubric": None}
    metrics = (
        MetricSpec(
            "rubric_score", "1 .. 5 by the rubric's descriptions", range=(1.0, 5.0), threshold=4.0, primary=True
        ),
        PARSE_FAILURE,
    )
    template = PROMPTS["template"]

    def configure(self) -> None:
        criteria = self.params["criteria"]
        require_type(
            self.name, "criteria", criteria, str, "the graded criterion, e.g. 'Is the answer accurate and helpful?'"
        )
        if not criteria.strip():
            raise ValueError(f"{self.name}: parameter 'criteria' must not be empty")
        rubric = self.params["rubric"]
        if isinstance(rubric, Mapping):
            keys = sorted(rubric, key=str)
            if [str(k) for k in keys] != ["1", "2", "3", "4", "5"]:
                raise ValueError(
                    f"{self.name}: parameter 'rubric' as a mapping must have the keys 1 to 5; got {list(rubric)!r}"
                )
            rubric = [rubric[k] for k in keys]
        require_type(self.name, "rubric", rubric, (list, tuple), "five score descriptions, score 1 first")
        if len(rubric) != 5 or not all(isinstance(text, str) and text.strip() for text in rubric):
            raise ValueError(
                f"{self.name}: parameter 'rubric' must hold five non-empty descriptions (scores 1 to 5); got "
                f"{rubric!r:.200}"
            )
        self.params["rubric"] = [str(text) for text in rubric]

    def ask_fields(self, template: str, fields: Mapping[str, str], **kwargs: Any) -> tuple[Any, Any]:
        levels = "\n".join(f"Score {i}: {text}" for i, text in enumerate(self.params["rubric"], start=1))
        filled = {
            **fields,
            "criteria": self.params["criteria"],
            "levels": levels,
            "expected": fields.get("expected") or "(none given: grade by the rubric alone)",
            "context_block": f"\n\nContext:\n{fields['context']}" if fields.get("context") else "",
        }
        return super().ask_fields(template, filled, **kwargs)
