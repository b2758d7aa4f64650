"""The ``task_completion`` check."""

from __future__ import annotations

from collections.abc import Mapping
import json
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE

__all__ = ["assert_task_completed", "TaskCompletion"]


def assert_task_completed(actual: str, task: str, *, tools_called: Any = None, **kwargs: Any) -> Result:
    """The agent's final output achieves the task (LLM judge, 0-1; threshold 0.5); tool calls, when given, are shown to
    the judge."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "context"))
    metadata = dict(kwargs.pop("metadata", None) or {})
    if tools_called is not None:
        metadata["tools_called"] = tools_called
    return check(TaskCompletion, actual=actual, question=task, metadata=metadata, **kwargs)


EXTRACT_PROMPT = """From the user's input, the agent's final output and the steps it took, state the task the user \
asked for and
the outcome the agent achieved. Reply with JSON only: {{"task": "...", "outcome": "..."}}.

Input: {question}
Steps and tool calls: {steps}
Final output: {actual}
"""


COMPLETION_PROMPT = """How fully does the outcome achieve the task? Score from 0 (not at all) to 1 (completely); \
fractions allowed.
Reply with JSON only: {{"score": <0-1>, "reason": "<one sentence>"}}.

Task: {task}
Outcome: {outcome}
"""


class TaskCompletion(JudgeEvaluator):
    name = "task_completion"
    helper = "assert_task_completed"
    extra = "judge"
    description = "The agent's outcome achieves the task the user asked for (LLM judge)"
    requires = ("actual", "question")
    uses = ("context", "metadata")
    metrics = (
        MetricSpec("task_completion", "0 not at all .. 1 completely", threshold=0.5, primary=True),
        PARSE_FAILURE,
    )

    def score(self, case: Case) -> Score:
        tools = (case.metadata or {}).get("tools_called")
        steps = (
            json.dumps(tools, ensure_ascii=False, default=str)
            if tools
            else "\n".join(case.context or ()) or "(none given)"
        )
        number = {
            "type": "object",
            "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
            "required": ["score"],
        }
        try:
            found = self.ask(
                EXTRACT_PROMPT,
                what=f"{self.name} task and outcome",
                schema={
                    "type": "object",
                    "properties": {"task": {"type": "string"}, "outcome": {"type": "string"}},
                    "required": ["task", "outcome"],
                },
                question=case.question or "",
                steps=steps,
                actual=case.actual or "",
            )
            reply = self.ask(
                COMPLETION_PROMPT,
                what=f"{self.name} score",
                schema=number,
                task=found["task"],
                outcome=found["outcome"],
            )
        except JudgeParseError as exc:
            return self.unscored(["task_completion"], exc)
        value = float(reply["score"])
        return Score(
            {"task_completion": value, "parse_failure": 0.0},
            f"{value:.2f}: {str(reply.get('reason', ''))[:200]}",
            {"task": found["task"], "outcome": found["outcome"]},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"extract": EXTRACT_PROMPT, "completion": COMPLETION_PROMPT}
