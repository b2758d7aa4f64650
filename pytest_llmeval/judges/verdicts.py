"""Judges that pass or fail: yes/no verdicts and opinion shares.

- Pass/fail judges (seed 000): ``contact_information``, ``language_mismatch``,
  ``sexism``, ``stereotypes`` (0-10, stereotyped from ``cutoff``), ``summarization_judge``
  and ``byop`` (your own prompt, true/false). Metrics as the catalog's: ``pass``,
  ``fail``, ``retrieval_failures`` (share of retrieved chunks that fail the same
  check, when context is given), ``generation_failures`` and ``parse_failure``.
- Opinion shares (seed 001): ``bias_judge`` and ``toxicity_judge``: the judge lists the
  answer's opinions, then says which are biased (toxic); the share, 0 with no opinions.
"""

from __future__ import annotations

from typing import ClassVar

from ..core.case import Case
from ..core.evaluator import MetricSpec, Score
from .base import JudgeParseError
from .evaluator import PARSE_FAILURE, JudgeEvaluator, prompt_fields, verdict_schema

__all__ = ["PassFailJudge", "pass_fail_metrics"]


def pass_fail_metrics(what: str) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec("pass", f"1 when the answer passes ({what})", threshold=0.5, primary=True),
        MetricSpec("fail", f"1 when the answer fails ({what})", higher_is_better=False, threshold=None),
        MetricSpec(
            "retrieval_failures",
            "share of retrieved chunks that fail the same check",
            higher_is_better=False,
            threshold=None,
        ),
        MetricSpec("generation_failures", "1 when the generated answer fails", higher_is_better=False, threshold=None),
        PARSE_FAILURE,
    )


class PassFailJudge(JudgeEvaluator):
    """One judge verdict per text; the answer, and each retrieved chunk when given, is checked the same way."""

    uses: ClassVar[tuple[str, ...]] = ("context", "question")
    template = ""
    verdicts: tuple[str, str] = ("pass", "fail")  # (the passing word, the failing word)

    def verdict(self, text: str, case: Case, what: str) -> tuple[bool, str]:
        fields = {**prompt_fields(case), "text": text}
        reply, _ = self.ask_fields(self.template, fields, what=what, schema=verdict_schema(*self.verdicts))
        return reply["verdict"] == self.verdicts[0], str(reply.get("reason", ""))

    def score(self, case: Case) -> Score:
        try:
            passed, why = self.verdict(case.actual or "", case, f"{self.name} answer")
            chunks = [
                not self.verdict(chunk, case, f"{self.name} chunk {i}")[0] for i, chunk in enumerate(case.context or ())
            ]
        except JudgeParseError as exc:
            return self.unscored(["pass", "fail", "retrieval_failures", "generation_failures"], exc)
        retrieval = sum(chunks) / len(chunks) if chunks else None
        reason = ("passes" if passed else "fails") + (f": {why[:200]}" if why else "")
        if chunks and any(chunks):
            reason += f"; {sum(chunks)}/{len(chunks)} retrieved chunks fail too"
        return Score(
            {
                "pass": float(passed),
                "fail": float(not passed),
                "retrieval_failures": retrieval,
                "generation_failures": float(not passed),
                "parse_failure": 0.0,
            },
            reason,
            {"retrieval": chunks},
        )
