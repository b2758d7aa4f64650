"""The report model (`.rows.ReportView`): `view()` builds it once from a JSON report dict, and the terminal, the
Markdown and HTML reports, the pull-request comment and the JUnit properties render it and nothing else.

The report fits ``report.schema.json`` (this run's, or one read back from disk). The model decides which sections
appear, the wording of computed phrases and how numbers and model cells read; each renderer cuts its long lists
(`.rows.Limits`) and only formats it. Text from the run is kept raw: each renderer escapes it. The leaderboard's
tables are built in `.boards`, the baseline section in `.baselineview`, the charts in `.charts`, numbers in `.cells`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, TypeVar

from ..core.result import NO_MODEL, deciding_measure, verdict_of
from ..text.basics import counted
from .aggregate import models_phrase, outcome_counts_line, shown_model, summarize
from .baselineview import baseline_section, new_failures
from .boards import boards, heatmap, repeats_line
from .cells import Capped, interval, number
from .ranking import matrix
from .rows import (
    HTML_LIMITS,
    BestModel,
    Charts,
    ClassificationRow,
    Curve,
    FlakyRow,
    FlipRow,
    Footer,
    HardestCase,
    Headline,
    HistoryLine,
    HistoryView,
    InsightRow,
    JudgeSpendRow,
    Limits,
    OperationsRow,
    Perturbation,
    ProblemRow,
    ReportView,
    ResultRow,
)

__all__ = ["view", "result_row", "verdict_lines", "history_view", "MAX_GRID_CASES"]

T = TypeVar("T")

#: Cases per check in the HTML's cases-by-models grid (the hardest first).
MAX_GRID_CASES = 100


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


def view(report: Mapping[str, Any], limits: Limits | None = None, *, charts: bool = True) -> ReportView:
    """The report model of ``report``, every row of it (``limits`` cuts its lists as `ReportView.limited()` does); a
    missing summary is computed from the results. ``charts``: draw what only the HTML report shows (`.charts`)."""
    records: list[Any] = [r for r in report.get("results") or [] if isinstance(r, Mapping)]  # the schema's "record"
    summary: Mapping[str, Any] = report.get("summary") or summarize(records).to_dict()
    rows: list[dict[str, Any]] = summary.get("leaderboard", [])
    run = report.get("run")
    found = report.get("gate")
    gate: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    best, hard = summary.get("best_model"), summary.get("hardest_case")
    totals, failed = summary.get("model_totals", {}).get(best, {}), hard["failed_models"] if hard else []
    new = new_failures(report.get("baseline"))  # failures the baseline passed: marked "new"
    ranked = sorted(records, key=_order)  # stable: run order within
    result_rows = [result_row(record, new) for record in ranked]
    by_group: dict[int, list[ResultRow]] = defaultdict(list)
    for record, row in zip(ranked, result_rows):
        by_group[_order(record)].append(row)
    model = ReportView(
        headline=Headline(
            summary.get("checks", 0),
            models_phrase(summary.get("models", [])),
            summary.get("passed", 0),
            f"{summary.get('pass_rate', 0.0):.0%}",
            summary.get("unverified", 0),
            summary.get("expected_failures", 0),
            sum((summary.get("escalated_verdicts") or {}).values()),
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
        perturbation=_perturbation(summary),
        baseline=baseline_section(report.get("baseline")),
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
        failures=_all(by_group[0]),
        unverified=_all(by_group[1]),
        expected_failures=_all(by_group[2]),
        results=_all(result_rows),
        footer=None
        if run is None
        else Footer(*(str(run.get(key, "")) for key in ("plugin", "pytest", "python", "finished"))),
        classification=tuple(_classification_row(row) for row in summary.get("classification", [])),
        operations=tuple(_operations_row(row) for row in summary.get("operations", [])),
        problems=tuple(
            ProblemRow(
                str(row["check"]),
                str(row["metric"]),
                shown_model(row.get("model")),
                number(row.get("mean")),
                float(row.get("threshold") or 0.0),
                bool(row.get("higher_is_better", True)),
                int(row.get("count", 0)),
            )
            for row in summary.get("problems", [])
        ),
        verdicts=tuple(verdict_lines(summary)),
        operations_insights="; ".join(
            f"{key.replace('_', ' ')}: {model}" for key, model in (summary.get("operations_insights") or {}).items()
        ),
        repeats=tuple(repeats_line(row) for row in rows if row.get("k")),
        flaky=_all(
            [
                FlakyRow(
                    c["case_id"],
                    shown_model(c.get("model")),
                    c["check"],
                    int(c["passed"]),
                    int(c["draws"]),
                    f"{c['pass_rate']:.0%}",
                )
                for c in summary.get("flaky") or []
            ]
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
        gate_verdict=str(gate.get("verdict") or "none"),
        history=history_view(report.get("history")),
        judge_spend=_judge_spend(report.get("judge")),
        judge_limit=_judge_limit(report.get("judge")),
        charts=_charts(report, ranked) if charts else None,
    )
    return model if limits is None else model.limited(limits)


def history_view(found: Any) -> HistoryView | None:
    """The history section (`.history.History.to_dict`) as the reports show it."""
    if not isinstance(found, Mapping):
        return None
    from .charts import history_chart
    from .history import spark

    runs = [run for run in found.get("runs") or [] if isinstance(run, Mapping)]
    lines = []
    for row in found.get("rows") or []:
        points = [p for p in row.get("points") or [] if isinstance(p, Mapping)]
        if not points:
            continue
        last, drift = points[-1], row.get("drift")
        falling = int(row.get("falling") or 0)
        verdict = "drift" if drift else "falling" if falling >= 3 else "steady"
        rates = [float(p.get("pass_rate") or 0.0) for p in points]
        drift_line = ""
        if isinstance(drift, Mapping):
            from .history import Drift

            drift_line = Drift(**{k: drift[k] for k in Drift.__dataclass_fields__}).describe()
        lines.append(
            HistoryLine(
                str(row.get("check", "")),
                str(row.get("metric", "")),
                shown_model(row.get("model")),
                len(points),
                spark(rates),
                f"{rates[-1]:.0%}",
                interval(last.get("pass_low"), last.get("pass_high"), percent=True),
                number(last.get("mean")),
                drift_line,
                falling,
                verdict,
                history_chart([(str(p.get("run") or "this run"), r) for p, r in zip(points, rates)], verdict),
            )
        )
    drifting = sum(line.verdict == "drift" for line in lines)
    times = [str(run.get("time") or "")[:10] for run in runs if run.get("time")]
    span = f" ({times[0]} to {times[-1]})" if times else ""
    head = f"{counted(len(runs), 'saved run')}{span}, this one included"
    size = min(int(found.get("window") or 5), len(runs) // 2)  # as `.history` tests a shorter history
    sentence = (
        f"{head}: too few to test for drift (4 at least)."
        if len(runs) < 4
        else f"{head}: {drifting} of {counted(len(lines), 'row')} drifting (the last {size} runs against the {size} "
        "before; the chance of any false drift over all runs at most "
        f"{float(found.get('alpha') or 0.05):.0%})."
    )
    lines.sort(key=lambda line: ({"drift": 0, "falling": 1}.get(line.verdict, 2), line.check, line.model))
    return HistoryView(sentence, tuple(lines))


def _judge_spend(judge: Any) -> tuple[JudgeSpendRow, ...]:
    rows = judge.get("by_check") if isinstance(judge, Mapping) else None
    return tuple(
        JudgeSpendRow(
            str(row.get("check", "")),
            shown_model(row.get("model")),
            int(row.get("calls", 0)),
            int(row.get("replayed", 0)),
            int(row.get("tokens", 0)),
            f"{float(row.get('cost', 0.0)):.4f}",
        )
        for row in rows or []
        if isinstance(row, Mapping)
    )


def _judge_limit(judge: Any) -> str:
    """What the run spent against judge.spend_limit, and the checks it left unasked."""
    spend = judge.get("spend") if isinstance(judge, Mapping) else None
    if not isinstance(spend, Mapping) or not spend.get("limit"):
        return ""
    skipped = int(judge.get("skipped_checks") or 0)
    return (
        f"judge spend limit {spend['limit']}: spent {float(spend.get('usd', 0.0)):.4f} USD, "
        f"{float(spend.get('tokens', 0.0)):g} tokens in {float(spend.get('calls', 0.0)):g} calls"
        + (f"; {counted(skipped, 'check')} without a judge (limit reached, or none)" if skipped else "")
    )


def _all(rows: list[T]) -> Capped[T]:
    return Capped(tuple(rows), len(rows))


def _order(record: Mapping[str, Any]) -> int:
    """Failed, unverified, expected failure (xfail), passed."""
    if not record.get("passed"):
        return 2 if record.get("outcome") == "xfailed" else 0
    return 1 if verdict_of(record) == "unverified" else 3


def _charts(report: Mapping[str, Any], ranked: list[Mapping[str, Any]]) -> Charts:
    """What the HTML report draws; a grid cell links to its result's row where the HTML lists it."""
    from . import charts

    anchors = {id(record): f"#r{index}" for index, record in enumerate(ranked[: HTML_LIMITS.results])}
    return Charts(
        tuple(charts.distributions(ranked)),
        tuple(charts.grids(ranked, anchors, MAX_GRID_CASES)),
        charts.baseline_chart((report.get("baseline") or {}).get("rows") or []),
        charts.repeat_chart(ranked),
        tuple(sorted({charts.shown(r.get("model")) for r in ranked})),
        tuple(sorted({str(r.get("evaluator", "")) for r in ranked})),
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


def _perturbation(summary: Mapping[str, Any]) -> Perturbation | None:
    if not summary.get("perturbed_checks"):
        return None
    flips = summary.get("flips", [])
    sentence = f"{counted(len(flips), 'flip')} in {counted(summary['perturbed_checks'], 'check')} on perturbed inputs."
    return Perturbation(
        sentence,
        _all(
            [
                FlipRow(
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
                    bool(f.get("original_passed")),
                    bool(f.get("perturbed_passed")),
                )
                for f in flips
            ]
        ),
        int(summary["perturbed_checks"]),
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
