"""The ``sql_eval`` check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .grades import BucketJudge, bucket_metrics

__all__ = ["SqlEval"]


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Compare the generated SQL query with the desired SQL query for the request. Choose one bucket:
"Best" (equivalent to the desired query), "Acceptable" (similar; returns what was asked), "Incorrect" (wrong) or
"Undetermined" (a person must decide).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Request: {question}
Desired query: {expected}
Generated query: {actual}
"""
}


class SqlEval(BucketJudge):
    name = "sql_eval"
    helper = "assert_bucket"
    extra = "judge"
    description = "Best / Acceptable / Incorrect / Undetermined for generated SQL against the desired query (LLM judge)"
    requires = ("actual", "expected")
    uses = ("question",)
    defaults: ClassVar[Mapping[str, Any]] = {"accept": ("Best", "Acceptable")}
    buckets = {"Best": 1.0, "Acceptable": 0.75, "Incorrect": 0.0, "Undetermined": None}
    value_metric = "sql"
    metrics = bucket_metrics("sql", "Best 1, Acceptable 0.75, Incorrect 0 (Undetermined: unscored)")
    template = PROMPTS["template"]
