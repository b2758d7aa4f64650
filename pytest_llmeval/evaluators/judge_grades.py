"""Judges that grade: scales and buckets (see :mod:`pytest_llmeval.evaluators.judge_catalog`).

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
from typing import Any, ClassVar

from ..case import Case
from ..judges.base import JudgeParseError
from .base import MetricSpec, Score, require_type
from .judged import PARSE_FAILURE, JudgeEvaluator, _fields, _score_schema

__all__ = ["ScaleJudge", "Correctness", "SummaryCoherence", "Prometheus", "BucketJudge", "AccuracyBucket", "FactsCompare", "SqlEval"]


# -- scales ---------------------------------------------------------------------------


class ScaleJudge(JudgeEvaluator):
    """An integer score on a fixed scale from one judge reply."""

    low = 1
    high = 5
    template = ""

    def score(self, case: Case) -> Score:
        metric = self.primary_metric().name
        try:
            reply, _ = self.ask_fields(self.template, _fields(case), what=self.name, schema=_score_schema(self.low, self.high))
        except JudgeParseError as exc:
            return self.unscored([metric], exc)
        value = float(reply["score"])
        return Score({metric: value, "parse_failure": 0.0}, f"{value:.0f}/{self.high}: {str(reply.get('reason', ''))[:200]}",
                     {"score": int(reply["score"])})


class Correctness(ScaleJudge):
    """Correctness against a reference answer on 1-5 (LlamaIndex's rubric; passes at 4)."""

    name = "correctness"
    helper = "assert_correct"
    extra = "judge"
    description = "The answer is relevant and correct against the reference, 1-5 (LLM judge)"
    requires = ("actual", "expected")
    uses = ("question",)
    metrics = (MetricSpec("correctness", "1 irrelevant, 2-3 relevant with mistakes, 4-5 relevant and correct",
                          range=(1.0, 5.0), threshold=4.0, primary=True), PARSE_FAILURE)
    template = """You are grading a generated answer against a reference answer for a user query.
Score it from 1 to 5: 1 if the answer is not relevant to the query; 2 or 3 if it is relevant but contains mistakes;
4 or 5 if it is relevant and fully correct (5 when it is also complete and clear).
Reply with JSON only: {{"score": <1-5>, "reason": "<one sentence>"}}.

Query: {question}
Reference answer: {expected}
Generated answer: {actual}
"""


class SummaryCoherence(ScaleJudge):
    """Coherence of a summary given its source, 1-5 (G-Eval's rubric, generalised)."""

    name = "summary_coherence"
    helper = "assert_coherent_summary"
    extra = "judge"
    description = "The summary is coherent and hits the source's key points, 1-5 (LLM judge)"
    requires = ("actual", "context")
    metrics = (MetricSpec("coherence", "1 incoherent .. 5 extremely coherent given the source", range=(1.0, 5.0),
                          threshold=3.0, primary=True), PARSE_FAILURE)
    template = """Rate the coherence of the summary of the source text below, from 1 to 5. A coherent summary is well
structured and organised, builds from sentence to sentence into a body of information about the topic, and covers the key
points of the source; 5 means the summary is extremely coherent given the information in the source text.
Reply with JSON only: {{"score": <1-5>, "reason": "<one sentence>"}}.

Source text: {context}
Summary: {actual}
"""


class Prometheus(ScaleJudge):
    """A 1-5 grade against a fixed rubric (Prometheus's absolute grading; passes at 4).

    Parameters:
        criteria: what is graded, one question ("Is the answer helpful and accurate for a customer?").
        rubric: five descriptions, the score 1 one first (a list, or a mapping of 1..5 to text).

    The evaluation steps are the rubric itself, not written by the judge (seed 004). The
    prompt follows Prometheus's format (task description, instruction, response,
    reference answer with score 5, score rubric), so a Prometheus model can be the judge
    (``--llmeval-judge-for prometheus=MODEL``); any judge that replies in JSON works.
    """

    name = "prometheus"
    helper = "assert_rubric"
    extra = "judge"
    description = "The answer earns a high grade on your five-level rubric (Prometheus prompt; LLM judge)"
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"criteria": None, "rubric": None}
    metrics = (MetricSpec("rubric_score", "1 .. 5 by the rubric's descriptions", range=(1.0, 5.0), threshold=4.0, primary=True),
               PARSE_FAILURE)
    template = """###Task Description:
An instruction (might include an input inside it), a response to evaluate, a reference answer that gets a score of 5, and a
score rubric representing an evaluation criterion are given.
1. Write a detailed feedback that assesses the quality of the response strictly based on the given score rubric, not
evaluating in general.
2. After writing the feedback, give a score that is an integer between 1 and 5, referring to the score rubric.
3. Reply with JSON only: {{"reason": "<the feedback>", "score": <1-5>}}.

###The instruction to evaluate:
{question}{context_block}

###Response to evaluate:
{actual}

###Reference Answer (Score 5):
{expected}

###Score Rubrics:
[{criteria}]
{levels}

###Feedback:
"""

    def configure(self) -> None:
        criteria = self.params["criteria"]
        require_type(self.name, "criteria", criteria, str, "the graded criterion, e.g. 'Is the answer accurate and helpful?'")
        if not criteria.strip():
            raise ValueError(f"{self.name}: parameter 'criteria' must not be empty")
        rubric = self.params["rubric"]
        if isinstance(rubric, Mapping):
            keys = sorted(rubric, key=str)
            if [str(k) for k in keys] != ["1", "2", "3", "4", "5"]:
                raise ValueError(f"{self.name}: parameter 'rubric' as a mapping must have the keys 1 to 5; got {list(rubric)!r}")
            rubric = [rubric[k] for k in keys]
        require_type(self.name, "rubric", rubric, (list, tuple), "five score descriptions, score 1 first")
        if len(rubric) != 5 or not all(isinstance(text, str) and text.strip() for text in rubric):
            raise ValueError(f"{self.name}: parameter 'rubric' must hold five non-empty descriptions (scores 1 to 5); got {rubric!r:.200}")
        self.params["rubric"] = [str(text) for text in rubric]

    def ask_fields(self, template: str, fields: Mapping[str, str], **kwargs: Any) -> tuple[Any, Any]:
        levels = "\n".join(f"Score {i}: {text}" for i, text in enumerate(self.params["rubric"], start=1))
        filled = {**fields, "criteria": self.params["criteria"], "levels": levels,
                  "expected": fields.get("expected") or "(none given: grade by the rubric alone)",
                  "context_block": f"\n\nContext:\n{fields['context']}" if fields.get("context") else ""}
        return super().ask_fields(template, filled, **kwargs)


# -- buckets ----------------------------------------------------------------------------


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
            raise ValueError(f"{self.name}: parameter 'accept' must list buckets from {', '.join(map(repr, self.buckets))}; got {accept!r}")
        self.params["accept"] = sorted(accept, key=list(self.buckets).index)

    def score(self, case: Case) -> Score:
        names = list(self.buckets)
        schema = {"type": "object", "properties": {"bucket": {"type": "string", "enum": names}, "reason": {"type": "string"}},
                  "required": ["bucket"]}
        canonical = {name.lower(): name for name in names}

        def normalise(value: Any) -> Any:
            if isinstance(value, dict) and isinstance(value.get("bucket"), str):
                value["bucket"] = canonical.get(" ".join(value["bucket"].split()).lower(), value["bucket"])
            return value

        try:
            reply, _ = self.ask_fields(self.template, _fields(case), what=self.name, schema=schema, normalise=normalise)
        except JudgeParseError as exc:
            return self.unscored(["accepted", self.value_metric], exc)
        bucket = reply["bucket"]
        value = self.buckets[bucket]
        reason = f"{bucket}: {str(reply.get('reason', ''))[:200]}"
        if value is None:
            return Score({"accepted": None, self.value_metric: None, "parse_failure": 0.0}, reason + " (needs a person to classify)",
                         {"bucket": bucket})
        return Score({"accepted": float(bucket in self.params["accept"]), self.value_metric: value, "parse_failure": 0.0}, reason,
                     {"bucket": bucket})


def _bucket_metrics(value_metric: str, description: str) -> tuple[MetricSpec, ...]:
    return (MetricSpec("accepted", "1 when the bucket is an accepted one", threshold=0.5, primary=True),
            MetricSpec(value_metric, description, threshold=None), PARSE_FAILURE)


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
    metrics = _bucket_metrics("accuracy", "Accurate 1, Slightly Inaccurate 0.5, Completely Incorrect 0")
    template = """Compare the response with the desired response to the question. Choose one bucket:
"Accurate" (similar to the desired response), "Slightly Inaccurate" (close, but missing a critical fact) or
"Completely Incorrect" (different from, or contradicting, the desired response).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Question: {question}
Desired response: {expected}
Response: {actual}
"""


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
    metrics = _bucket_metrics("facts", "Identical/Similar 1, Superset 0.75, Subset 0.5, Disagreement 0")
    template = """Compare the facts in the response with the facts in the desired response. Choose one bucket:
"Superset" (the response holds all the desired facts and more), "Identical" (the same), "Similar" (only stylistic
differences; factually equivalent), "Subset" (the response holds only some of the desired facts) or "Disagreement"
(one or more facts disagree).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Question: {question}
Desired response: {expected}
Response: {actual}
"""


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
    metrics = _bucket_metrics("sql", "Best 1, Acceptable 0.75, Incorrect 0 (Undetermined: unscored)")
    template = """Compare the generated SQL query with the desired SQL query for the request. Choose one bucket:
"Best" (equivalent to the desired query), "Acceptable" (similar; returns what was asked), "Incorrect" (wrong) or
"Undetermined" (a person must decide).
Reply with JSON only: {{"bucket": "<bucket>", "reason": "<one sentence>"}}.

Request: {question}
Desired query: {expected}
Generated query: {actual}
"""
