"""Judges that grade: scales and buckets.

- Scales: ``correctness`` (1-5, passes at 4: 1 irrelevant, 2-3 relevant with
  mistakes, 4-5 relevant and correct; seed 003), ``summary_coherence`` (1-5; seed 001)
  and ``prometheus`` (seed 004: 1-5 against your rubric, whose five score
  descriptions are given, not generated; Prometheus's absolute-grading prompt, with
  the reference answer as the score-5 example when there is one).
- Buckets (seed 002): ``accuracy_bucket`` (Accurate / Slightly Inaccurate /
  Completely Incorrect), ``facts_compare`` (Superset / Identical / Similar / Subset /
  Disagreement), ``sql_eval`` (Best / Acceptable / Incorrect / Undetermined). Each
  records the bucket, a graded value, and ``accepted`` (1 when the bucket is one the
  ``accept`` parameter lists; the primary metric, so pass rates read directly).
  ``Undetermined`` SQL needs a person: the case is unscored and does not pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_type
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, prompt_fields, score_schema

__all__ = ["ScaleJudge", "BucketJudge", "bucket_metrics"]


class ScaleJudge(JudgeEvaluator):
    """An integer score on a fixed scale from one judge reply."""

    low = 1
    high = 5
    template = ""

    def score(self, case: Case) -> Score:
        metric = self.primary_metric().name
        try:
            reply, _ = self.ask_fields(
                self.template, prompt_fields(case), what=self.name, schema=score_schema(self.low, self.high)
            )
        except JudgeParseError as exc:
            return self.unscored([metric], exc)
        value = float(reply["score"])
        return Score(
            {metric: value, "parse_failure": 0.0},
            f"{value:.0f}/{self.high}: {str(reply.get('reason', ''))[:200]}",
            {"score": int(reply["score"])},
        )


class BucketJudge(JudgeEvaluator):
    """The judge puts the answer in one of a catalog's buckets; ``accept`` says which pass."""

    buckets: Mapping[str, float | None] = {}
    template = ""
    value_metric = ""

    def configure(self) -> None:
        accept = self.params["accept"]
        if isinstance(accept, str):
            accept = [accept]
        require_type(self.name, "accept", accept, (list, tuple), f"a list of buckets from {', '.join(self.buckets)}")
        unknown = [b for b in accept if b not in self.buckets]
        if unknown or not accept:
            raise ValueError(
                f"{self.name}: parameter 'accept' must list buckets from {', '.join(map(repr, self.buckets))}; got "
                f"{accept!r}"
            )
        self.params["accept"] = sorted(accept, key=list(self.buckets).index)

    def score(self, case: Case) -> Score:
        names = list(self.buckets)
        schema = {
            "type": "object",
            "properties": {"bucket": {"type": "string", "enum": names}, "reason": {"type": "string"}},
            "required": ["bucket"],
        }
        canonical = {name.lower(): name for name in names}

        def normalise(value: Any) -> Any:
            if isinstance(value, dict) and isinstance(value.get("bucket"), str):
                value["bucket"] = canonical.get(" ".join(value["bucket"].split()).lower(), value["bucket"])
            return value

        try:
            reply, _ = self.ask_fields(
                self.template, prompt_fields(case), what=self.name, schema=schema, normalise=normalise
            )
        except JudgeParseError as exc:
            return self.unscored(["accepted", self.value_metric], exc)
        bucket = reply["bucket"]
        value = self.buckets[bucket]
        reason = f"{bucket}: {str(reply.get('reason', ''))[:200]}"
        if value is None:
            return Score(
                {"accepted": None, self.value_metric: None, "parse_failure": 0.0},
                reason + " (needs a person to classify)",
                {"bucket": bucket},
            )
        return Score(
            {"accepted": float(bucket in self.params["accept"]), self.value_metric: value, "parse_failure": 0.0},
            reason,
            {"bucket": bucket},
        )


def bucket_metrics(value_metric: str, description: str) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec("accepted", "1 when the bucket is an accepted one", threshold=0.5, primary=True),
        MetricSpec(value_metric, description, threshold=None),
        PARSE_FAILURE,
    )
