"""What every result's verdict must be, given the metrics that missed their thresholds (shared by the tests)."""

from __future__ import annotations

from pytest_llmeval import Result
from pytest_llmeval.core.evaluator import Evaluator, Score


def check_verdict(evaluator, result: Result, unverified: str = "pass") -> None:
    """A named miss (a metric that is not weak) fails; a weak one alone leaves the answer unverified; no miss passes,
    unless a judge check found nothing it could judge (unverified). ``passed`` follows the unverified action."""
    failed = result.failed_metrics()
    strong = [m for m in failed if m not in evaluator.weak_metrics()]
    if strong:
        assert result.verdict == "fail", (strong, result.verdict)
    elif failed:
        # a weak miss alone is unverified, unless the check's own rule names it evidence for this answer
        # (answer accuracy: a short answer scored by its words)
        overridden = type(evaluator).decide is not Evaluator.decide
        expected = (
            evaluator.decide(failed, False, Score(result.metrics, result.reason, result.details)).outcome
            if overridden
            else "unverified"
        )
        assert result.verdict == expected, (failed, result.verdict)
        assert expected in ("unverified", "fail")
    elif result.score is None and result.primary in result.thresholds:
        # unscored: a reply that could not be used fails; only a judge check can find nothing to judge
        assert result.verdict == "fail" or (result.verdict == "unverified" and evaluator.needs_judge), result.verdict
    else:
        # a judge check that found nothing to judge, or an answer that says the sources lack the answer (a refusal)
        nothing_to_judge = evaluator.needs_judge or bool(result.details.get("refusal"))
        assert result.verdict == "pass" or (result.verdict == "unverified" and nothing_to_judge), result.verdict
    assert result.decided_by in ("rules", "embedding", "verifier", "detector", "judge", "")  # "": not computed
    assert result.passed == (result.verdict == "pass" or (result.verdict == "unverified" and unverified != "fail"))


def one(evaluator, **fields) -> Result:
    """Score one case with ``evaluator`` (a bound check) and check its verdict against its metrics."""
    from pytest_llmeval import Case

    [result] = evaluator.evaluate([Case(**fields)])
    check_verdict(evaluator, result)
    return result


def kinds(result: Result, fails: bool | None = None) -> set[str]:
    """The evidence kinds a result names (only those that fail, or only the concerns, with ``fails``)."""
    return {e["kind"] for e in result.details["evidence"] if fails is None or e["fails"] == fails}
