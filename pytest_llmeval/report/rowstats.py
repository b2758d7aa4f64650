"""A leaderboard row's statistics: the intervals of its mean and pass rate, and its repeated cases.

A row's results are grouped by case (a case run N times with ``--llmeval-repeat`` is one
cluster of N draws), so the intervals count a case's draws as the correlated results
they are (`.stats`). Repeated cases also give pass@k (at least one of k draws passes)
and pass^k (all k pass), and the cases that both passed and failed: the flaky ones.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.result import Record, verdict_of

__all__ = ["CaseDraws", "RowStats", "row_stats", "case_of"]


def case_of(record: Record) -> str:
    """The case a result belongs to (its case id, else its test): a repeated case's draws share it."""
    return str(record.get("case_id") or record.get("nodeid") or "")


@dataclass(frozen=True)
class CaseDraws:
    """One case's repeated draws (``--llmeval-repeat``) on one check and model."""

    case_id: str
    model: str
    check: str
    metric: str
    draws: int
    passed: int
    failed: int
    mean: float | None

    @property
    def pass_rate(self) -> float:
        return self.passed / self.draws if self.draws else 0.0

    @property
    def flaky(self) -> bool:
        """Passed in some draws and failed in others."""
        return self.passed > 0 and self.failed > 0


@dataclass(frozen=True)
class RowStats:
    """The figures `LeaderboardRow` carries besides its counts and mean."""

    #: The mean's interval (None: no scores, or fewer than two cases of scores other than 0 and 1) and the pass rate's.
    ci_low: float | None
    ci_high: float | None
    pass_ci_low: float
    pass_ci_high: float
    cases: int
    #: Repeated cases only: k (the fewest draws of a case), mean pass@k and pass^k over the cases, flaky cases.
    k: int | None = None
    pass_at_k: float | None = None
    pass_hat_k: float | None = None
    flaky: int = 0


def row_stats(members: Sequence[Record], model: str, check: str, alpha: float) -> tuple[RowStats, list[CaseDraws]]:
    """The statistics of one row's results (one check, one model), and its repeated cases' draws."""
    from ..stats import inference as stats

    primary = members[0]["primary"]
    by_case: dict[str, list[Record]] = defaultdict(list)
    for member in members:
        by_case[case_of(member)].append(member)
    passes = [[float(verdict_of(r) == "pass") for r in results] for results in by_case.values()]
    pass_low, pass_high = stats.proportion_interval(passes, alpha)
    scores = [
        [float(v) for r in results if (v := r["metrics"].get(primary)) is not None] for results in by_case.values()
    ]
    interval = stats.mean_interval(scores, alpha)
    drawn = {
        case: results
        for case, results in by_case.items()
        if len(results) > 1 and any((r.get("tags") or {}).get("draw") is not None for r in results)
    }
    draws = []
    for case, results in drawn.items():
        scored = [float(v) for r in results if (v := r["metrics"].get(primary)) is not None]
        draws.append(
            CaseDraws(
                case,
                model,
                check,
                primary,
                len(results),
                sum(verdict_of(r) == "pass" for r in results),
                sum(verdict_of(r) == "fail" for r in results),
                math.fsum(scored) / len(scored) if scored else None,
            )
        )
    figures = RowStats(
        None if interval is None else interval[0],
        None if interval is None else interval[1],
        pass_low,
        pass_high,
        len(by_case),
    )
    if draws:
        k = min(d.draws for d in draws)
        figures = RowStats(
            figures.ci_low,
            figures.ci_high,
            pass_low,
            pass_high,
            len(by_case),
            k,
            math.fsum(stats.pass_at_k(d.draws, d.passed, k) for d in draws) / len(draws),
            math.fsum(stats.pass_hat_k(d.draws, d.passed, k) for d in draws) / len(draws),
            sum(d.flaky for d in draws),
        )
    return figures, draws
