"""The ``summarization_qag`` check: min(alignment, coverage) by question-answer generation; the source is the
context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, list_schema, verdict_schema
from ..judge_rag.faithfulness import CLAIMS_PROMPT

__all__ = ["assert_summary_qag", "SummarizationQAG"]


def assert_summary_qag(summary: str, source: Any, *, n: int = 5, **kwargs: Any) -> Result:
    """min(alignment, coverage) of the summary by closed questions about the source (LLM judge; threshold 0.5)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(SummarizationQAG, actual=summary, context=source, params={"n": n}, **kwargs)


ALIGN_PROMPT = """Does the claim agree with the source text? Reply with JSON only: {{"verdict": "yes"}} (the source \
supports it),
{{"verdict": "no"}} (the source contradicts it) or {{"verdict": "idk"}} (the source does not say), plus a short \
"reason".

Source: {source}
Claim: {claim}
"""


ASSESSMENT_PROMPT = """Write {n} closed questions that the source text answers with "yes", about its most important \
information.
Reply with JSON only: {{"questions": ["...", "..."]}}.

Source: {source}
"""


ANSWER_PROMPT = """Answer the question from the text alone: "yes", "no", or "idk" when the text does not say.
Reply with JSON only: {{"verdict": "yes"}}, {{"verdict": "no"}} or {{"verdict": "idk"}}.

Text: {text}
Question: {question}
"""


class SummarizationQAG(JudgeEvaluator):
    """min(alignment, coverage) by question-answer generation; the source is the context."""

    name = "summarization_qag"
    version = "2"  # 2: the alignment question asks whether the claim agrees with the source, as its answer key reads
    helper = "assert_summary_qag"
    extra = "judge"
    description = "The summary is aligned with the source and covers it, by closed questions (LLM judge, QAG)"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"n": 5}
    metrics = (
        MetricSpec("summarization", "min(alignment, coverage)", threshold=0.5, primary=True),
        MetricSpec("alignment", "share of summary claims the source does not contradict", threshold=None),
        MetricSpec("coverage", "share of the source's yes-questions the summary also answers yes", threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        require_number(self.name, "n", self.params["n"], low=1, high=30, integer=True)

    def score(self, case: Case) -> Score:
        source = "\n\n".join(case.context)
        summary = case.actual or ""
        answers = ("yes", "no", "idk")
        try:
            claims = self.ask(CLAIMS_PROMPT, what=f"{self.name} claims", schema=list_schema("claims"), answer=summary)[
                "claims"
            ]
            aligned = [
                self.ask(
                    ALIGN_PROMPT, what=f"{self.name} claim {i}", schema=verdict_schema(*answers), source=source, claim=c
                )["verdict"]
                != "no"
                for i, c in enumerate(claims)
            ]
            questions = self.ask(
                ASSESSMENT_PROMPT,
                what=f"{self.name} questions",
                schema=list_schema("questions"),
                n=str(self.params["n"]),
                source=source,
            )["questions"][: self.params["n"]]
            from_source = [
                self.ask(
                    ANSWER_PROMPT,
                    what=f"{self.name} source answer {i}",
                    schema=verdict_schema(*answers),
                    text=source,
                    question=q,
                )["verdict"]
                for i, q in enumerate(questions)
            ]
            from_summary = [
                self.ask(
                    ANSWER_PROMPT,
                    what=f"{self.name} summary answer {i}",
                    schema=verdict_schema(*answers),
                    text=summary,
                    question=q,
                )["verdict"]
                for i, q in enumerate(questions)
            ]
        except JudgeParseError as exc:
            return self.unscored(["summarization", "alignment", "coverage"], exc)
        asked = [b for a, b in zip(from_source, from_summary) if a == "yes"]
        if not aligned and not asked:
            return self.nothing_to_judge(
                ["summarization", "alignment", "coverage"],
                "the judge found no claims in the summary and no question the source answers",
            )
        # A part with nothing to judge (no claims; no question the source answers) is left out, not counted as 1.
        alignment = sum(aligned) / len(aligned) if aligned else None
        coverage = sum(b == "yes" for b in asked) / len(asked) if asked else None
        missed = [q for q, a, b in zip(questions, from_source, from_summary) if a == "yes" and b != "yes"]
        reason = (
            f"alignment {'n/a' if alignment is None else f'{alignment:.3f}'} ({sum(aligned)}/{len(aligned)} claims), "
            f"coverage {'n/a' if coverage is None else f'{coverage:.3f}'} ({len(asked) - len(missed)}/{len(asked)} "
            "questions)"
        )
        if missed:
            reason += f"; not covered: {missed[0][:100]!r}"
        overall = min(v for v in (alignment, coverage) if v is not None)
        return Score(
            {"summarization": overall, "alignment": alignment, "coverage": coverage, "parse_failure": 0.0},
            reason,
            {
                "claims": [{"claim": c, "aligned": a} for c, a in zip(claims, aligned)],
                "questions": [
                    {"question": q, "source": a, "summary": b} for q, a, b in zip(questions, from_source, from_summary)
                ],
            },
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {
    "claims": CLAIMS_PROMPT,
    "align": ALIGN_PROMPT,
    "assessment": ASSESSMENT_PROMPT,
    "answer": ANSWER_PROMPT,
}
