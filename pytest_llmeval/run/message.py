"""The message of a failed check (and of an unverified one the run fails): the verdict, who decided it, each metric
against its threshold, the evidence, the model and case, the answer and the signature; and the one line a missing
extra is said in. The check runner (`pytest_llmeval.run.check`) raises it in `LLMEvalAssertionError`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.result import Result
from ..core.verdict import Measure, Verdict, concerns

__all__ = ["format_failure", "missing_extra"]


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0f}" if value == int(value) and abs(value) > 1 else f"{value:.3f}"


def _missed(result: Result, metric: str) -> str:
    """How a metric missed its threshold: ``support 0.472 < threshold 0.700``; a count as a count (``evidence 2 >
    threshold 0``), in `Measure`'s numbers."""
    return Measure(
        metric, result.metrics[metric], result.thresholds[metric], result.higher_is_better.get(metric, True)
    ).against_threshold()


def missing_extra(exc: ImportError) -> str | None:
    """The one line a missing extra is said in (``llmeval: ... pip install '...[extra]'``), not a traceback; ``None``
    for an ImportError that names no extra to install."""
    return f"llmeval: {exc}" if "pip install" in str(exc) else None


def _decided(verdict: Verdict) -> str:
    """``rules (evidence 1 > 0)``: who decided a verdict, and on which metrics."""
    on = ", ".join(str(m) for m in verdict.metrics)
    return f"{verdict.decided_by} ({on})" if on else verdict.decided_by


def format_failure(result: Result, length: int | None = None) -> str:
    """The message of a failed check (or of an unverified one the run fails: it opens with the concern it names, if
    any, else with no evidence against the answer)."""
    lines = []
    failed = result.failed_metrics()
    escalated = result.details.get("escalated") if result.details else None
    tier = result.decided_by if result.decided_by in ("verifier", "detector") else None
    if result.verdict == "fail" and tier and isinstance(result.details.get(tier), Mapping):
        lines.append(
            f"llmeval {result.evaluator} failed: the {tier} ({result.details[tier]['model']}) found the answer "
            "unsupported, where the offline evidence could not decide"
        )
    elif isinstance(escalated, Mapping) and escalated.get("verdict") == "fail":
        lines.append(
            f"llmeval {result.evaluator} failed: the judge ({escalated.get('check')}) found the answer wrong, where "
            "the offline evidence could not decide"
        )
    elif result.verdict == "unverified" and result.details and result.details.get("split"):
        lines.append(
            f"llmeval {result.evaluator} unverified: the judge disagreed with itself across its repeats, so it "
            "decided nothing; --llmeval-unverified or unverified= chooses what that does to the test"
        )
    elif result.verdict == "unverified":
        missed = "; ".join(_missed(result, metric) for metric in failed)
        if concerns(
            result.reason, result.details
        ):  # evidence of a kind that only warns: the answer is not clean either
            opening = "a concern the run does not fail on, and nothing confirms the answer offline"
        else:
            opening = "no evidence against the answer, but it could not be confirmed offline"
        lines.append(f"llmeval {result.evaluator} unverified: {opening}" + (f" ({missed})" if missed else ""))
        lines.append(
            "  decide it: the claim verifier (--llmeval-verifier), a detector (--llmeval-detector=FAMILY:MODEL) or a "
            "judge (--llmeval-judge-model); "
            "--llmeval-unverified or unverified= chooses what an unverified answer does to the test"
        )
    elif failed:
        lines.append(f"llmeval {result.evaluator} failed: " + "; ".join(_missed(result, metric) for metric in failed))
    else:
        lines.append(f"llmeval {result.evaluator} failed: {result.primary} could not be scored")
    if result.reason:
        lines.append(f"  why: {result.reason}")
    decision = result.decision
    if decision is not None:
        lines.append(f"  decided by: {_decided(decision)}")
        if decision.overruled is not None:
            lines.append(f"  overruled: {decision.overruled.outcome} by {_decided(decision.overruled)}")
    scores = ", ".join(f"{k}={_fmt(v)}" for k, v in result.metrics.items() if v is not None)
    lines.append(f"  scores: {scores}")
    who = []
    if result.model:
        who.append(f"model: {result.model}")
    if result.case_id:
        who.append(f"case: {result.case_id}")
    if who:
        lines.append("  " + "  ".join(who))
    if result.excerpt is not None:
        more = f" ... ({length} chars)" if length is not None and length > len(result.excerpt) else ""
        lines.append(f"  answer: {result.excerpt!r}{more}")
    lines.append(f"  signature: {result.signature.key}")
    from ..text.basics import replace_surrogates

    return replace_surrogates("\n".join(lines))  # the terminal cannot print a lone surrogate
