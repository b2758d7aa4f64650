"""The ``language_mismatch`` check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from ...kit.judge import PassFailJudge, pass_fail_metrics

__all__ = ["assert_same_language", "LanguageMismatch"]


def assert_same_language(actual: str, question: str, **kwargs: Any) -> Result:
    """The answer is in the question's language (LLM judge)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "context"))
    return check(LanguageMismatch, actual=actual, question=question, **kwargs)


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Identify the language of the question and the language of the answer. Only the language counts, not \
the
meaning; dialects and tones of one language are the same language.
Reply with JSON only: {{"verdict": "same"}} or {{"verdict": "different"}}, plus a short "reason".

[QUESTION]: {question}
[ANSWER]: {text}
"""
}


class LanguageMismatch(PassFailJudge):
    name = "language_mismatch"
    helper = "assert_same_language"
    extra = "judge"
    description = "The answer is in the question's language (LLM judge)"
    requires = ("actual", "question")
    uses = ("context",)
    metrics = pass_fail_metrics("same language as the question")
    verdicts = ("same", "different")
    template = PROMPTS["template"]
