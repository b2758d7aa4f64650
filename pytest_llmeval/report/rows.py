"""The report model: every row the terminal, the Markdown and HTML reports, the pull-request comment and the JUnit
properties show, as frozen dataclasses that `.view.view()` builds once from the JSON report.

A list a report may cut is a `Capped` holding every row; `ReportView.limited()` gives the same model with each list
cut to what one renderer shows (the JSON report has them all).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeVar

from ..text.basics import counted
from .baselineview import Baseline
from .boards import Board, Heatmap
from .cells import Capped
from .charts import Distribution, Grid
from .ranking import ModelMatrix

T = TypeVar("T")

__all__ = [
    "Limits",
    "MARKDOWN_LIMITS",
    "HTML_LIMITS",
    "Headline",
    "BestModel",
    "HardestCase",
    "FlipRow",
    "Perturbation",
    "FlakyRow",
    "InsightRow",
    "ProblemRow",
    "ResultRow",
    "Footer",
    "Curve",
    "ClassificationRow",
    "OperationsRow",
    "JudgeSpendRow",
    "HistoryLine",
    "HistoryView",
    "Charts",
    "ReportView",
]


@dataclass(frozen=True)
class Limits:  # how many rows of each long table a report shows; the JSON report has them all
    flips: int = 500
    changes: int = 500
    failures: int = 50  # failed checks (the Markdown report lists only those)
    results: int = 2000  # every result (the HTML report)


MARKDOWN_LIMITS = Limits(flips=50, changes=50, failures=50, results=0)


HTML_LIMITS = Limits(flips=500, changes=500, failures=0, results=2000)


@dataclass(frozen=True)
class Headline:
    checks: int
    models: str  # " on 3 model(s)", or "" when no check named a model
    passed: int
    pass_rate: str  # "87%"
    unverified: int = 0  # results no offline evidence could decide (not counted in passed)
    expected: int = 0  # failed checks of tests that failed as their xfail marker expected
    escalated: int = 0  # results the offline evidence left to the judge


@dataclass(frozen=True)
class BestModel:
    name: str
    passed: int
    count: int


@dataclass(frozen=True)
class HardestCase:
    case_id: str
    failed_by: str | None  # "2/3 model(s)"; None when no named model failed it (only tests without a model): "(failed)"
    failed_models: str  # "a, b"


@dataclass(frozen=True)
class FlipRow:
    case_id: str
    model: str
    check: str
    metric: str
    perturbation: str
    before: str
    after: str
    kind: str  # "broke", "fixed" or "moved"
    broke: bool
    test: str
    passed_before: bool = False
    passed_after: bool = False

    def describe(self) -> str:
        """``rouge rougeL broke under typos: 0.900 -> 0.300 (pass -> fail)``."""
        verdicts = ("pass" if self.passed_before else "fail", "pass" if self.passed_after else "fail")
        return (
            f"{self.check} {self.metric} {self.kind} under {self.perturbation}: {self.before} -> {self.after} "
            f"({verdicts[0]} -> {verdicts[1]})"
        )


@dataclass(frozen=True)
class Perturbation:
    sentence: str  # "3 flip(s) in 24 checks on perturbed inputs."
    flips: Capped[FlipRow]
    checks: int = 0  # checks on perturbed inputs


@dataclass(frozen=True)
class FlakyRow:  # a repeated case that both passed and failed
    case_id: str
    model: str
    check: str
    passed: int
    draws: int
    pass_rate: str


@dataclass(frozen=True)
class InsightRow:
    check: str
    metric: str
    model: str
    case_id: str
    score: str
    reason: str


@dataclass(frozen=True)
class ProblemRow:  # one model whose mean misses a check's threshold
    check: str
    metric: str
    model: str  # "-" for tests without a model
    mean: str
    threshold: float
    higher_is_better: bool
    count: int

    @property
    def line(self) -> str:
        """``groundedness support: model a mean 0.610 below its threshold 0.700 (5 checks)``."""
        side = "below" if self.higher_is_better else "above"
        return (
            f"{self.check} {self.metric}: model {self.model} mean {self.mean} {side} its threshold "
            f"{self.threshold:.3f} ({counted(self.count, 'check')})"
        )


@dataclass(frozen=True)
class ResultRow:
    test: str
    model: str  # "" for tests without a model
    check: str
    score: str  # the score of the metric that decided: "1.000 (evidence)" where it is not the primary
    threshold: str
    passed: bool
    reason: str
    answer: str
    verdict: str = ""  # "pass", "fail" or "unverified"
    expected: bool = False  # a failure of a test that failed as its xfail marker expected
    decided_by: str = ""  # one of DECIDERS ("": not said, or the check could not be computed)
    new: bool = False  # a failure the baseline did not have (it passed there)


@dataclass(frozen=True)
class Footer:
    plugin: str
    pytest: str
    python: str
    finished: str


@dataclass(frozen=True)
class Curve:  # one label's one-vs-rest curves, points in [0, 1] x [0, 1]
    label: str
    roc: tuple[tuple[float, float], ...]  # (false positive rate, true positive rate)
    pr: tuple[tuple[float, float], ...]  # (recall, precision)
    roc_auc: str
    average_precision: str


@dataclass(frozen=True)
class ClassificationRow:  # one model's recorded label predictions
    model: str
    accuracy: str
    macro_f1: str
    roc_auc: str
    count: int
    labels: str
    curves: tuple[Curve, ...]


@dataclass(frozen=True)
class OperationsRow:  # one model's measured generations, formatted
    model: str
    latency_ms: str
    latency_ms_p95: str
    tokens: str
    cost: str
    cost_total: str
    count: int


@dataclass(frozen=True)
class JudgeSpendRow:  # one check and model under test: its new judge calls and what they cost
    check: str
    model: str  # "-" for tests without a model
    calls: int
    replayed: int  # verdicts replayed from the cache: free, counted apart
    tokens: int
    cost: str  # "0.0123" (judge.price)


@dataclass(frozen=True)
class HistoryLine:  # one check and model over the saved runs (report.history)
    check: str
    metric: str
    model: str  # "-" for tests without a model
    runs: int
    trend: str  # the pass rate of each run as bars, oldest first: "▇▇▆▅▅▃"
    pass_rate: str  # the newest run's, "72%"
    pass_ci: str  # its interval, "64-79%"
    mean: str  # the newest run's mean
    drift: str  # "" or what drifted: "fail rate 0.140 -> 0.240 over the last 5 runs against the 5 before ..."
    falling: int  # runs in a row, ending with the newest, whose pass rate fell
    verdict: str  # "drift", "falling" (three runs or more) or "steady": the chart's colour
    svg: str = ""  # the HTML's chart of the pass rate by run

    @property
    def what(self) -> str:
        """What a reader should know of the row: its drift, else its fall, else nothing."""
        if self.drift:
            return f"drift: {self.drift}"
        return f"fell {self.falling} runs in a row" if self.verdict == "falling" else ""


@dataclass(frozen=True)
class HistoryView:  # the saved runs this run was looked at with (save = true)
    sentence: str  # "10 saved runs (2026-11-30 to 2026-12-08), this one included: 1 of 4 rows drifting."
    rows: tuple[HistoryLine, ...]  # drifting rows first

    @property
    def notable(self) -> tuple[HistoryLine, ...]:
        return tuple(row for row in self.rows if row.verdict != "steady")


@dataclass(frozen=True)
class Charts:  # what the HTML report draws (`.charts`), and the names its filters offer
    distributions: tuple[Distribution, ...] = ()
    grids: tuple[Grid, ...] = ()  # each cell links to its row of `ReportView.results` among the first HTML rows
    baseline_svg: str = ""
    repeat_svg: str = ""
    models: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportView:
    headline: Headline
    outcomes_line: str | None  # "12 tests: 9 passed, 3 failed"; None when the report has no test outcomes
    best_model: BestModel | None
    hardest_case: HardestCase | None
    leaderboard: tuple[Board, ...]  # one table per check
    heatmap: Heatmap
    perturbation: Perturbation | None  # None when no check ran on a perturbed input
    baseline: Baseline | None
    insights: tuple[InsightRow, ...]
    failures: Capped[ResultRow]  # failed checks, in run order
    results: Capped[ResultRow]  # every result: failed, unverified, expected failures, passed; run order within
    footer: Footer | None  # None when the report has no "run"
    classification: tuple[ClassificationRow, ...] = ()  # from record_label, per model, best first
    operations: tuple[OperationsRow, ...] = ()  # from measure_generation, per model
    operations_insights: str = ""  # "fastest: a; slowest: b; cheapest: ...", empty below two measured models
    problems: tuple[ProblemRow, ...] = ()  # each model whose mean misses a check's threshold
    verdicts: tuple[str, ...] = ()  # "12 answer(s) could not be verified offline (...)", what a judge decided
    unverified: Capped[ResultRow] = Capped((), 0)  # results left unverified, in run order
    expected_failures: Capped[ResultRow] = Capped((), 0)  # failed checks of xfail tests, in run order
    # per row of repeated cases: "exact_match on a: 60 cases, pass@3 0.950, pass^3 0.410, 20 flaky"
    repeats: tuple[str, ...] = ()
    flaky: Capped[FlakyRow] = Capped((), 0)  # repeated cases that both passed and failed, lowest pass rate first
    interval_level: str = "95%"
    interruption: str = ""  # "Interrupted after 79 of 200 tests (...)": the run ended early; empty for a whole run
    # "no clear best: a and b are within noise (...)": two or more models, none significantly best
    no_clear_best: str = ""
    models_compared: ModelMatrix | None = None  # every pair of models, paired on shared cases (report.ranking)
    # the run's gate in one line ("INDETERMINATE: ..."): first after an interruption; empty: nothing to say
    gate: str = ""
    gate_details: tuple[str, ...] = ()  # the other rows that made it indeterminate, and every floor
    calibration: tuple[str, ...] = ()  # the calibration run's figures, each check's calibration status
    gate_verdict: str = "none"  # "pass", "fail", "indeterminate" or "none" (report.gate)
    history: HistoryView | None = None  # None: the run was not looked at with saved runs
    judge_spend: tuple[JudgeSpendRow, ...] = ()  # the checks that asked a judge, or replayed its verdicts
    judge_limit: str = ""  # "judge spend limit 5.00 USD: spent ..."; empty without judge.spend_limit
    charts: Charts | None = None  # None: not drawn, as no HTML report was asked for (`.view.view`'s ``charts``)

    def limited(self, limits: Limits) -> ReportView:
        """This model with each long list cut to ``limits`` (what one renderer shows); totals stay whole."""

        def cut(rows: Capped[T], limit: int) -> Capped[T]:
            return Capped(rows.rows[:limit], rows.total)

        perturbation, baseline = self.perturbation, self.baseline
        if perturbation is not None:
            perturbation = dataclasses.replace(perturbation, flips=cut(perturbation.flips, limits.flips))
        if baseline is not None:
            baseline = dataclasses.replace(
                baseline, changes=cut(baseline.changes, limits.changes), rows=cut(baseline.rows, limits.changes)
            )
        return dataclasses.replace(
            self,
            perturbation=perturbation,
            baseline=baseline,
            failures=cut(self.failures, limits.failures),
            unverified=cut(self.unverified, limits.failures),
            expected_failures=cut(self.expected_failures, limits.failures),
            results=cut(self.results, limits.results),
            flaky=cut(self.flaky, limits.flips),
        )
