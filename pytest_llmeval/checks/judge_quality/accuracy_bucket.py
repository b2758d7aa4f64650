"""The ``accuracy_bucket`` check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Result
from .facts_compare import FactsCompare
from .grades import BucketJudge, bucket_metrics
from .sql_eval import SqlEval

__all__ = ["assert_bucket", "AccuracyBucket"]


def assert_bucket(
    actual: str, expected: Any, *, scale: str = "accuracy", accept: Sequence[str] | None = None, **kwargs: Any
) -> Result:
    """The judge's bucket for the answer is an accepted one: ``scale`` is ``accuracy``, ``facts`` or ``sql`` (seed
    002)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    if scale not in _BUCKETS:
        raise ValueError(
            f"assert_bucket: argument 'scale' must be one of {', '.join(map(repr, _BUCKETS))}; got {scale!r}"
        )
    params = {} if accept is None else {"accept": [accept] if isinstance(accept, str) else list(accept)}
    return check(_BUCKETS[scale], actual=actual, expected=expected, params=params, **kwargs)


#: The judge's prompt (public: ``prompts={"template": ...}`` replaces it for a call, keeping its fields).
PROMPTS: Mapping[str, str] = {
    "template": """Compare the response with the desired response to the question. Choose one bucket:
"Accurate" (similar to the desired response), "Slightly Inaccurate" (close, but missing a critical fact) or
"Completely Incorrect" (different from, or contradicting, the desired response).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Question: {question}
Desired response: {expected}
Response: {actual}
"""
}


class AccuracyBucket(BucketJudge):
    name = "accuracy_bucket"
    helper = "assert_bucket"
    extra = "judge"
    description = "Accurate / Slightly Inaccurate / Completely Incorrect against the desired answer (LLM judge)"
    requires = ("actual", "expected")
    uses = ("question",)
    defaults: ClassVar[Mapping[str, Any]] = {"accept": ("Accurate",)}
    buckets = {"Accurate": 1.0, "Slightly Inaccurate": 0.5, "Completely Incorrect": 0.0}
    value_metric = "accuracy"
    metrics = bucket_metrics("accuracy", "Accurate 1, Slightly Inaccurate 0.5, Completely Incorrect 0")
    template = PROMPTS["template"]


#: ``assert_bucket``'s scales and the check that judges each.
_BUCKETS: dict[str, type[BucketJudge]] = {"accuracy": AccuracyBucket, "facts": FactsCompare, "sql": SqlEval}
