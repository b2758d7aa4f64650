"""The run's gate without a baseline: is there enough measurement to trust the run, and do the rows meet their floors?

- **Indeterminate.** A leaderboard row measured too little when its share of *unverified* results passes
  ``max_unverified``, or its share of *errors* passes ``max_errors``. An error is a check that could not be computed
  (its judge failed for good, a replayed verdict was missing: the result records the error), a judge reply that
  could not be used (``parse_failure``), or an answer the offline check left to a judge that could not decide it
  (the judge was down). A judge outage therefore never looks like a clean run: the run's gate says
  *indeterminate*, why, and which rows, and (by default) the run fails.
- **Floors.** ``CHECK[:MODEL]=VALUE`` on a row's pass rate (``gate.min_pass_rate``) or primary mean
  (``gate.min_mean``): the row **fails** its floor when the upper bound of its interval is below it, **passes**
  when the lower bound is at or above it, and is **inconclusive** between, with about how many cases would decide it.
  Works with and without a baseline.

>>> rec = lambda i, verdict: {"evaluator": "g", "primary": "m", "metrics": {"m": 1.0}, "passed": verdict != "fail",
...     "verdict": verdict, "model": "x", "case_id": f"q{i}", "signature": {"evaluator": "g"}}
>>> result = gate([rec(i, "unverified") for i in range(8)] + [rec(i, "pass") for i in range(8, 10)], max_unverified=0.5)
>>> result.verdict, result.indeterminate[0]
('indeterminate', 'g (model x): 8 of 10 results unverified (80%, budget 50%)')
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..core.result import NO_MODEL, Record, verdict_of
from .baseline import named

__all__ = [
    "RunEnd",
    "EXIT_RULES",
    "failing",
    "merged_failures",
    "regressions",
    "new_failures",
    "floors_below",
    "indeterminate_gate",
    "Floor",
    "FloorResult",
    "RowHealth",
    "Gate",
    "gate",
    "parse_floor",
    "is_error",
    "GATE_VERDICTS",
]


#: The gate's verdicts, worst first.
GATE_VERDICTS = ("indeterminate", "failed", "inconclusive", "passed", "none")


def is_error(record: Mapping[str, Any]) -> bool:
    """Whether a result measured nothing: the check could not be computed, the judge's reply was unusable, or the
    judge an offline check escalated to could not decide."""
    details = record.get("details")
    details = details if isinstance(details, Mapping) else {}
    escalated = details.get("escalated")
    metrics = record.get("metrics")
    parse = metrics.get("parse_failure") if isinstance(metrics, Mapping) else None
    return (
        "error" in details
        or (isinstance(escalated, Mapping) and "error" in escalated)
        or (isinstance(parse, (int, float)) and parse >= 1.0)
    )


@dataclass(frozen=True)
class Floor:
    """A floor on rows of ``check`` (its name or leaderboard label), optionally of one ``model``."""

    check: str
    model: str | None
    measure: str  # "pass rate" or "mean"
    value: float

    def matches(self, evaluator: str, label: str, model: str) -> bool:
        return self.check in (evaluator, label) and (self.model is None or self.model == model)

    def __str__(self) -> str:
        return f"{self.check}{':' + self.model if self.model else ''}={self.value:g}"


def parse_floor(text: str, measure: str, option: str) -> Floor:
    """``CHECK[:MODEL]=VALUE`` as a `Floor`; ``ValueError`` naming ``option`` and the expected form."""
    name, sep, value = str(text).rpartition("=")
    check, _, model = name.partition(":")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if (
        not sep
        or not check.strip()
        or not math.isfinite(number)
        or (measure == "pass rate" and not 0.0 <= number <= 1.0)
    ):
        allowed = "a pass rate from 0 to 1" if measure == "pass rate" else "a number"
        raise ValueError(
            f"{option}: expected CHECK[:MODEL]=VALUE with {allowed}, e.g. groundedness=0.9 or "
            f"groundedness:gpt-4o=0.9; got {text!r}"
        )
    return Floor(check.strip(), model.strip() or None, measure, number)


@dataclass(frozen=True)
class FloorResult:
    check: str
    model: str
    measure: str
    floor: float
    value: float | None
    low: float | None
    high: float | None
    cases: int
    verdict: str  # "passed", "failed" or "inconclusive"
    cases_needed: int | None = None

    def describe(self) -> str:
        shown = "n/a" if self.value is None else f"{self.value:.3f}"
        interval = "" if self.low is None or self.high is None else f" [{self.low:.3f}, {self.high:.3f}]"
        head = (
            f"{self.check} "
            f"({'model ' + self.model if self.model != NO_MODEL else 'no model'}) {self.measure} {shown}{interval}"
        )
        if self.verdict == "failed":
            return f"{head}: below the floor {self.floor:g} (the whole interval is under it; {self.cases} cases)"
        if self.verdict == "passed":
            return f"{head}: meets the floor {self.floor:g} ({self.cases} cases)"
        need = f"; about {self.cases_needed} cases would decide it" if self.cases_needed else ""
        return (
            f"{head}: cannot tell against the floor {self.floor:g} with {self.cases} "
            f"cases (the interval spans it){need}"
        )


@dataclass(frozen=True)
class RowHealth:
    check: str
    model: str
    results: int
    unverified: int
    errors: int


@dataclass(frozen=True)
class Gate:
    """The run's gate: indeterminate reasons, floor results, and each row's health."""

    indeterminate: tuple[str, ...] = ()
    floors: tuple[FloorResult, ...] = ()
    health: tuple[RowHealth, ...] = ()
    max_unverified: float = 1.0
    max_errors: float = 0.0

    @property
    def verdict(self) -> str:
        if self.indeterminate:
            return "indeterminate"
        found = {f.verdict for f in self.floors}
        for verdict in ("failed", "inconclusive", "passed"):
            if verdict in found:
                return verdict
        return "none"

    @property
    def failed_floors(self) -> list[FloorResult]:
        return [f for f in self.floors if f.verdict == "failed"]

    def line(self) -> str:
        """The gate in one line: what the reports say first (empty when there is nothing to say)."""
        if self.indeterminate:
            more = f" (and {len(self.indeterminate) - 1} more row(s))" if len(self.indeterminate) > 1 else ""
            return (
                f"INDETERMINATE: the run measured too little to gate on: {self.indeterminate[0]}{more}; "
                "a judge or model that could not answer is not a pass"
            )
        failed = self.failed_floors
        if failed:
            return f"FAILED: {len(failed)} row(s) below their floor: " + "; ".join(f.describe() for f in failed[:3])
        if self.floors:
            open_ = [f for f in self.floors if f.verdict == "inconclusive"]
            if open_:
                return f"INCONCLUSIVE: {len(open_)} floor(s) cannot be decided yet: " + "; ".join(
                    f.describe() for f in open_[:3]
                )
            return f"PASSED: every row meets its floor ({len(self.floors)} floor(s))"
        return ""

    def to_dict(self) -> dict[str, Any]:
        def shown(row: Any) -> dict[str, Any]:
            return {
                **asdict(row),
                "model": None if row.model == NO_MODEL else row.model,
            }  # as the JSON report names no model

        return {
            "verdict": self.verdict,
            "line": self.line(),
            "indeterminate": list(self.indeterminate),
            "max_unverified": self.max_unverified,
            "max_errors": self.max_errors,
            "floors": [shown(f) for f in self.floors],
            "health": [shown(h) for h in self.health],
        }


def _cases_needed(value: float, floor: float, spread: float, z: float) -> int | None:
    """About how many cases put the interval of a mean ``value`` (per-case standard deviation ``spread``) off
    ``floor``."""
    gap = abs(value - floor)
    if gap < 1e-9 or spread <= 0:
        return None
    return max(2, math.ceil((z * spread / gap) ** 2))


def gate(
    records: Iterable[Record],
    *,
    max_unverified: float = 1.0,
    max_errors: float = 0.0,
    floors: Sequence[Floor] = (),
    rows: Sequence[Any] = (),
    alpha: float = 0.05,
) -> Gate:
    """The gate of ``records`` (original inputs; perturbed results are not measurement of the rows).

    ``rows`` are the summary's leaderboard rows (``Summary.rows``), which carry each row's intervals; floors are
    judged on them. A share above a budget of 1.0 can never happen, so 1.0 switches that budget off.
    """
    from ..stats.inference import z_value

    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for record in records:
        if (record.get("tags") or {}).get("perturbation") is not None:
            continue
        entry = counts[(str(record.get("evaluator", "")), str(record.get("model") or NO_MODEL))]
        entry[0] += 1
        entry[1] += verdict_of(record) == "unverified"
        entry[2] += is_error(record)
    health = tuple(
        RowHealth(check, model, n, unverified, errors)
        for (check, model), (n, unverified, errors) in sorted(counts.items())
    )
    reasons = []
    for row in health:
        who = f"{row.check} ({'model ' + row.model if row.model != NO_MODEL else 'no model'})"
        if row.errors and row.errors / row.results > max_errors:
            reasons.append(
                f"{who}: {row.errors} of {row.results} results could not be measured "
                f"({row.errors / row.results:.0%}, budget {max_errors:.0%})"
            )
        elif row.unverified / row.results > max_unverified:
            reasons.append(
                f"{who}: {row.unverified} of {row.results} results unverified "
                f"({row.unverified / row.results:.0%}, budget {max_unverified:.0%})"
            )
    z = z_value(alpha)
    results = []
    for floor in floors:
        for row in rows:
            if not floor.matches(row.evaluator, row.check, row.model):
                continue
            if floor.measure == "pass rate":
                value, low, high = row.pass_rate, row.pass_ci_low, row.pass_ci_high
                spread = math.sqrt(max(value * (1 - value), 1e-9))
            else:
                value, low, high, spread = row.mean, row.ci_low, row.ci_high, row.spread or 0.0
            if value is None:
                verdict = "inconclusive"
            elif high is not None and high < floor.value:
                verdict = "failed"
            elif low is not None and low >= floor.value:
                verdict = "passed"
            else:
                verdict = "inconclusive"
            need = (
                _cases_needed(value, floor.value, spread, z)
                if verdict == "inconclusive" and value is not None
                else None
            )
            results.append(
                FloorResult(
                    row.check,
                    row.model,
                    floor.measure,
                    floor.value,
                    value,
                    low,
                    high,
                    row.cases,
                    verdict,
                    need if need is None or need > row.cases else None,
                )
            )
    return Gate(tuple(reasons), tuple(results), health, max_unverified, max_errors)


@dataclass(frozen=True)
class RunEnd:
    """What the run's exit rules read: its gate, its comparison with the baseline, the outcomes of the shards it
    merged, and the settings that say what fails."""

    gate: Gate | None = None
    comparison: Any = None  # report.baseline.Comparison, or None without a baseline
    merged_outcomes: Mapping[str, str] | None = None  # the merged shards' test outcomes; None: not a merge
    fail_on_regression: bool = False
    indeterminate: str = "fail"
    strict: bool = False  # gate = "strict": any case that passed in the baseline and fails now fails the run


def merged_failures(end: RunEnd) -> str | None:
    """Merged shards fail as one run of their tests would: a failed, erroring or crashed test fails the merge.

    >>> merged_failures(RunEnd(merged_outcomes={"t.py::a": "passed", "t.py::b": "failed"}))
    'the merged shards hold 1 failed test(s)'
    """
    bad = [o for o in (end.merged_outcomes or {}).values() if o in ("failed", "error", "crashed")]
    return f"the merged shards hold {len(bad)} failed test(s)" if bad else None


def regressions(end: RunEnd) -> str | None:
    """A row that regressed against the baseline beyond noise, or a replayed case under a deterministic check that
    passed in the baseline and fails now, fails the run when ``fail_on_regression`` says so."""
    rows = end.comparison.regressions if end.comparison is not None else []
    cases = end.comparison.fixed_failures if end.comparison is not None else []
    if not (rows or cases) or not end.fail_on_regression:
        return None
    said = []
    if rows:
        said.append(f"{len(rows)} row(s) regressed against the baseline: " + ", ".join(str(r.label) for r in rows[:3]))
    if cases:
        said.append(f"{len(cases)} replayed case(s) that passed in the baseline fail now: " + named(cases))
    return "; ".join(said)


def new_failures(end: RunEnd) -> str | None:
    """Under ``gate = "strict"`` (golden cases), any case that passed in the baseline and fails now fails the run,
    whatever the statistics say."""
    cases = end.comparison.new_failures if end.comparison is not None and end.strict else []
    return f"{len(cases)} case(s) that passed in the baseline fail now: " + named(cases) if cases else None


def floors_below(end: RunEnd) -> str | None:
    """A leaderboard row whose whole interval is below its floor fails the run."""
    failed = end.gate.failed_floors if end.gate is not None else []
    return f"{len(failed)} row(s) below their floor: " + "; ".join(f.describe() for f in failed[:3]) if failed else None


def indeterminate_gate(end: RunEnd) -> str | None:
    """A gate that measured too little (unverified or unmeasured results over budget) fails the run unless
    ``indeterminate`` is ``pass``: a judge outage is never a green run."""
    if end.gate is None or end.gate.verdict != "indeterminate" or end.indeterminate != "fail":
        return None
    return f"the gate is indeterminate: {end.gate.indeterminate[0]}"


#: The rules that fail a run whose tests passed, each a function of `RunEnd` that says why (``None``: it does not).
#: A new rule is one function here, listed below, and its test.
EXIT_RULES: tuple[Callable[[RunEnd], str | None], ...] = (
    merged_failures,
    regressions,
    new_failures,
    floors_below,
    indeterminate_gate,
)


def failing(end: RunEnd) -> list[str]:
    """Why the run fails by its exit rules (empty: it does not)."""
    return [reason for rule in EXIT_RULES if (reason := rule(end)) is not None]
