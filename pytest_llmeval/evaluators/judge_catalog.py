"""The judge catalog: scales, buckets, pass/fail judges, opinion shares, answer relevancy and RAGAS.

- Scales: ``correctness`` (1-5, passes at 4: 1 irrelevant, 2-3 relevant with
  mistakes, 4-5 relevant and correct; seed 003) and ``summary_coherence`` (1-5; seed 001).
- Buckets (seed 002): ``accuracy_bucket`` (Accurate / Slightly Inaccurate /
  Completely Incorrect), ``facts_compare`` (Superset / Identical / Similar / Subset /
  Disagreement), ``sql_eval`` (Best / Acceptable / Incorrect / Undetermined). Each
  records the bucket, a graded value, and ``accepted`` (1 when the bucket is one the
  ``accept`` parameter lists; the primary metric, so pass rates read directly).
  ``Undetermined`` SQL needs a person: the case is unscored and does not pass.
- Pass/fail judges (seed 000): ``contact_information``, ``language_mismatch``,
  ``sexism``, ``stereotypes`` (0-10, stereotyped from ``cutoff``), ``summarization_judge``
  and ``byop`` (your own prompt, true/false). Metrics as the catalog's: ``pass``,
  ``fail``, ``retrieval_failures`` (share of retrieved chunks that fail the same
  check, when context is given), ``generation_failures`` and ``parse_failure``.
- Opinion shares (seed 001): ``bias_judge`` and ``toxicity_judge``: the judge lists the
  answer's opinions, then says which are biased (toxic); the share, 0 with no opinions.
- ``answer_relevancy_judge``: ``questions`` (RAGAS: the judge writes ``n`` questions the
  answer would answer; mean cosine similarity to the real question, 0 for a
  noncommittal answer) or ``statements`` (DeepEval: share of relevant statements).
- ``ragas``: harmonic mean of faithfulness, answer relevancy, context precision and
  context recall, ``4 / (1/F + 1/AR + 1/CP + 1/CR)`` (0 when one of them is 0). Its parts
  ask the judge under their own names, so their verdicts are shared with the
  stand-alone checks.

The scales and buckets are defined in :mod:`~pytest_llmeval.evaluators.judge_grades`,
the pass/fail judges and opinion shares in :mod:`~pytest_llmeval.evaluators.judge_verdicts`;
every one of them can be imported from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..judges.base import JudgeParseError
from .base import MetricSpec, Score, require_choice, require_number
from .judge_grades import (
    AccuracyBucket as AccuracyBucket,
    BucketJudge as BucketJudge,
    Correctness as Correctness,
    FactsCompare as FactsCompare,
    ScaleJudge as ScaleJudge,
    SqlEval as SqlEval,
    SummaryCoherence as SummaryCoherence,
    _bucket_metrics as _bucket_metrics,
)
from .judge_verdicts import (
    _OPINIONS as _OPINIONS,
    BYOP_DEFAULT as BYOP_DEFAULT,
    BiasJudge as BiasJudge,
    Byop as Byop,
    ContactInformation as ContactInformation,
    LanguageMismatch as LanguageMismatch,
    OpinionShare as OpinionShare,
    PassFailJudge as PassFailJudge,
    Sexism as Sexism,
    Stereotypes as Stereotypes,
    SummarizationJudge as SummarizationJudge,
    ToxicityJudge as ToxicityJudge,
    _pass_fail_metrics as _pass_fail_metrics,
)
from .judged import (
    PARSE_FAILURE,
    ContextPrecision,
    ContextRecall,
    EmbeddingJudge,
    Faithfulness,
    JudgeEvaluator,
    _fields as _fields,
    _judge_metrics,
    _score_schema as _score_schema,
    _statements,
    _yes,
)

__all__ = ["ScaleJudge", "Correctness", "SummaryCoherence", "BucketJudge", "AccuracyBucket", "FactsCompare", "SqlEval",
           "PassFailJudge", "ContactInformation", "LanguageMismatch", "Sexism", "Stereotypes", "SummarizationJudge", "Byop",
           "OpinionShare", "BiasJudge", "ToxicityJudge", "AnswerRelevancyJudge", "Ragas", "harmonic_mean"]


# -- answer relevancy and RAGAS ---------------------------------------------------------------------------


_QUESTIONS = """Write {n} different questions that the answer below would answer. Also say whether the answer is noncommittal
(evasive or vague, such as "I don't know" or "I'm not sure").
Reply with JSON only: {{"questions": ["...", ...], "noncommittal": false}}.

Answer: {answer}
"""

_RELEVANT_STATEMENT = """Is the statement relevant to answering the question? Reply with JSON only: {{"verdict": "yes"}} or
{{"verdict": "no"}}, plus a short "reason".

Question: {question}
Statement: {statement}
"""


class AnswerRelevancyJudge(EmbeddingJudge):
    """How well the answer addresses the question.

    ``method="questions"`` (RAGAS, default): the judge writes ``n`` questions the answer
    would answer; the score is their mean cosine similarity to the real question
    (clipped at 0; 0 for a noncommittal answer; needs the embedding model).
    ``method="statements"`` (DeepEval): the share of the answer's statements relevant to the question.
    """

    name = "answer_relevancy_judge"
    helper = "assert_answer_relevant"
    extra = "judge"
    description = "The answer addresses the question (LLM judge; generated questions or relevant statements)"
    requires = ("actual", "question")
    defaults: ClassVar[Mapping[str, Any]] = {"method": "questions", "n": 3}
    metrics = _judge_metrics("answer_relevancy", "mean similarity of generated questions to the question, or share of relevant statements")

    def configure(self) -> None:
        require_choice(self.name, "method", self.params["method"], ("questions", "statements"))
        require_number(self.name, "n", self.params["n"], low=1, high=20, integer=True)

    def uses_embedder(self) -> bool:
        return bool(self.params["method"] == "questions")

    def score(self, case: Case) -> Score:
        try:
            if self.params["method"] == "statements":
                statements = _statements(self, case.actual or "", f"{self.name} statements")
                relevant = [_yes(self, _RELEVANT_STATEMENT, f"{self.name} statement {i}", question=case.question or "", statement=s)
                            for i, s in enumerate(statements)]
                if not relevant:
                    return self.nothing_to_judge(["answer_relevancy"], "the judge found no statements in the answer")
                value = sum(relevant) / len(relevant)
                return Score({"answer_relevancy": value, "parse_failure": 0.0}, f"{sum(relevant)}/{len(relevant)} statements relevant",
                             {"statements": [{"statement": s, "relevant": r} for s, r in zip(statements, relevant)]})
            schema = {"type": "object", "properties": {"questions": {"type": "array", "items": {"type": "string"}},
                                                       "noncommittal": {"type": "boolean"}}, "required": ["questions"]}
            reply = self.ask(_QUESTIONS, what=f"{self.name} questions", schema=schema, n=str(self.params["n"]), answer=case.actual or "")
        except JudgeParseError as exc:
            return self.unscored(["answer_relevancy"], exc)
        questions = list(reply["questions"])[: self.params["n"]]
        noncommittal = bool(reply.get("noncommittal", False))
        if noncommittal:
            return Score({"answer_relevancy": 0.0, "parse_failure": 0.0}, "noncommittal answer",
                         {"questions": [{"question": q} for q in questions], "noncommittal": True})
        if not questions:
            self.runner.count_parse_failure(self.name)
            return self.unscored(["answer_relevancy"], JudgeParseError("no questions generated for a committal answer"))
        vectors = self.embedder().encode([case.question or "", *questions])
        similarities = [max(0.0, min(1.0, float(vectors[0] @ v))) for v in vectors[1:]]
        value = sum(similarities) / len(similarities)
        return Score({"answer_relevancy": value, "parse_failure": 0.0}, f"mean similarity of {len(questions)} generated questions {value:.3f}",
                     {"questions": [{"question": q, "similarity": round(s, 6)} for q, s in zip(questions, similarities)],
                      "noncommittal": False})


def harmonic_mean(values: Sequence[float]) -> float:
    """``n / sum(1/v)``; 0 when any value is 0.

    >>> round(harmonic_mean([1.0, 0.5, 0.75, 1.0]), 4)
    0.75
    """
    if any(v <= 0 for v in values):
        return 0.0
    return len(values) / sum(1 / v for v in values)


class Ragas(JudgeEvaluator):
    """Harmonic mean of faithfulness, answer relevancy, context precision and context recall."""

    name = "ragas"
    helper = "assert_ragas"
    extra = "judge"
    description = "RAGAS: harmonic mean of faithfulness, answer relevancy, context precision and recall (LLM judge)"
    requires = ("actual", "question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unknown_claims": "unsupported", "n": 3}
    metrics = (
        MetricSpec("ragas", "harmonic mean of the four", threshold=0.75, primary=True),
        MetricSpec("faithfulness", "share of claims supported by the context", threshold=None),
        MetricSpec("answer_relevancy", "mean similarity of generated questions to the question", threshold=None),
        MetricSpec("context_precision", "mean precision@k over the useful chunks", threshold=None),
        MetricSpec("context_recall", "share of expected-answer statements found in the context", threshold=None),
        PARSE_FAILURE,
    )
    models: Any = None

    def configure(self) -> None:
        self.parts = (Faithfulness(unknown_claims=self.params["unknown_claims"]), AnswerRelevancyJudge(n=self.params["n"]),
                      ContextPrecision(), ContextRecall())

    def bind(self, models: Any) -> None:
        self.models = models
        self.parts[1].bind(models)
        self.__dict__.pop("_signature", None)

    def scoring_model(self) -> str | None:
        return self.parts[1].scoring_model()

    def bind_judge(self, runner: Any) -> None:
        super().bind_judge(runner)
        for part in self.parts:
            part.bind_judge(runner)

    def score(self, case: Case) -> Score:
        values: dict[str, float | None] = {}
        reasons = []
        unverified = broken = False
        for part in self.parts:
            score = part.score(case)
            metric = part.primary_metric().name
            values[metric] = score.metrics.get(metric)
            if values[metric] is None:
                unverified = unverified or score.unverified
                broken = broken or not score.unverified
            reasons.append(f"{metric} {values[metric]:.3f}" if values[metric] is not None else f"{metric}: {score.reason}")
        if broken or unverified:
            # A part whose reply was unusable leaves the whole unscored (a parse failure), whatever the others found;
            # otherwise a part with nothing to judge leaves it unverified.
            return Score({**values, "ragas": None, "parse_failure": 1.0 if broken else 0.0}, "; ".join(reasons), {},
                         unverified=not broken)
        value = harmonic_mean([v for v in values.values() if v is not None])
        return Score({**values, "ragas": value, "parse_failure": 0.0}, "; ".join(reasons), {})
