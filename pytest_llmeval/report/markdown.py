"""The Markdown report: leaderboard tables fit for ``$GITHUB_STEP_SUMMARY``.

What is shown comes from `.view.view()`; this module only writes it as Markdown,
every piece of text from the run escaped by `cell()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..text.basics import counted
from .cells import Capped
from .rows import MARKDOWN_LIMITS, ReportView, ResultRow

__all__ = ["render", "cell", "opening", "model_of", "history_section", "judge_section", "judge_parts", "MAX_FAILURES"]


#: Failed checks listed at most; the JSON report has them all.
MAX_FAILURES = MARKDOWN_LIMITS.failures


def model_of(report: ReportView | Mapping[str, Any]) -> ReportView:
    """``report`` itself when it is the report model, else the model `.view.view()` builds of the JSON report."""
    from .view import view

    return report if isinstance(report, ReportView) else view(report)


def cell(text: object, limit: int = 120) -> str:
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    for ch in "\\|`*_<>[]":
        flat = flat.replace(ch, "\\" + ch)
    return flat


def _results_section(title: str, intro: str | None, results: Capped[ResultRow], what: str) -> list[str]:
    """A section listing results (test, model, check, score, threshold, why: who decided, then the reason); nothing
    when there are none."""
    if not results.total:
        return []
    lines = [
        f"## {title}",
        "",
        *([intro, ""] if intro else []),
        "| test | model | check | score | threshold | why |",
        "|---|---|---|---:|---:|---|",
    ]
    lines += [
        f"| {cell(r.test, 80)} | {cell(r.model)} | {cell(r.check)} | {r.score} | {r.threshold} | "
        f"{'**new** ' if r.new else ''}{cell((f'({r.decided_by}) ' if r.decided_by else '') + r.reason)} |"
        for r in results.rows
    ]
    if results.more:
        lines.append(f"\n{results.more} more {what} are in the JSON report.")
    return [*lines, ""]


def history_section(v: ReportView, limit: int = 50) -> list[str]:
    """The saved runs' history: each row's pass rate by run, drifting and falling rows first; nothing without one."""
    if v.history is None:
        return []
    lines = [
        "## History",
        "",
        cell(v.history.sentence, 400),
        "",
        "| check | metric | model | runs | pass rate by run | last | what |",
        "|---|---|---|---:|---|---:|---|",
    ]
    lines += [
        f"| {cell(h.check)} | {cell(h.metric)} | {cell(h.model)} | {h.runs} | {h.trend} | {h.pass_rate} | "
        f"{'**' + cell(h.what, 300) + '**' if h.what else ''} |"
        for h in v.history.rows[:limit]
    ]
    if len(v.history.rows) > limit:
        lines.append(f"\n{len(v.history.rows) - limit} more rows are in the JSON report.")
    return [*lines, ""]


def judge_parts(v: ReportView) -> tuple[list[str], list[str], list[str]]:
    """The judge spend as the Markdown report and the comment write it: the spend limit's sentence, the table's head
    and its rows (per check and model under test; new calls, replayed verdicts free and counted apart)."""
    said = [cell(v.judge_limit[0].upper() + v.judge_limit[1:], 400) + ".", ""] if v.judge_limit else []
    head = ["| check | model | calls | replayed (free) | tokens | cost |", "|---|---|---:|---:|---:|---:|"]
    rows = [
        f"| {cell(r.check)} | {cell(r.model)} | {r.calls} | {r.replayed} | {r.tokens} | {r.cost} |"
        for r in v.judge_spend
    ]
    return said, head, rows


def judge_section(v: ReportView) -> list[str]:
    """What the judge cost and the run's spend limit; nothing when no check asked a judge and there is no limit."""
    said, head, rows = judge_parts(v)
    if not said and not rows:
        return []
    return ["## Judge spend", "", *said, *(head + rows if rows else []), ""]


def opening(v: ReportView) -> list[str]:
    """What a Markdown summary says first: an interruption (every number after it covers only the tests that ran),
    the run's verdict against the baseline, then the headline."""
    head = v.headline
    lines = [f"**{cell(v.interruption, 400)}.**", ""] if v.interruption else []
    if v.gate:
        lines += [
            f"**Gate: {cell(v.gate, 600)}**",
            "",
            *(f"- {cell(d, 300)}" for d in v.gate_details),
            *([""] if v.gate_details else []),
        ]
    if v.baseline and v.baseline.verdict_line:
        lines += [f"**Verdict: {cell(v.baseline.verdict_line, 400)}**", ""]
    if v.calibration:
        lines += [
            "**Calibration** (agreement with labeled answers; a check that may not gate is diagnostic):",
            "",
            *(f"- {cell(line.strip(), 400)}" for line in v.calibration),
            "",
        ]
    extra = f", {head.unverified} unverified" if head.unverified else ""
    extra += f", {head.expected} expected failures (xfail)" if head.expected else ""
    return [
        *lines,
        f"{counted(head.checks, 'check')}{head.models}: **{head.passed} passed** ({head.pass_rate}){extra}.",
    ]


def render(report: ReportView | Mapping[str, Any]) -> str:
    """The Markdown report of the report model (a JSON report dict is read by `.view.view()` first)."""
    v = model_of(report).limited(MARKDOWN_LIMITS)
    head = v.headline
    lines = ["# LLM evaluation", "", *opening(v)]
    lines += [f"{cell(line, 300)}." for line in v.verdicts]
    if v.outcomes_line is not None:
        lines.append(f"Tests (pytest's outcomes, with or without checks): {v.outcomes_line}.")
    if v.best_model:
        lines.append(
            f"Best model: **{cell(v.best_model.name)}** ({v.best_model.passed}/{v.best_model.count} checks passed)."
        )
    elif v.no_clear_best:
        lines.append(f"{cell(v.no_clear_best[0].upper() + v.no_clear_best[1:], 400)}.")
    hard = v.hardest_case
    if hard and hard.failed_by:
        lines.append(
            f"Most difficult case: `{cell(hard.case_id)}`, failed by {hard.failed_by} ({cell(hard.failed_models)})."
        )
    elif hard:
        lines.append(f"Most difficult case: `{cell(hard.case_id)}` (failed).")
    if v.problems:
        lines += ["", "Problems (a model's mean misses the check's threshold):", ""]
        lines += [f"- {cell(problem.line, 300)}" for problem in v.problems]
    lines.append("")

    lines += history_section(v) + judge_section(v)
    if v.leaderboard:
        lines += ["## Leaderboard", ""]
    for board in v.leaderboard:
        lines += [f"### {cell(board.check)}: {cell(board.metric)} ({board.direction})", ""]
        unv = bool(head.unverified)  # a column of unverified results, when the run has any
        xf = bool(head.expected)  # and one of expected failures
        level = v.interval_level
        lines += [
            f"| rank | model | mean | {level} CI | sd | pass rate | {level} CI | passed |"
            + (" unverified |" if unv else "")
            + (" xfail |" if xf else "")
            + " n |",
            "|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if unv else "") + ("---:|" if xf else "") + "---:|",
        ]
        lines += [
            f"| {row.rank} | {cell(row.model)} | {row.mean} | {row.ci} | {row.spread} | {row.pass_rate} | "
            f"{row.pass_ci} | {row.passed} |"
            + (f" {row.unverified} |" if unv else "")
            + (f" {row.expected} |" if xf else "")
            + f" {row.count} |"
            for row in board.rows
        ]
        lines.append("")
    if v.models_compared:
        matrix = v.models_compared
        lines += [
            "## Models compared",
            "",
            "Pass rate of the row's model minus the column's, on the cases both answered "
            "(paired test, Holm over every pair; * significant).",
            "",
            "| model | " + " | ".join(cell(m) for m in matrix.models) + " |",
            "|---|" + "---:|" * len(matrix.models),
        ]
        lines += [f"| {cell(model)} | " + " | ".join(row) + " |" for model, row in zip(matrix.models, matrix.cells)]
        lines.append("")
    if v.repeats:
        lines += [
            "## Repeated cases",
            "",
            "Each case ran several times (draws); pass@k: at least one of k draws passes, pass^k: all k pass.",
            "",
        ]
        lines += [f"- {cell(line, 300)}" for line in v.repeats]
        lines.append("")
        if v.flaky.total:
            lines += [
                "Flaky cases (passed in some draws, failed in others):",
                "",
                "| case | model | check | passed | draws |",
                "|---|---|---|---:|---:|",
            ]
            lines += [
                f"| {cell(c.case_id, 80)} | {cell(c.model)} | {cell(c.check)} | {c.passed} | {c.draws} |"
                for c in v.flaky.rows
            ]
            if v.flaky.more:
                lines.append(f"\n{v.flaky.more} more flaky cases are in the JSON report.")
            lines.append("")

    if v.perturbation:
        flips = v.perturbation.flips
        lines += ["## Perturbation flips", "", v.perturbation.sentence, ""]
        if flips.total:
            lines += [
                "| case | model | check | perturbation | before | after | flip |",
                "|---|---|---|---|---:|---:|---|",
            ]
            lines += [
                f"| {cell(f.case_id, 80)} | {cell(f.model)} | {cell(f.check)} {cell(f.metric)} | "
                f"{cell(f.perturbation)} "
                f"| {f.before} | {f.after} | {cell(f.kind)} |"
                for f in flips.rows
            ]
            if flips.more:
                lines.append(f"\n{flips.more} more flips are in the JSON report.")
            lines.append("")

    base = v.baseline
    if base:
        lines += [
            "## Compared with baseline",
            "",
            f"`{cell(base.path)}`: {base.rows.total} leaderboard row(s) compared over {base.compared} matched "
            "result(s); "
            f"{base.not_comparable} not comparable (signature changed), {base.new} new, {base.missing} gone.",
            "",
        ]
        if base.rows.total:
            lines += [
                "| verdict | check | measure | model | before | after | difference | interval | p (Holm) | cases | "
                "note |",
                "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|",
            ]
            lines += [
                f"| {'**' + r.verdict + '**' if r.verdict == 'regressed' else r.verdict} | {cell(r.check)} | "
                f"{cell(r.metric)} "
                f"| {cell(r.model)} | {r.before} | {r.after} | {r.difference} | {r.interval} | {r.p_value} | {r.cases} "
                f"| {cell(r.note, 200)} |"
                for r in base.rows.rows
            ]
            lines.append("")
        if base.changes.total:
            lines += [
                "Results that moved to or from a failure (evidence; the rows' tests decide):",
                "",
                "| change | check | model | before | after | test |",
                "|---|---|---|---:|---:|---|",
            ]
            lines += [
                f"| {cell(c.kind)} | {cell(c.evaluator)} {cell(c.metric)} | {cell(c.model)} | {c.before} | {c.after} "
                f"| {cell(c.test, 80)} |"
                for c in base.changes.rows
            ]
            if base.changes.more:
                lines.append(f"\n{base.changes.more} more are in the JSON report.")
            lines.append("")

    if v.classification:
        lines += [
            "## Classification (recorded labels)",
            "",
            "| model | accuracy | macro F1 | ROC AUC | n | labels |",
            "|---|---:|---:|---:|---:|---|",
        ]
        lines += [
            f"| {cell(c.model)} | {c.accuracy} | {c.macro_f1} | {c.roc_auc} | {c.count} | {cell(c.labels)} |"
            for c in v.classification
        ]
        lines.append("")
    if v.operations:
        lines += [
            "## Generations (measured)",
            "",
            "| model | mean latency ms | p95 ms | mean tokens | mean cost | total cost | n |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {cell(o.model)} | {o.latency_ms} | {o.latency_ms_p95} | {o.tokens} | {o.cost} | {o.cost_total} | "
            f"{o.count} |"
            for o in v.operations
        ]
        lines += ["", cell(v.operations_insights), ""] if v.operations_insights else [""]
    if v.insights:
        lines += [
            "## Insights",
            "",
            "The worst failing result of each check, with the evaluator's evidence:",
            "",
            "| check | model | case | score | evidence |",
            "|---|---|---|---:|---|",
        ]
        lines += [
            f"| {cell(i.check)} {cell(i.metric)} | {cell(i.model)} | {cell(i.case_id, 60)} | {i.score} | "
            f"{cell(i.reason, 200)} |"
            for i in v.insights
        ]
        lines.append("")

    lines += _results_section("Failed checks", None, v.failures, "failed checks")
    lines += _results_section(
        "Expected failures (xfail)",
        "Failed checks of tests marked xfail that failed as expected:",
        v.expected_failures,
        "expected failures",
    )
    lines += _results_section(
        "Could not be verified offline",
        "No evidence against these answers, but not enough to "
        "confirm them either: a judge or an NLI model decides them.",
        v.unverified,
        "unverified checks",
    )
    if v.footer:
        run = v.footer
        lines.append(
            f"<sub>pytest-llm-verdict {run.plugin}, pytest {run.pytest}, Python {run.python}, {run.finished}</sub>"
        )
    return "\n".join(lines) + "\n"
