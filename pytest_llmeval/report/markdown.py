"""The Markdown report: leaderboard tables fit for ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..aggregate import models_phrase, outcome_counts_line, shown_model

__all__ = ["render", "MAX_FAILURES"]

#: Failed checks listed at most; the JSON report has them all.
MAX_FAILURES = 50


def _cell(text: object, limit: int = 120) -> str:
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    for ch in "\\|`*_<>[]":
        flat = flat.replace(ch, "\\" + ch)
    return flat


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render(report: dict[str, Any]) -> str:
    summary = report["summary"]
    lines = ["# LLM evaluation", ""]
    lines.append(f"{summary['checks']} checks{models_phrase(summary['models'])}: **{summary['passed']} passed** ({summary['pass_rate']:.0%}).")
    if report.get("tests"):
        lines.append(f"Tests (pytest's outcomes, with or without checks): {outcome_counts_line(report['tests'])}.")
    if summary.get("best_model"):
        totals = summary["model_totals"][summary["best_model"]]
        lines.append(f"Best model: **{_cell(summary['best_model'])}** ({totals['passed']}/{totals['count']} checks passed).")
    hard = summary.get("hardest_case")
    if hard and hard["failed_models"]:
        lines.append(
            f"Most difficult case: `{_cell(hard['case_id'])}`, failed by {len(hard['failed_models'])}/{hard['models']} "
            f"model(s) ({_cell(', '.join(hard['failed_models']))})."
        )
    elif hard:
        lines.append(f"Most difficult case: `{_cell(hard['case_id'])}` (failed).")
    lines.append("")

    by_check: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in summary["leaderboard"]:
        by_check[row["check"]].append(row)
    if by_check:
        lines += ["## Leaderboard", ""]
    for check, rows in by_check.items():
        direction = "higher is better" if rows[0]["higher_is_better"] else "lower is better"
        lines += [f"### {_cell(check)}: {_cell(rows[0]['metric'])} ({direction})", ""]
        lines += ["| rank | model | mean | sd | pass rate | passed | n |", "|---:|---|---:|---:|---:|---:|---:|"]
        for row in rows:
            spread = "" if row.get("spread") is None or row["count"] < 2 else f"{row['spread']:.3f}"
            lines.append(
                f"| {row.get('rank', '')} | {_cell(shown_model(row['model']))} | {_num(row['mean'])} | {spread} | {row['pass_rate']:.0%} "
                f"| {row['passed']} | {row['count']} |"
            )
        lines.append("")

    if summary.get("perturbed_checks"):
        flips = summary.get("flips", [])
        lines += ["## Perturbation flips", "",
                  f"{len(flips)} flip(s) in {summary['perturbed_checks']} checks on perturbed inputs.", ""]
        if flips:
            lines += ["| case | model | check | perturbation | before | after | flip |", "|---|---|---|---|---:|---:|---|"]
            for flip in flips[:MAX_FAILURES]:
                lines.append(
                    f"| {_cell(flip['case_id'], 80)} | {_cell(shown_model(flip['model']))} | {_cell(flip['check'])} {_cell(flip['metric'])} "
                    f"| {_cell(flip['perturbation'])} | {_num(flip['original_score'])} | {_num(flip['perturbed_score'])} "
                    f"| {flip['kind']} |"
                )
            if len(flips) > MAX_FAILURES:
                lines.append(f"\n{len(flips) - MAX_FAILURES} more flips are in the JSON report.")
            lines.append("")

    baseline = report.get("baseline")
    if baseline:
        lines += ["## Compared with baseline", "",
                  f"`{_cell(baseline['baseline'])}`: **{baseline['regressions']} regression(s)**, {baseline['improvements']} "
                  f"improvement(s) in {baseline['compared']} comparable result(s); {len(baseline['not_comparable'])} not comparable "
                  f"(signature changed), {baseline['new']} new, {baseline['missing']} gone.", ""]
        if baseline["changes"]:
            lines += ["| change | check | model | before | after | test |", "|---|---|---|---:|---:|---|"]
            for change in baseline["changes"][:MAX_FAILURES]:
                what = f"{change['kind']} ({'pass/fail' if change['scope'] == 'result' else 'mean'})"
                lines.append(f"| {what} | {_cell(change['evaluator'])} {_cell(change['metric'])} | {_cell(shown_model(change['model']))} "
                             f"| {_num(change['before'])} | {_num(change['after'])} | {_cell(change.get('nodeid') or '', 80)} |")
            lines.append("")

    insights = summary.get("insights", [])
    if insights:
        lines += ["## Insights", "", "The worst failing result of each check, with the evaluator's evidence:", "",
                  "| check | model | case | score | evidence |", "|---|---|---|---:|---|"]
        for insight in insights:
            lines.append(
                f"| {_cell(insight['check'])} {_cell(insight['metric'])} | {_cell(shown_model(insight['model']))} "
                f"| {_cell(insight.get('case_id') or '', 60)} | {_num(insight['score'])} | {_cell(insight['reason'], 200)} |"
            )
        lines.append("")

    failures = [r for r in report.get("results", []) if not r.get("passed")]
    if failures:
        lines += ["## Failed checks", "", "| test | model | check | score | threshold | why |", "|---|---|---|---:|---:|---|"]
        for record in failures[:MAX_FAILURES]:
            primary = record["primary"]
            lines.append(
                f"| {_cell(record.get('nodeid', ''), 80)} | {_cell(record.get('model') or '')} | {_cell(record['evaluator'])} "
                f"| {_num(record['metrics'].get(primary))} | {_num(record.get('thresholds', {}).get(primary))} "
                f"| {_cell(record.get('reason', ''))} |"
            )
        if len(failures) > MAX_FAILURES:
            lines.append(f"\n{len(failures) - MAX_FAILURES} more failed checks are in the JSON report.")
        lines.append("")
    run = report["run"]
    lines.append(f"<sub>pytest-llmeval {run['plugin']}, pytest {run['pytest']}, Python {run['python']}, {run['finished']}</sub>")
    return "\n".join(lines) + "\n"
