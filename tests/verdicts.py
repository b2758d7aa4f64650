"""What every result's verdict must be, given the metrics that missed their thresholds (shared by the tests)."""

from __future__ import annotations

from pytest_llmeval import Result


def check_verdict(evaluator, result: Result, unverified: str = "pass") -> None:
    """A named miss (a metric that is not weak) fails; a weak one alone leaves the answer unverified; no miss passes,
    unless the check found nothing it could judge (unverified). ``passed`` follows the unverified action."""
    failed = result.failed_metrics()
    strong = [m for m in failed if m not in evaluator.weak_metrics()]
    if strong:
        assert result.verdict == "fail", (strong, result.verdict)
    elif failed:
        assert result.verdict == "unverified", (failed, result.verdict)
    elif result.score is None and result.primary in result.thresholds:
        assert result.verdict in ("fail", "unverified"), result.verdict
    else:
        assert result.verdict in ("pass", "unverified"), result.verdict
    assert result.passed == (result.verdict == "pass" or (result.verdict == "unverified" and unverified != "fail"))
