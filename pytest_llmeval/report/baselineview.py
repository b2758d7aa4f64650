"""The comparison with a baseline as the Markdown and HTML reports show it: the results that moved to or from a
failure, each leaderboard row against the baseline, and the run's verdict (from the JSON report's ``baseline``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .aggregate import shown_model
from .cells import Capped, capped, interval, number

__all__ = ["ChangeRow", "CompareRow", "Baseline", "baseline_section", "new_failures"]


@dataclass(frozen=True)
class ChangeRow:  # one result that moved to or from a failure: evidence, not a verdict
    kind: str  # "worse" or "better"
    regression: bool  # moved to a failure
    scope: str  # "result"
    measure: str  # "pass/fail"
    evaluator: str
    metric: str
    model: str
    before: str
    after: str
    test: str


@dataclass(frozen=True)
class CompareRow:  # one leaderboard row (and measure) against the baseline, formatted
    check: str
    metric: str  # "fail rate" or the primary metric (its mean)
    model: str
    before: str
    after: str
    difference: str  # "+0.150"
    interval: str  # "+0.021..+0.270"
    p_value: str  # Holm-adjusted
    cases: int
    verdict: str  # "regressed", "improved", "unchanged", "inconclusive"
    note: str  # the test used, and for an inconclusive row what the suite could detect and what it needs


@dataclass(frozen=True)
class Baseline:
    path: str
    regressions: int
    improvements: int
    compared: int
    not_comparable: int
    new: int
    missing: int
    changes: Capped[ChangeRow]
    verdict: str = ""  # "regressed", "improved", "inconclusive", "unchanged", "not compared"
    verdict_line: str = ""  # the run's verdict in one line
    rows: Capped[CompareRow] = Capped((), 0)


def baseline_section(baseline: Mapping[str, Any] | None, limit: int | None = None) -> Baseline | None:
    if not baseline:
        return None
    changes = capped(
        baseline.get("changes") or [],
        limit,
        lambda c: ChangeRow(
            c["kind"],
            c["kind"] in ("worse", "regression"),
            c.get("scope", "result"),
            "pass/fail" if c.get("scope", "result") == "result" else "mean",
            c["evaluator"],
            c["metric"],
            shown_model(c["model"]),
            number(c["before"]),
            number(c["after"]),
            c.get("nodeid") or "",
        ),
    )

    def row(r: Mapping[str, Any]) -> CompareRow:
        note = r.get("test", "")
        if r.get("verdict") == "inconclusive":
            note = f"{note}; {_sizing(r)}"
        # a rate row is labelled by its rate (fail rate, unverified rate), a mean row by its metric
        return CompareRow(
            r["check"],
            r["metric"] if r["measure"] == "mean" else r["measure"],
            shown_model(r.get("model")),
            number(r["before"]),
            number(r["after"]),
            f"{r['difference']:+.3f}",
            interval(r.get("ci_low"), r.get("ci_high"), signed=True),
            f"{r['p_adjusted']:.3g}",
            int(r["cases"]),
            r["verdict"],
            note,
        )

    return Baseline(
        baseline["baseline"],
        baseline["regressions"],
        baseline["improvements"],
        baseline["compared"],
        len(baseline["not_comparable"]),
        baseline["new"],
        baseline["missing"],
        changes,
        str(baseline.get("verdict", "")),
        str(baseline.get("verdict_line", "")),
        capped(baseline.get("rows") or [], limit, row),
    )


def _sizing(row: Mapping[str, Any]) -> str:
    """What an inconclusive row's suite could detect and needs (the words of the terminal's line)."""
    from .baseline import sizing_text

    return sizing_text(
        row.get("detectable"), row.get("cases_for"), row.get("repeats_for"), float(row.get("target") or 0.05)
    )


def new_failures(baseline: Any) -> frozenset[str]:
    """The tests whose result moved to a failure against the baseline (the comparison's changes)."""
    if not isinstance(baseline, Mapping):
        return frozenset()
    return frozenset(
        str(c.get("nodeid"))
        for c in baseline.get("changes") or []
        if isinstance(c, Mapping) and c.get("kind") == "worse"
    )
