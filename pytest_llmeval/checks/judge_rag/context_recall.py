"""The ``context_recall`` check: Share of the expected answer's statements attributable to the context (best over
expected answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import ask_yes_no, judge_metrics, judge_statements

__all__ = ["assert_context_recall", "ContextRecall"]


def assert_context_recall(expected: Any, context: Any, **kwargs: Any) -> Result:
    """The context holds the expected answer's statements (LLM judge; threshold 0.75; best of several expected
    answers)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual", "question"))
    return check(ContextRecall, expected=expected, context=context, **kwargs)


ATTRIBUTABLE_PROMPT = """Can the statement be attributed to (inferred from) the context? Reply with JSON only:
{{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Statement: {statement}
"""


class ContextRecall(JudgeEvaluator):
    """Share of the expected answer's statements attributable to the context (best over expected answers)."""

    name = "context_recall"
    helper = "assert_context_recall"
    extra = "judge"
    description = "The retrieved context holds what the expected answer says (LLM judge)"
    requires = ("expected", "context")
    metrics = judge_metrics("context_recall", "share of expected-answer statements found in the context")

    def score(self, case: Case) -> Score:
        context = "\n\n".join(case.context)
        best: tuple[float, int, list[bool]] | None = None
        try:
            for index, expected in enumerate(case.expected):
                statements = judge_statements(self, expected, f"{self.name} statements #{index}")
                found = self.fan_out(
                    [
                        lambda i=i, s=s: ask_yes_no(
                            self,
                            ATTRIBUTABLE_PROMPT,
                            f"{self.name} statement {i}",  # type: ignore[misc]
                            context=context,
                            statement=s,
                        )
                        for i, s in enumerate(statements)
                    ]
                )
                if not found:
                    continue  # no statement to look for: this expected answer tells nothing
                value = sum(found) / len(found)
                if best is None or value > best[0]:
                    best = (value, index, found)
        except JudgeParseError as exc:
            return self.unscored(["context_recall"], exc)
        if best is None:
            return self.nothing_to_judge(["context_recall"], "the judge found no statements in the expected answer(s)")
        value, index, found = best
        return Score(
            {"context_recall": value, "parse_failure": 0.0},
            f"{sum(found)}/{len(found)} statements of expected answer #{index} are in the context",
            {"reference": index},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"attributable": ATTRIBUTABLE_PROMPT}
