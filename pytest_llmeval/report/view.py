"""What the Markdown and HTML reports show: `view()` reads a JSON report dict once.

The report fits ``report.schema.json`` (this run's, or one read back from disk). The view decides
which sections appear, what is capped, the wording of computed phrases and how numbers and model
cells read; the renderers only format it. Text from the run is kept raw: each renderer escapes it. The leaderboard's
tables are built in `.boards`, the baseline section in `.baselineview`, numbers and capped lists in `.cells`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.result import NO_MODEL, deciding_measure, verdict_of
from ..text.basics import counted
from .aggregate import models_phrase, outcome_counts_line, shown_model, summarize
from .baselineview import Baseline, baseline_section, new_failures
from .boards import Board, Heatmap, boards, heatmap, repeats_line
from .cells import Capped, capped, number
from .ranking import ModelMatrix, matrix

__all__ = ["view", "result_row", "ReportView", "Limits", "MARKDOWN_LIMITS", "HTML_LIMITS", "verdict_lines", "ResultRow"]


def _floor_line(floor: Mapping[str, Any]) -> str:
    """A floor's result as the reports list it (the terminal's floor line, from the JSON report's gate)."""
    from .gate import FloorResult

    fields: dict[str, Any] = {k: floor.get(k) for k in FloorResult.__dataclass_fields__}
    fields["model"] = fields["model"] or NO_MODEL
    return "floor: " + FloorResult(**fields).describe()


def verdict_lines(summary: Mapping[str, Any]) -> list[str]:
    """What could not be verified offline, and what a judge decided (from the JSON summary: the terminal and the
    Markdown and HTML reports say the same)."""
    lines = []
    for tier, key in (("the claim verifier", "verifier_verdicts"), ("the detector", "detected_verdicts")):
        counts = summary.get(key) or {}
        if counts:
            lines.append(
                f"{counted(sum(counts.values()), 'answer')} the offline evidence left unverified went to {tier}: "
                + ", ".join(
                    f"{n} {({'pass': 'passed', 'fail': 'failed'}).get(v, 'still unverified')}"
                    for v, n in sorted(counts.items())
                )
            )
    escalated = summary.get("escalated_verdicts") or {}
    if escalated:
        decided = ", ".join(
            f"{count} {'passed' if verdict == 'pass' else 'failed' if verdict == 'fail' else 'still unverified'}"
            for verdict, count in sorted(escalated.items())
        )
        lines.append(
            f"{counted(sum(escalated.values()), 'answer')} no offline evidence could decide went to the judge: "
            f"{decided}"
        )
    left = summary.get("unverified") or 0
    if left:
        by_check = ", ".join(
            f"{name} {count}" for name, count in sorted((summary.get("unverified_by_check") or {}).items())
        )
        advice = "the judge could not decide them" if escalated else "set a detector or a judge to decide them"
        lines.append(f"{counted(left, 'answer')} could not be verified offline ({by_check}): {advice}")
    return lines


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


@dataclass(frozen=True)
class Perturbation:
    sentence: str  # "3 flip(s) in 24 checks on perturbed inputs."
    flips: Capped[FlipRow]


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
    results: Capped[ResultRow]  # every result, grouped by test in order of first appearance
    footer: Footer | None  # None when the report has no "run"
    classification: tuple[ClassificationRow, ...] = ()  # from record_label, per model, best first
    operations: tuple[OperationsRow, ...] = ()  # from measure_generation, per model
    operations_insights: str = ""  # "fastest: a; slowest: b; cheapest: ...", empty below two measured models
    problems: tuple[str, ...] = ()  # "groundedness support: model a mean 0.610 below its threshold 0.700 (5 checks)"
    verdicts: tuple[str, ...] = ()  # "12 answer(s) could not be verified offline (...)", what a judge decided
    unverified: Capped[ResultRow] = Capped((), 0)  # results left unverified, in run order
    expected_failures: Capped[ResultRow] = Capped((), 0)  # failed checks of xfail tests, in run order
    repeats: tuple[
        str, ...
    ] = ()  # per row of repeated cases: "exact_match on a: 60 cases, pass@3 0.950, pass^3 0.410, 20 flaky"
    flaky: Capped[FlakyRow] = Capped((), 0)  # repeated cases that both passed and failed, lowest pass rate first
    interval_level: str = "95%"
    interruption: str = ""  # "Interrupted after 79 of 200 tests (...)": the run ended early; empty for a whole run
    no_clear_best: str = (
        ""  # "no clear best: a and b are within noise (...)": two or more models, none significantly best
    )
    models_compared: ModelMatrix | None = None  # every pair of models, paired on shared cases (report.ranking)
    gate: str = (
        ""  # the run's gate in one line ("INDETERMINATE: ..."): first after an interruption; empty: nothing to say
    )
    gate_details: tuple[str, ...] = ()  # the other rows that made it indeterminate, and every floor
    calibration: tuple[
        str, ...
    ] = ()  # the calibration run's figures, each check's calibration status (report/calibration)


def problem_line(row: Mapping[str, Any]) -> str:
    """One model whose mean misses a check's threshold, in words (terminal, Markdown, HTML)."""
    side = "below" if row.get("higher_is_better", True) else "above"
    return (
        f"{row['check']} {row['metric']}: model {shown_model(row.get('model'))} mean {number(row.get('mean'))} {side} "
        "its "
        f"threshold {number(row.get('threshold'))} ({counted(row.get('count', 0), 'check')})"
    )


def view(report: Mapping[str, Any], limits: Limits = Limits()) -> ReportView:
    """Everything a Markdown or HTML report shows of ``report``; a missing summary is computed from the results."""
    records: list[Any] = report.get("results") or []  # records that fit the schema's "record"
    summary: Mapping[str, Any] = report.get("summary") or summarize(records).to_dict()
    rows: list[dict[str, Any]] = summary.get("leaderboard", [])
    run = report.get("run")
    found = report.get("gate")
    gate: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    best, hard = summary.get("best_model"), summary.get("hardest_case")
    totals, failed = summary.get("model_totals", {}).get(best, {}), hard["failed_models"] if hard else []
    failures = [r for r in records if not r.get("passed") and r.get("outcome") != "xfailed"]
    expected = [r for r in records if not r.get("passed") and r.get("outcome") == "xfailed"]
    unverified = [r for r in records if r.get("passed") and verdict_of(r) == "unverified"]
    by_test: dict[str, list[Any]] = defaultdict(list)
    for record in records[: limits.results]:
        by_test[record.get("nodeid", "")].append(record)
    return ReportView(
        headline=Headline(
            summary.get("checks", 0),
            models_phrase(summary.get("models", [])),
            summary.get("passed", 0),
            f"{summary.get('pass_rate', 0.0):.0%}",
            summary.get("unverified", 0),
            summary.get("expected_failures", 0),
        ),
        outcomes_line=outcome_counts_line(report["tests"]) if report.get("tests") else None,
        best_model=BestModel(best, totals.get("passed", 0), totals.get("count", 0)) if best else None,
        no_clear_best=str(summary.get("no_clear_best") or ""),
        models_compared=matrix(summary.get("model_pairs")),
        hardest_case=HardestCase(
            hard["case_id"], f"{len(failed)}/{counted(hard['models'], 'model')}" if failed else None, ", ".join(failed)
        )
        if hard
        else None,
        leaderboard=boards(rows),
        heatmap=heatmap(rows),
        perturbation=_perturbation(summary, limits.flips),
        baseline=baseline_section(report.get("baseline"), limits.changes),
        insights=tuple(
            InsightRow(
                i["check"],
                i["metric"],
                shown_model(i["model"]),
                i.get("case_id") or "",
                number(i["score"]),
                i["reason"],
            )
            for i in summary.get("insights", [])
        ),
        failures=capped(failures, limits.failures, partial(result_row, new=new_failures(report.get("baseline")))),
        expected_failures=capped(expected, limits.failures, result_row),
        results=Capped(tuple(result_row(r) for group in by_test.values() for r in group), len(records)),
        footer=None
        if run is None
        else Footer(*(str(run.get(key, "")) for key in ("plugin", "pytest", "python", "finished"))),
        classification=tuple(_classification_row(row) for row in summary.get("classification", [])),
        operations=tuple(_operations_row(row) for row in summary.get("operations", [])),
        problems=tuple(problem_line(row) for row in summary.get("problems", [])),
        verdicts=tuple(verdict_lines(summary)),
        unverified=capped(unverified, limits.failures, result_row),
        operations_insights="; ".join(
            f"{key.replace('_', ' ')}: {model}" for key, model in (summary.get("operations_insights") or {}).items()
        ),
        repeats=tuple(repeats_line(row) for row in rows if row.get("k")),
        flaky=capped(
            summary.get("flaky") or [],
            limits.flips,
            lambda c: FlakyRow(
                c["case_id"],
                shown_model(c.get("model")),
                c["check"],
                int(c["passed"]),
                int(c["draws"]),
                f"{c['pass_rate']:.0%}",
            ),
        ),
        interval_level=f"{summary.get('interval_level', 0.95):.0%}",
        interruption=str(run.get("interruption") or "") if isinstance(run, Mapping) else "",
        gate=str(gate.get("line") or ""),
        gate_details=(
            *(str(r) for r in (gate.get("indeterminate") or [])[1:10]),
            *(_floor_line(f) for f in gate.get("floors") or [] if isinstance(f, Mapping)),
        ),
        calibration=tuple(
            str(line) for key in ("lines", "status_lines") for line in (report.get("calibration") or {}).get(key, [])
        ),
    )


def _operations_row(row: Mapping[str, Any]) -> OperationsRow:
    return OperationsRow(
        shown_model(row.get("model")),
        number(row.get("latency_ms_mean"), 1),
        number(row.get("latency_ms_p95"), 1),
        number(row.get("tokens_mean"), 1),
        number(row.get("cost_mean"), 6),
        number(row.get("cost_total"), 6),
        int(row.get("count", 0)),
    )


def _classification_row(row: Mapping[str, Any]) -> ClassificationRow:
    curves = tuple(
        Curve(
            label,
            tuple((float(x), float(y)) for x, y in drawn.get("roc", [])),
            tuple((float(x), float(y)) for x, y in drawn.get("pr", [])),
            number(drawn.get("roc_auc")),
            number(drawn.get("average_precision")),
        )
        for label, drawn in sorted((row.get("curves") or {}).items())
    )
    return ClassificationRow(
        shown_model(row.get("model")),
        number(row.get("accuracy")),
        number(row.get("macro_f1")),
        number(row.get("roc_auc")),
        int(row.get("count", 0)),
        ", ".join(row.get("labels", [])),
        curves,
    )


def _perturbation(summary: Mapping[str, Any], limit: int) -> Perturbation | None:
    if not summary.get("perturbed_checks"):
        return None
    flips = summary.get("flips", [])
    sentence = f"{counted(len(flips), 'flip')} in {counted(summary['perturbed_checks'], 'check')} on perturbed inputs."
    return Perturbation(
        sentence,
        capped(
            flips,
            limit,
            lambda f: FlipRow(
                f["case_id"],
                shown_model(f["model"]),
                f["check"],
                f["metric"],
                f["perturbation"],
                number(f["original_score"]),
                number(f["perturbed_score"]),
                f["kind"],
                f["kind"] == "broke",
                f.get("nodeid") or "",
            ),
        ),
    )


def result_row(record: Mapping[str, Any], new: frozenset[str] = frozenset()) -> ResultRow:
    """One result as a report row (test, model, check, score, threshold, verdict, why, answer)."""
    primary = record["primary"]
    score, threshold = number(record["metrics"].get(primary)), number(record.get("thresholds", {}).get(primary))
    decided = deciding_measure(record)
    if decided is not None and decided["metric"] != primary:  # the metric that decided, not the primary
        score, threshold = f"{number(decided.get('value'))} ({decided['metric']})", number(decided.get("threshold"))
    return ResultRow(
        record.get("nodeid", ""),
        record.get("model") or "",
        record["evaluator"],
        score,
        threshold,
        bool(record.get("passed")),
        record.get("reason", ""),
        record.get("excerpt") or "",
        verdict_of(record),
        not record.get("passed") and record.get("outcome") == "xfailed",
        str(record.get("decided_by") or ""),
        record.get("nodeid", "") in new,
    )
