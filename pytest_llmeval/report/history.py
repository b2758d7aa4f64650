"""Runs over time: each check and model's pass rate and mean over saved runs (``.llmeval/runs/``), and drift.

A row is one check, metric, model and signature over the saved runs, oldest first (a check whose signature changed
starts a new row: unlike scores are never mixed). Each run gives the row a point: its pass rate and mean with their
intervals, its cases' draws clustered (`pytest_llmeval.stats.inference`).

**Drift**: the row's last ``window`` runs are together significantly worse than the ``window`` runs before them. Per
case, the share of its results that failed (and, for a metric that is not just 0 and 1, its mean score) in the recent
window less that in the earlier one; the test is a one-sided sign-flip test of those differences, with its p-value
bounded by Hoeffding's inequality for sums of random signs, ``exp(-S**2 / (2 * sum(d**2)))``, which holds for any
number of cases (no normal approximation, no resampling floor). Saved runs are looked at again after every run, so the
level is spent over looks: the test after the n-th saved run (``run.saved.number``) is at
``alpha * 6 / (pi**2 * n**2)``, which sums to ``alpha`` over every look there will ever be (a union bound), and Holm's
adjustment shares each look's level among its rows. The chance that an unchanged suite is ever flagged is thus at
most ``alpha``; the price is power: a drift is seen once it is large against the cases (about 120 cases for a
10-point rise of the fail rate between two windows of five runs, at the tenth run).

>>> run = lambda n, fails: {"run": {"saved": {"id": f"r{n}", "time": f"2026-12-{n:02d}T00:00:00Z", "number": n}},
...     "results": [{"nodeid": f"t::{c}", "case_id": f"c{c}", "evaluator": "e", "primary": "m", "model": "x",
...     "metrics": {"m": float(c >= fails)}, "passed": c >= fails, "higher_is_better": {"m": True},
...     "signature": {"evaluator": "e"}} for c in range(200)]}
>>> found = history([run(n, 10 + 5 * n) for n in range(1, 11)])
>>> [(row.check, len(row.points), row.drift is not None, row.falling) for row in found.rows]
[('e', 10, True, 9)]
>>> history([run(n, 20) for n in range(1, 11)]).rows[0].drift is None
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

from ..core.result import NO_MODEL, Record, verdict_of
from ..stats.inference import holm, mean_interval, proportion_interval
from .aggregate import signature_keys
from .findings import perturbation_of

__all__ = ["WINDOW", "Point", "Drift", "HistoryRow", "History", "history", "look_level", "drift_bound", "spark"]

#: Runs in each of the two windows a drift compares (fewer when the history is shorter: half of it, two at least).
WINDOW = 5


@dataclass(frozen=True)
class Point:  # one saved run's figures for one row
    run: str  # the saved run's id ("" for the run under way)
    time: str
    commit: str | None
    count: int
    passed: int
    failed: int
    pass_rate: float
    pass_low: float
    pass_high: float
    mean: float | None
    mean_low: float | None = None
    mean_high: float | None = None


@dataclass(frozen=True)
class Drift:  # a row's last runs, together, significantly worse than the runs before them
    measure: str  # "fail rate" or "mean"
    window: int  # runs in each window
    before: float
    after: float
    cases: int  # cases in both windows
    p_value: float  # the Hoeffding bound of the one-sided sign-flip test, Holm-adjusted over the look's rows
    level: float  # the look's level, alpha * 6 / (pi^2 n^2)
    look: int  # n: the number of the newest saved run

    def describe(self) -> str:
        return (
            f"{self.measure} {self.before:.3f} -> {self.after:.3f} over the last {self.window} runs against the "
            f"{self.window} before, {self.cases} cases (p <= {self.p_value:.2g}, level {self.level:.2g} at run "
            f"{self.look})"
        )


@dataclass(frozen=True)
class HistoryRow:
    check: str  # the check's name, suffixed with its signature's digest when the history holds several
    metric: str
    model: str | None  # None: tests without a model
    higher_is_better: bool
    signature: str
    points: tuple[Point, ...]  # oldest first
    drift: Drift | None = None
    falling: int = 0  # runs in a row, ending with the newest, whose pass rate fell below the run before's


@dataclass(frozen=True)
class History:
    runs: tuple[Mapping[str, Any], ...]  # each run's id, time, commit, branch and number, oldest first
    rows: tuple[HistoryRow, ...]
    window: int
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": [dict(run) for run in self.runs],
            "window": self.window,
            "alpha": self.alpha,
            "rows": [asdict(row) for row in self.rows],
        }


def look_level(number: int, alpha: float = 0.05) -> float:
    """The level of the drift test after the ``number``-th saved run: these levels sum to ``alpha`` over all runs.

    >>> round(sum(look_level(n) for n in range(1, 100_000)), 4)
    0.05
    """
    return alpha * 6.0 / (math.pi**2 * max(1, number) ** 2)


def drift_bound(differences: Sequence[float]) -> float:
    """A p-value for "the mean of ``differences`` is above 0" under random signs: Hoeffding's bound on the sign-flip
    test, valid for any number of differences.

    >>> drift_bound([0.2] * 50) < 1e-10, drift_bound([0.2, -0.2] * 25), drift_bound([])
    (True, 1.0, 1.0)
    """
    total = math.fsum(differences)
    squares = math.fsum(d * d for d in differences)
    if total <= 0 or squares <= 0:
        return 1.0
    return min(1.0, math.exp(-(total * total) / (2.0 * squares)))


def _number(value: object) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(cast("float", value)) if ok else None


#: Per row, per run: each case's results as (failed, passed, score).
_Draws = dict[str, list[tuple[bool, bool, float | None]]]


def _rows_of(
    report: Mapping[str, Any], directions: dict[tuple[str, str], bool]
) -> dict[tuple[str, str, str | None, str], _Draws]:
    """The report's results (original inputs) by row and case; each check's direction noted in ``directions``."""
    rows: dict[tuple[str, str, str | None, str], _Draws] = defaultdict(lambda: defaultdict(list))
    records = [
        cast("Record", r)
        for r in report.get("results") or []
        if isinstance(r, Mapping) and perturbation_of(cast("Record", r)) is None
    ]
    for record, signature in zip(records, signature_keys(records)):
        primary = str(record.get("primary", ""))
        model = record.get("model")
        model = None if model in (None, NO_MODEL) else str(model)
        key = (str(record.get("evaluator", "")), primary, model, signature)
        directions[key[:2]] = bool((record.get("higher_is_better") or {}).get(primary, True))
        case = str(record.get("case_id") or record.get("nodeid", ""))
        verdict = verdict_of(record)
        score = _number((record.get("metrics") or {}).get(primary))
        rows[key][case].append((verdict == "fail", verdict == "pass", score))
    return rows


def _point(saved: Mapping[str, Any], draws: _Draws, alpha: float) -> Point:
    cases = list(draws.values())
    passes = [[float(p) for _, p, _ in case] for case in cases]
    scores = [[s for _, _, s in case if s is not None] for case in cases]
    scores = [case for case in scores if case]
    count = sum(len(case) for case in cases)
    passed = sum(p for _, p, _ in (r for case in cases for r in case))
    low, high = proportion_interval(passes, alpha)
    flat = [s for case in scores for s in case]
    interval = mean_interval(scores, alpha) if flat else None
    return Point(
        str(saved.get("id", "")),
        str(saved.get("time", "")),
        saved.get("commit"),
        count,
        int(passed),
        sum(f for f, _, _ in (r for case in cases for r in case)),
        passed / count if count else 0.0,
        low,
        high,
        math.fsum(flat) / len(flat) if flat else None,
        *(interval if interval is not None else (None, None)),
    )


def _window_means(runs: Sequence[_Draws], pick: int) -> dict[str, float]:
    """Per case, the mean of one field (0 failed, 2 score) over its results in ``runs``."""
    values: dict[str, list[float]] = defaultdict(list)
    for draws in runs:
        for case, results in draws.items():
            for result in results:
                value = result[pick]
                if value is not None:
                    values[case].append(float(value))
    return {case: math.fsum(v) / len(v) for case, v in values.items() if v}


def _falling(points: Sequence[Point]) -> int:
    run = 0
    for before, after in zip(points[-2::-1], points[::-1]):
        if after.pass_rate < before.pass_rate:
            run += 1
        else:
            break
    return run


def history(reports: Sequence[Mapping[str, Any]], *, window: int = WINDOW, alpha: float = 0.05) -> History:
    """The history of ``reports`` (saved runs' JSON reports, oldest first; the last may be the run under way)."""
    runs = []
    per_row: dict[tuple[str, str, str | None, str], list[tuple[int, _Draws]]] = defaultdict(list)
    directions: dict[tuple[str, str], bool] = {}  # (check, metric) -> higher is better, as the newest run says
    for index, report in enumerate(reports):
        saved = (report.get("run") or {}).get("saved") or {}
        runs.append({key: saved.get(key) for key in ("id", "time", "commit", "branch", "number")})
        for key, draws in _rows_of(report, directions).items():
            per_row[key].append((index, draws))
    look = max([int(run["number"] or 0) for run in runs] + [len(runs)])
    signatures: dict[str, set[str]] = defaultdict(set)
    for evaluator, _, _, signature in per_row:
        signatures[evaluator].add(signature)
    built: list[tuple[HistoryRow, list[_Draws]]] = []
    for (evaluator, metric, model, signature), found in per_row.items():
        check = evaluator
        if len(signatures[evaluator]) > 1:
            check += "#" + hashlib.sha256(signature.encode()).hexdigest()[:6]
        points = tuple(_point(runs[i], draws, alpha) for i, draws in found)
        higher = directions.get((evaluator, metric), True)
        row = HistoryRow(check, metric, model, higher, signature, points, None, _falling(points))
        built.append((row, [draws for _, draws in found]))
    tests: list[tuple[int, Drift]] = []
    for index, (row, windows) in enumerate(built):
        for drift in _drifts(row, windows, window, look_level(look, alpha), look):
            tests.append((index, drift))
    adjusted = holm([drift.p_value for _, drift in tests])
    flagged: dict[int, Drift] = {}
    for (index, drift), p in zip(tests, adjusted):
        if p <= drift.level and index not in flagged:
            flagged[index] = dataclasses.replace(drift, p_value=p)
    rows = [dataclasses.replace(row, drift=flagged.get(index)) for index, (row, _) in enumerate(built)]
    rows.sort(key=lambda r: (r.drift is None, r.check, r.metric, r.model or ""))
    return History(tuple(runs), tuple(rows), window, alpha)


def _drifts(row: HistoryRow, draws: Sequence[_Draws], window: int, level: float, look: int) -> list[Drift]:
    """The row's drift tests: its fail rate, and its mean when the scores are not just 0 and 1 (unadjusted)."""
    size = min(window, len(draws) // 2)
    if size < 2:
        return []
    earlier, recent = draws[-2 * size : -size], draws[-size:]
    found = []
    measures = [("fail rate", 0, 1.0)]
    scores = {s for d in draws for results in d.values() for _, _, s in results if s is not None}
    if not scores <= {0.0, 1.0}:
        measures.append(("mean", 2, -1.0 if row.higher_is_better else 1.0))
    for measure, pick, worse in measures:
        before, after = _window_means(earlier, pick), _window_means(recent, pick)
        cases = sorted(set(before) & set(after))
        if not cases:
            continue
        differences = [worse * (after[c] - before[c]) for c in cases]
        found.append(
            Drift(
                measure,
                size,
                math.fsum(before[c] for c in cases) / len(cases),
                math.fsum(after[c] for c in cases) / len(cases),
                len(cases),
                drift_bound(differences),
                level,
                look,
            )
        )
    return found


#: Eight heights of a bar, for `spark`.
_BARS = "▁▂▃▄▅▆▇█"


def spark(values: Sequence[float]) -> str:
    """The values as a line of bars from their lowest to their highest, over a span of 0.1 at least (so that noise of a
    point or two draws flat): ``spark([0.9, 0.85, 0.8])`` is ``'█▄▁'``.

    >>> spark([0.9, 0.85, 0.8]), spark([0.80, 0.81, 0.80]), spark([])
    ('█▄▁', '▁▂▁', '')
    """
    if not values:
        return ""
    low = min(values)
    span = max(max(values) - low, 0.1)
    return "".join(_BARS[min(7, max(0, int(round((v - low) / span * 7))))] for v in values)
