"""LLM-judge checks, built on :mod:`pytest_llmeval.judges` (verdicts cached and replayable).

- ``context_precision`` (seed 001, LLM-guided): the judge says, for each retrieved
  chunk in rank order, whether it was useful to arrive at the expected answer
  (yes/no); the score is the mean of precision@k over the ranks k whose verdict
  is yes: yes,no,no,yes -> (1 + 2/4) / 2 = 0.75 and no,yes,no,yes -> 0.5; all no -> 0.
- ``faithfulness`` (seed 001, RAGAS / DeepEval): the judge lists the answer's
  claims, then gives each a verdict against the context (yes / no / idk). RAGAS
  counts only supported claims; DeepEval counts every claim the context does not
  contradict. ``unknown_claims`` chooses: ``unsupported`` (RAGAS, default) or
  ``supported`` (DeepEval).

A reply that is not the JSON asked for (or was cut off) counts as a parse
failure: the metric ``parse_failure`` is 1 and the case is unscored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..case import Case
from ..judges.base import JudgeParseError
from .base import Evaluator, MetricSpec, Score, require_choice

__all__ = ["JudgeEvaluator", "ContextPrecision", "Faithfulness", "weighted_precision"]


def weighted_precision(verdicts: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k with a relevant chunk; 0 when none is.

    >>> weighted_precision([True, False, False, True]), weighted_precision([False, True, False, True])
    (0.75, 0.5)
    """
    hits, total = 0, 0.0
    for k, relevant in enumerate(verdicts, start=1):
        if relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


class JudgeEvaluator(Evaluator):
    """Base of judge checks: the session's judge runner, prompts by template, parse failures as a metric."""

    needs_judge = True
    reproducible = False
    runner: Any = None

    def bind_judge(self, runner: Any) -> None:
        self.runner = runner
        self.__dict__.pop("_signature", None)

    def scoring_model(self) -> str | None:
        if self.runner is None or self.runner.judge is None:
            return "judge:unconfigured"
        signature = self.runner.judge.signature()
        return "judge:" + json.dumps(dict(signature), sort_keys=True)

    def ask(self, template: str, *, what: str, repeat: int = 0, **fields: str) -> Any:
        from ..judges.runner import JudgeUnavailable

        if self.runner is None:
            raise JudgeUnavailable("llmeval judge unavailable: no judge configured (set --llmeval-judge-model)")
        prompt = template.format(**fields)
        return self.runner.ask(evaluator=self.name, version=self.version, template=template,
                               messages=[{"role": "user", "content": prompt}], schema={"type": "object"}, repeat=repeat, what=what)

    def unscored(self, metrics: Sequence[str], error: Exception) -> Score:
        return Score({**{m: None for m in metrics}, "parse_failure": 1.0}, f"the judge's reply could not be used: {error}", {})


_PRECISION = """Given a question, its expected answer and one retrieved context chunk, say whether the chunk was useful
to arrive at the expected answer. Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Question: {question}
Expected answer: {expected}
Context chunk: {chunk}
"""


def _verdict(value: Any, allowed: Sequence[str]) -> str:
    verdict = str(value.get("verdict", "") if isinstance(value, Mapping) else "").strip().lower()
    if verdict not in allowed:
        raise JudgeParseError(f"verdict must be one of {', '.join(allowed)}; got {verdict!r}")
    return verdict


class ContextPrecision(JudgeEvaluator):
    """Are the useful chunks ranked first? (weighted precision over yes-verdicts)"""

    name = "context_precision"
    description = "Chunks useful for the expected answer are ranked first (LLM judge)"
    requires = ("question", "expected", "context")
    metrics = (
        MetricSpec("context_precision", "mean precision@k over the useful chunks", threshold=0.75, primary=True),
        MetricSpec("parse_failure", "1 when a judge reply could not be used", higher_is_better=False, threshold=None),
    )

    def score(self, case: Case) -> Score:
        verdicts = []
        try:
            for rank, chunk in enumerate(case.context):
                reply = self.ask(_PRECISION, what=f"{self.name} chunk {rank}", question=case.question or "",
                                 expected=case.expected[0], chunk=chunk)
                verdicts.append(_verdict(reply, ("yes", "no")) == "yes")
        except JudgeParseError as exc:
            return self.unscored(["context_precision"], exc)
        value = weighted_precision(verdicts)
        shown = ",".join("yes" if v else "no" for v in verdicts)
        return Score({"context_precision": value, "parse_failure": 0.0}, f"verdicts {shown} -> {value:.3f}", {"verdicts": verdicts})


_CLAIMS = """Break the answer below into short, self-contained factual claims. Reply with JSON only:
{{"claims": ["...", "..."]}}

Answer: {answer}
"""

_CLAIM_VERDICT = """Given the context, is the claim supported by it? Reply with JSON only: {{"verdict": "yes"}} (supported),
{{"verdict": "no"}} (contradicted) or {{"verdict": "idk"}} (the context does not say), plus a short "reason".

Context: {context}
Claim: {claim}
"""


class Faithfulness(JudgeEvaluator):
    """Share of the answer's claims the context supports (LLM judge).

    Parameters:
        unknown_claims: ``unsupported`` (RAGAS: only supported claims count) or
            ``supported`` (DeepEval: only contradicted claims count against).
    """

    name = "faithfulness"
    description = "The answer's claims are supported by the retrieved context (LLM judge)"
    requires = ("actual", "context")
    defaults: Mapping[str, Any] = {"unknown_claims": "unsupported"}
    metrics = (
        MetricSpec("faithfulness", "share of claims supported by the context", threshold=0.75, primary=True),
        MetricSpec("parse_failure", "1 when a judge reply could not be used", higher_is_better=False, threshold=None),
    )

    def configure(self) -> None:
        require_choice(self.name, "unknown_claims", self.params["unknown_claims"], ("unsupported", "supported"))

    def score(self, case: Case) -> Score:
        context = "\n\n".join(case.context)
        try:
            reply = self.ask(_CLAIMS, what=f"{self.name} claims", answer=case.actual or "")
            claims = reply.get("claims") if isinstance(reply, Mapping) else None
            if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
                raise JudgeParseError("'claims' must be a list of strings")
            verdicts = [_verdict(self.ask(_CLAIM_VERDICT, what=f"{self.name} claim {i}", context=context, claim=claim),
                                 ("yes", "no", "idk")) for i, claim in enumerate(claims)]
        except JudgeParseError as exc:
            return self.unscored(["faithfulness"], exc)
        if not claims:
            return Score({"faithfulness": 1.0, "parse_failure": 0.0}, "no claims to check", {"claims": []})
        counted = ("yes", "idk") if self.params["unknown_claims"] == "supported" else ("yes",)
        value = sum(v in counted for v in verdicts) / len(verdicts)
        failing = [c for c, v in zip(claims, verdicts) if v not in counted]
        reason = f"{len(claims) - len(failing)}/{len(claims)} claims supported"
        if failing:
            reason += f"; first unsupported: {failing[0][:100]!r}"
        return Score({"faithfulness": value, "parse_failure": 0.0}, reason,
                     {"claims": [{"claim": c, "verdict": v} for c, v in zip(claims, verdicts)]})
