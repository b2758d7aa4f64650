"""The ``context_precision`` check: Are the useful chunks ranked first? (weighted precision over yes-verdicts)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import ask_yes_no, judge_metrics

__all__ = ["assert_context_precision", "ContextPrecision", "weighted_precision"]


def assert_context_precision(question: str, expected: Any, context: Any, **kwargs: Any) -> Result:
    """Chunks useful for the expected answer are ranked first (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual"))
    return check(ContextPrecision, question=question, expected=expected, context=context, **kwargs)


def weighted_precision(verdicts: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k with a relevant chunk; 0 when none is.

    >>> weighted_precision([True, False, False, True]), weighted_precision([False, True, False, True])
    (0.75, 0.5)
    """
    hits, total = 0, 0.0
    for k, relevant in enumerate(verdicts, start=1):
        if relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


PRECISION_PROMPT = """Given a question, its expected answer (or several acceptable expected answers) and one retrieved \
context
chunk, say whether the chunk was useful to arrive at the expected answer; with several, whether it was useful to arrive
at any one of them. Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Question: {question}
{expected}
Context chunk: {chunk}
"""


def _expected_answers(expected: Sequence[str]) -> str:
    """The prompt's expected-answer lines: one answer, or every acceptable one numbered.

    >>> print(_expected_answers(["Paris"]))
    Expected answer: Paris
    >>> print(_expected_answers(["Paris", "The capital is Paris."]))
    Expected answers (any one of them):
    1. Paris
    2. The capital is Paris.
    """
    if len(expected) == 1:
        return f"Expected answer: {expected[0]}"
    return "Expected answers (any one of them):\n" + "\n".join(
        f"{i}. {answer}" for i, answer in enumerate(expected, start=1)
    )


class ContextPrecision(JudgeEvaluator):
    """Are the useful chunks ranked first? (weighted precision over yes-verdicts)

    A chunk is useful when it helps to arrive at any of the expected answers (seed 001): the
    judge sees them all.
    """

    name = "context_precision"
    version = "2"  # 2: the judge sees every expected answer, not the first alone
    helper = "assert_context_precision"
    extra = "judge"
    description = "Chunks useful for the expected answer are ranked first (LLM judge)"
    requires = ("question", "expected", "context")
    metrics = judge_metrics("context_precision", "mean precision@k over the useful chunks")

    def score(self, case: Case) -> Score:
        verdicts = []
        try:
            for rank, chunk in enumerate(case.context):
                verdicts.append(
                    ask_yes_no(
                        self,
                        PRECISION_PROMPT,
                        f"{self.name} chunk {rank}",
                        question=case.question or "",
                        expected=_expected_answers(case.expected),
                        chunk=chunk,
                    )
                )
        except JudgeParseError as exc:
            return self.unscored(["context_precision"], exc)
        value = weighted_precision(verdicts)
        shown = ",".join("yes" if v else "no" for v in verdicts)
        return Score(
            {"context_precision": value, "parse_failure": 0.0},
            f"verdicts {shown} -> {value:.3f}",
            {"verdicts": verdicts},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"precision": PRECISION_PROMPT}
