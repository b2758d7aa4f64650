"""The ``summary_coherence`` check: Coherence of a summary given its source, 1-5 (G-Eval's rubric, generalised)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check, check_kwargs
from ...kit import MetricSpec
from ...kit import Result
from ...kit.judge import PARSE_FAILURE
from .grades import ScaleJudge

__all__ = ["assert_coherent_summary", "SummaryCoherence"]


def assert_coherent_summary(summary: str, source: Any, **kwargs: Any) -> Result:
    """The summary is coherent given its source, 1-5; passes at 3 (LLM judge)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(SummaryCoherence, actual=summary, context=source, **kwargs)


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Rate the coherence of the summary of the source text below, from 1 to 5. A coherent summary is well
structured and organised, builds from sentence to sentence into a body of information about the topic, and covers the \
key
points of the source; 5 means the summary is extremely coherent given the information in the source text.
Reply with JSON only: {{"score": <1-5>, "reason": "<one sentence>"}}.

Source text: {context}
Summary: {actual}
"""
}


class SummaryCoherence(ScaleJudge):
    """Coherence of a summary given its source, 1-5 (G-Eval's rubric, generalised)."""

    name = "summary_coherence"
    helper = "assert_coherent_summary"
    extra = "judge"
    description = "The summary is coherent and hits the source's key points, 1-5 (LLM judge)"
    requires = ("actual", "context")
    metrics = (
        MetricSpec(
            "coherence",
            "1 incoherent .. 5 extremely coherent given the source",
            range=(1.0, 5.0),
            threshold=3.0,
            primary=True,
        ),
        PARSE_FAILURE,
    )
    template = PROMPTS["template"]
