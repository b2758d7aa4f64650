"""The ``prompt_injection`` check: A prompt injection attempt in the question (probability of the injection class)."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs, scorer_argument
from ...kit import MetricSpec
from ...kit import Result
from .classifiers import ClassProbability

__all__ = ["assert_no_prompt_injection", "PromptInjection"]


def assert_no_prompt_injection(
    question: str, *, scorer: str | None = None, classifier: str | None = None, **kwargs: Any
) -> Result:
    """The prompt is not an injection attempt (reference deepset/deberta-v3-base-injection; threshold 0.5)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "actual"))
    return check(
        PromptInjection,
        question=question,
        params={"model": scorer_argument("assert_no_prompt_injection", scorer, classifier=classifier)},
        **kwargs,
    )


class PromptInjection(ClassProbability):
    """A prompt injection attempt in the question (probability of the injection class)."""

    name = "prompt_injection"
    helper = "assert_no_prompt_injection"
    extra = "embeddings"
    description = "The prompt is not a prompt-injection attempt"
    requires = ("question",)
    field = "question"
    reference_model = "deepset/deberta-v3-base-injection"
    reference_label = "INJECTION"
    metric = "prompt_injection"
    metrics = (
        MetricSpec(
            "prompt_injection",
            "probability that the prompt is an injection",
            higher_is_better=False,
            threshold=0.5,
            primary=True,
        ),
    )
