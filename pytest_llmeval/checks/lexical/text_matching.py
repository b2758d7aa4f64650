"""Text matching against a boolean condition (catalog: Text Matching Evaluator).

Checks the actual answer, and the retrieved context when there is one, for the
presence and absence of strings and regular expressions, combined with AND, OR,
NOT and parentheses (see `pytest_llmeval.text.conditions`). A case passes when
every text checked satisfies the condition.
"""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_type
from ...kit import Result
from ...kit.text import Condition, parse_condition

__all__ = ["assert_matches", "TextMatching", "condition_outcome"]


def assert_matches(
    actual: str, condition: str, *, context: Any = None, evaluate_context: bool = True, **kwargs: Any
) -> Result:
    """The answer (and context, if given) satisfies a condition like ``'"15,969" AND NOT "Real"'``.

    Quoted strings are substrings, ``regexp("...")`` is `re.search()`;
    combine with AND, OR, NOT and parentheses.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(
        TextMatching,
        actual=actual,
        conditions=condition,
        context=context,
        params={"evaluate_context": evaluate_context},
        **kwargs,
    )


def condition_outcome(
    condition: Condition, answer: str, context: tuple[str, ...], check_context: bool
) -> tuple[dict[str, float | None], str, dict[str, Any]]:
    """Apply ``condition`` to an answer and its context: metrics, reason, details.

    Shared with the encoding guardrail, which applies conditions to decoded text.
    """
    answer_reasons = condition.explain(answer)
    checked_context = check_context and bool(context)
    context_reasons = condition.explain("\n\n".join(context)) if checked_context else []
    answer_failed = bool(answer_reasons)
    context_failed = bool(context_reasons)
    passed = not answer_failed and not context_failed
    problems = []
    if answer_failed:
        problems.append("answer: " + "; ".join(answer_reasons))
    if context_failed:
        problems.append("context: " + "; ".join(context_reasons))
    reason = (
        f"condition {condition.source} holds"
        if passed
        else f"condition {condition.source} fails; " + " | ".join(problems)
    )
    metrics: dict[str, float | None] = {
        "pass": float(passed),
        "fail": float(not passed),
        "retrieval_failure": float(context_failed) if checked_context else None,
        "generation_failure": float(answer_failed),
    }
    details = {"condition": condition.source, "answer": answer_reasons, "context": context_reasons}
    return metrics, reason, details


class TextMatching(Evaluator):
    """Does the answer (and context) satisfy a boolean string/regexp condition?

    Parameters:
        evaluate_context: also check the retrieved context, when the case has one.

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = TextMatching().evaluate([Case(actual="Revenue: 15,969", conditions='"15,969" AND NOT "Real"')])
    >>> r.passed, r.metrics["pass"]
    (True, 1.0)
    """

    name = "text_matching"
    helper = "assert_matches"
    description = "Presence / absence of strings and regular expressions in answer and context"
    requires = ("actual", "conditions")
    uses = ("context",)
    defaults = {"evaluate_context": True}
    metrics = (
        MetricSpec("pass", "1 when every checked text satisfies the condition", primary=True),
        MetricSpec("fail", "1 when a checked text fails the condition", higher_is_better=False),
        MetricSpec("retrieval_failure", "1 when the retrieved context fails the condition", higher_is_better=False),
        MetricSpec("generation_failure", "1 when the actual answer fails the condition", higher_is_better=False),
    )

    def configure(self) -> None:
        require_type(self.name, "evaluate_context", self.params["evaluate_context"], bool, "True or False")
        self._parsed: dict[str, Condition] = {}

    def condition(self, source: str) -> Condition:
        if source not in self._parsed:
            self._parsed[source] = parse_condition(source)
        return self._parsed[source]

    def score(self, case: Case) -> Score:
        assert case.actual is not None and case.conditions is not None
        metrics, reason, details = condition_outcome(
            self.condition(case.conditions), case.actual, case.context, self.params["evaluate_context"]
        )
        return Score(metrics, reason, details)
