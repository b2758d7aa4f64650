"""The ``facts_compare`` check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .grades import BucketJudge, bucket_metrics

__all__ = ["FactsCompare"]


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Compare the facts in the response with the facts in the desired response. Choose one bucket:
"Superset" (the response holds all the desired facts and more), "Identical" (the same), "Similar" (only stylistic
differences; factually equivalent), "Subset" (the response holds only some of the desired facts) or "Disagreement"
(one or more facts disagree).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Question: {question}
Desired response: {expected}
Response: {actual}
"""
}


class FactsCompare(BucketJudge):
    name = "facts_compare"
    helper = "assert_bucket"
    extra = "judge"
    description = "Superset / Identical / Similar / Subset / Disagreement of the desired answer's facts (LLM judge)"
    requires = ("actual", "expected")
    uses = ("question",)
    defaults: ClassVar[Mapping[str, Any]] = {"accept": ("Superset", "Identical", "Similar")}
    buckets = {"Identical": 1.0, "Similar": 1.0, "Superset": 0.75, "Subset": 0.5, "Disagreement": 0.0}
    value_metric = "facts"
    metrics = bucket_metrics("facts", "Identical/Similar 1, Superset 0.75, Subset 0.5, Disagreement 0")
    template = PROMPTS["template"]
