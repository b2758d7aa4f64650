"""The ``summarization_judge`` check: A good summary of the source (``question`` holds the source, as in the catalog;
``expected`` a reference summary)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from ...kit.judge import PassFailJudge, pass_fail_metrics

__all__ = ["assert_good_summary_judged", "SummarizationJudge"]


def assert_good_summary_judged(summary: str, source: str, *, reference: Any = None, **kwargs: Any) -> Result:
    """The judge calls the summary of ``source`` good: comprehensive, concise, coherent, independent."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history"))
    return check(SummarizationJudge, actual=summary, question=source, expected=reference, **kwargs)


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Is the summary a good summary of the original document: comprehensive, concise, coherent, and \
readable
without the original? A reference summary, when given, shows what a good one covers.
Reply with JSON only: {{"verdict": "good"}} or {{"verdict": "bad"}}, plus a short "reason".

[Summary]: {text}
[Original Document]: {question}
[Reference summary]: {expected}
"""
}


class SummarizationJudge(PassFailJudge):
    """A good summary of the source (``question`` holds the source, as in the catalog; ``expected`` a reference
    summary)."""

    name = "summarization_judge"
    helper = "assert_good_summary_judged"
    extra = "judge"
    description = "The summary is comprehensive, concise, coherent and independent (LLM judge)"
    requires = ("actual", "question")
    uses = ("expected",)
    metrics = pass_fail_metrics("a good summary")
    verdicts = ("good", "bad")
    template = PROMPTS["template"]
