"""Escalation: a check's unverified answers decided by the claim verifier and a detector (`detect()`), then by a judge
check.

An offline check that cannot confirm an answer, and finds no evidence against it, says *unverified*. Its class
names the judge check that may decide such answers (``escalates_to``: groundedness to faithfulness, answer
accuracy to answer correctness); when the run has a judge, the session wires the two together and the runner
calls `escalate()` on the check's results. Only the unverified ones cost a judge call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.case import Case
from ..core.errors import CheckUnavailable, ScoringError, VerdictMissing
from ..core.evaluator import Evaluator
from ..core.result import Result
from ..core.verdict import Measure

if TYPE_CHECKING:
    from ..models.detectors import Detector
    from ..models.verifier import Verifier

__all__ = ["escalate", "escalated_signature", "detect"]


def escalated_signature(check: Evaluator, judge: Evaluator, results: list[Result]) -> list[Result]:
    """``results`` with the judge check in their signature's parameters: verdicts a judge may decide are not
    comparable with offline ones (only checks whose metrics can leave an answer unverified)."""
    if not check.weak_metrics():
        return results
    params = {**results[0].signature.params, "escalation": f"{judge.name} {judge.scoring_model()}"} if results else {}
    return [replace(r, signature=replace(r.signature, params=params)) for r in results]


def escalate(
    check: Evaluator, judge: Evaluator, cases: Sequence[Case], results: list[Result], unverified: str
) -> list[Result]:
    """The unverified results decided by the judge check ``judge`` (the others cost no judge call).

    The judge's verdict becomes the check's, with the judge's reason first and the offline one after it; the
    judge's own details (and its usage) are kept under ``escalated``, and ``decided_by`` says ``judge``. A judge that
    cannot answer (offline, unreachable, failing) leaves the result unverified, and says why.
    """
    results = escalated_signature(check, judge, results)
    pending = [i for i, r in enumerate(results) if r.verdict == "unverified"]
    if not pending:
        return results

    def undecided(offline: Result, why: str, details: Mapping[str, Any]) -> Result:
        note = f"the judge ({judge.name}) could not decide: {why[:300]}"
        return replace(
            offline,
            reason=f"{offline.reason}; {note}"[:2000],
            details={**details, "escalated": {"check": judge.name, "error": note}},
        )

    try:
        decided = judge.evaluate([cases[i] for i in pending], unverified=unverified)
    except (CheckUnavailable, VerdictMissing, ScoringError) as exc:
        return [undecided(r, str(exc), r.details) if i in pending else r for i, r in enumerate(results)]
    out = list(results)
    for index, verdict in zip(pending, decided):
        offline = out[index]
        details = {**offline.details}
        usage = verdict.details.get("judge") if verdict.details else None
        if usage is not None:
            details["judge"] = usage  # counted as this check's judge calls
        if verdict.score is None and verdict.verdict == "fail":
            # The judge's reply could not be used (or scored nothing): that is no verdict on the answer.
            out[index] = undecided(offline, verdict.reason, details)
            continue
        details["escalated"] = {
            "check": judge.name,
            "verdict": verdict.verdict,
            "score": verdict.score,
            "reason": verdict.reason[:500],
        }
        reason = f"the judge ({judge.name}) decided {verdict.verdict}: {verdict.reason}; offline: {offline.reason}"
        judged = verdict.decision.metrics if verdict.decision is not None else ()
        out[index] = offline.overruled_by(
            verdict.verdict,
            "judge",
            evidence=(f"{judge.name}: {verdict.reason[:500]}",),
            metrics=judged,
            unverified=unverified,
            reason=reason[:2000],
            details=details,
        )
    return out


def detect(
    check: Evaluator, detector: Detector | Verifier, cases: Sequence[Case], results: list[Result], unverified: str
) -> list[Result]:
    """The unverified results decided by a model tier in one batch: the run's claim verifier
    (`pytest_llmeval.models.verifier`) or its detector (`pytest_llmeval.models.detectors`); ``detector.tier`` says
    which.

    Every result of the check gets the model in its signature (under the tier's name). The model's verdict becomes the
    check's, its reason first and the offline one after it; its reading (support, the spans of the answer it finds
    unsupported, each claim's support) is kept under the tier's name with the tier it overruled (``after``), and
    ``decided_by`` names the tier. Where it cannot decide, the answer stays unverified, for the next tier.
    """
    tier, label = detector.tier, detector.label
    results = [replace(r, signature=replace(r.signature, params={**r.signature.params, tier: label})) for r in results]
    pending = [i for i, r in enumerate(results) if r.verdict == "unverified" and cases[i].actual and cases[i].context]
    if not pending:
        return results
    found = detector.detect([(list(cases[i].context), cases[i].question, cases[i].actual or "") for i in pending])
    out = list(results)
    for index, detection in zip(pending, found):
        offline = out[index]
        # the tier that left it unverified
        after = "verifier" if tier != "verifier" and "verifier" in offline.details else "rules"
        details = {**offline.details, tier: {"model": label, "after": after, **detection.to_dict()}}
        if detection.verdict == "unverified":
            reason = f"{offline.reason}; the {tier} ({label}) could not decide: {detection.reason}"
            out[index] = replace(offline, reason=reason[:2000], details=details)
            continue
        reason = f"the {tier} ({label}) decided {detection.verdict}: {detection.reason}; offline: {offline.reason}"
        measure = Measure("support", detection.support, detection.threshold)
        out[index] = offline.overruled_by(
            detection.verdict,
            tier,
            evidence=(detection.reason[:500],),
            metrics=(measure,),
            unverified=unverified,
            reason=reason[:2000],
            details=details,
        )
    return out
