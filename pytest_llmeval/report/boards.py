"""The leaderboard as the Markdown and HTML reports show it: a table per check, the heatmap of models by checks, and
each row's repeated cases in a line (from the JSON report's leaderboard rows)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .aggregate import shown_model
from .cells import interval, number

__all__ = ["BoardRow", "Board", "Column", "HeatCell", "Heatmap", "boards", "heatmap", "repeats_line"]


@dataclass(frozen=True)
class BoardRow:  # one model's row in a check's leaderboard table
    rank: str
    model: str  # "-" for tests without a model
    mean: str
    spread: str  # "" for fewer than two results
    pass_rate: str
    passed: int
    count: int
    unverified: int = 0
    ci: str = ""  # the mean's interval, "0.61..0.78" ("" when there is none)
    pass_ci: str = ""  # the pass rate's, "52-79%"
    expected: int = 0  # failed results of xfail tests: expected failures
    # the figures unformatted (the JUnit properties give six decimals); model_name None: tests without a model
    model_name: str | None = None
    mean_value: float | None = None
    pass_rate_value: float = 0.0
    ci_low: float | None = None
    ci_high: float | None = None
    pass_ci_low: float | None = None
    pass_ci_high: float | None = None


@dataclass(frozen=True)
class Board:  # a check's leaderboard table, rows best first
    check: str
    metric: str
    direction: str  # "higher is better" or "lower is better"
    rows: tuple[BoardRow, ...]

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher is better"


@dataclass(frozen=True)
class Column:
    check: str
    metric: str
    arrow: str  # "↑" higher is better, "↓" lower is better


@dataclass(frozen=True)
class HeatCell:
    mean: str
    pass_rate: str
    count: int
    signature: str
    goodness: float  # 0 bad .. 1 good: the share of its answers that passed (the colour follows verdicts, not scores)
    unverified: int = 0
    ci: str = ""  # the mean's interval
    pass_ci: str = ""  # the pass rate's
    expected: int = 0  # expected failures (checks of xfail tests)


@dataclass(frozen=True)
class Heatmap:  # the leaderboard as models by checks (named models by name, then tests without a model)
    columns: tuple[Column, ...]
    rows: tuple[tuple[str, tuple[HeatCell | None, ...]], ...]  # (model, a cell per column: None where it has no result)


def boards(rows: list[dict[str, Any]]) -> tuple[Board, ...]:
    by_check: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_check[row["check"]].append(row)
    return tuple(
        Board(
            check,
            group[0]["metric"],
            "higher is better" if group[0]["higher_is_better"] else "lower is better",
            tuple(
                BoardRow(
                    str(row.get("rank", "")),
                    shown_model(row["model"]),
                    number(row["mean"]),
                    "" if row.get("spread") is None or row["count"] < 2 else f"{row['spread']:.3f}",
                    f"{row['pass_rate']:.0%}",
                    row["passed"],
                    row["count"],
                    row.get("unverified", 0),
                    interval(row.get("ci_low"), row.get("ci_high")),
                    interval(row.get("pass_ci_low"), row.get("pass_ci_high"), percent=True),
                    row.get("expected", 0),
                    row["model"],
                    row["mean"],
                    row["pass_rate"],
                    row.get("ci_low"),
                    row.get("ci_high"),
                    row.get("pass_ci_low"),
                    row.get("pass_ci_high"),
                )
                for row in group
            ),
        )
        for check, group in by_check.items()
    )


def heatmap(rows: list[dict[str, Any]]) -> Heatmap:
    checks = list(dict.fromkeys((r["check"], r["metric"], r["higher_is_better"]) for r in rows))
    models = list(dict.fromkeys(r["model"] for r in sorted(rows, key=lambda r: (r["model"] is None, r["model"] or ""))))
    found: dict[tuple[str | None, str], dict[str, Any]] = {(r["model"], r["check"]): r for r in rows}

    def cell(row: dict[str, Any] | None, higher: bool) -> HeatCell | None:
        if row is None:
            return None
        mean = row["mean"]
        return HeatCell(
            number(mean),
            f"{row['pass_rate']:.0%}",
            row["count"],
            str(row["signature"]),
            row["pass_rate"],
            row.get("unverified", 0),
            interval(row.get("ci_low"), row.get("ci_high")),
            interval(row.get("pass_ci_low"), row.get("pass_ci_high"), percent=True),
            row.get("expected", 0),
        )

    return Heatmap(
        tuple(Column(check, metric, "↑" if higher else "↓") for check, metric, higher in checks),
        tuple(
            (shown_model(model), tuple(cell(found.get((model, check)), higher) for check, _, higher in checks))
            for model in models
        ),
    )


def repeats_line(row: Mapping[str, Any]) -> str:
    """One leaderboard row's repeated cases (a JSON leaderboard row): cases, pass@k, pass^k, flaky cases."""
    model = "" if row.get("model") is None else f" on {row['model']}"
    k = row["k"]
    return (
        f"{row['check']}{model}: {row.get('cases', 0)} cases, pass@{k} {number(row.get('pass_at_k'))}, "
        f"pass^{k} {number(row.get('pass_hat_k'))}, {row.get('flaky', 0)} flaky"
    )
