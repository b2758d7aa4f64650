"""The ``faithfulness`` check: Share of the answer's claims the context supports (LLM judge)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_choice, require_type
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import ask_choice, judge_metrics, list_schema

__all__ = ["assert_faithful", "Faithfulness", "CLAIMS_PROMPT"]


def assert_faithful(
    actual: str, context: Any, *, unknown_claims: str = "unsupported", binary: bool = False, **kwargs: Any
) -> Result:
    """The context supports the answer's claims (LLM judge; threshold 0.75). Skipped when no judge is configured.

    ``binary=True`` decides on ``faithful``: 1 only when every claim is supported (seed 003's shape).
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"unknown_claims": unknown_claims, "binary": binary}
    return check(Faithfulness, actual=actual, context=context, params=params, **kwargs)


CLAIMS_PROMPT = """Break the answer below into short, self-contained factual claims. Reply with JSON only:
{{"claims": ["...", "..."]}}

Answer: {answer}
"""


CLAIM_VERDICT_PROMPT = """Given the context, is the claim supported by it? Reply with JSON only: {{"verdict": "yes"}} \
(supported),
{{"verdict": "no"}} (contradicted) or {{"verdict": "idk"}} (the context does not say), plus a short "reason".

Context: {context}
Claim: {claim}
"""


class Faithfulness(JudgeEvaluator):
    """Share of the answer's claims the context supports (LLM judge).

    Parameters:
        unknown_claims: ``unsupported`` (RAGAS: only supported claims count) or
            ``supported`` (DeepEval: only contradicted claims count against).
        binary: decide on ``faithful`` instead, 1 when every claim counts as supported and 0
            otherwise (seed 003's pass / fail shape, as LlamaIndex reports it); both are always recorded.
    """

    name = "faithfulness"
    helper = "assert_faithful"
    extra = "judge"
    description = "The answer's claims are supported by the retrieved context (LLM judge)"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unknown_claims": "unsupported", "binary": False}
    metrics = (
        *judge_metrics("faithfulness", "share of claims supported by the context"),
        MetricSpec("faithful", "1 when every claim is supported, else 0", threshold=0.5),
    )

    def configure(self) -> None:
        require_choice(self.name, "unknown_claims", self.params["unknown_claims"], ("unsupported", "supported"))
        require_type(self.name, "binary", self.params["binary"], bool, "True or False")

    def active_primary(self) -> MetricSpec:
        return self.metric_specs()["faithful" if self.params["binary"] else "faithfulness"]

    def score(self, case: Case) -> Score:
        context = "\n\n".join(case.context)
        try:
            claims = self.ask(
                CLAIMS_PROMPT, what=f"{self.name} claims", schema=list_schema("claims"), answer=case.actual or ""
            )["claims"]
            verdicts = self.fan_out(
                [
                    lambda i=i, claim=claim: ask_choice(
                        self,
                        CLAIM_VERDICT_PROMPT,
                        ("yes", "no", "idk"),  # type: ignore[misc]
                        f"{self.name} claim {i}",
                        context=context,
                        claim=claim,
                    )
                    for i, claim in enumerate(claims)
                ]
            )
        except JudgeParseError as exc:
            return self.unscored(["faithfulness", "faithful"], exc)
        if not claims:
            return self.nothing_to_judge(
                ["faithfulness", "faithful"], "the judge found no claims in the answer to check", {"claims": []}
            )
        counted = ("yes", "idk") if self.params["unknown_claims"] == "supported" else ("yes",)
        value = sum(v in counted for v in verdicts) / len(verdicts)
        failing = [c for c, v in zip(claims, verdicts) if v not in counted]
        reason = f"{len(claims) - len(failing)}/{len(claims)} claims supported"
        if failing:
            reason += f"; first unsupported: {failing[0][:100]!r}"
        return Score(
            {"faithfulness": value, "faithful": 0.0 if failing else 1.0, "parse_failure": 0.0},
            reason,
            {"claims": [{"claim": c, "verdict": v} for c, v in zip(claims, verdicts)]},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"claims": CLAIMS_PROMPT, "claim_verdict": CLAIM_VERDICT_PROMPT}
