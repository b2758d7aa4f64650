"""The terminal summary: a leaderboard per check, best model, most difficult case."""

from __future__ import annotations

from dataclasses import asdict

from ..core.result import NO_MODEL
from ..text.basics import counted
from .aggregate import Summary, models_phrase, shown_model
from .boards import repeats_line
from .cells import interval, names_within

__all__ = [
    "render_summary",
    "render_repeats",
    "render_flips",
    "render_classification",
    "render_operations",
    "MAX_FLIP_LINES",
]


#: Flips listed at most in the terminal; every report has them all.
MAX_FLIP_LINES = 20


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _name_widths(summary: Summary, room: int) -> tuple[int, int]:
    """The widths of the check and model columns in ``room`` columns: check and metric on one line where they fit beside
    the whole model names, else the check names whole (the metric goes below), else the room shared between them."""
    model = min(max([len(shown_model(r.model)) for r in summary.rows] + [5]), 28)
    label = max([len(f"{r.check} {r.metric}") + (0 if r.higher_is_better else 8) for r in summary.rows] + [5])
    check = max([len(r.check) for r in summary.rows] + [5])
    if label + model <= room:
        return label, model
    if check + model <= room:
        return room - model, model
    check = max(min(check, room - 12), room // 2)  # a model name keeps 12 columns at least
    return check, room - check


def _label_cells(check: str, metric: str, width: int) -> list[str]:
    """A leaderboard row's check and metric, on one line when they fit, else the check on one and the metric indented
    below it (each cut only when it alone is too long): never a check name cut into its metric."""
    label = f"{check} {metric}"
    if len(label) <= width:
        return [label]
    return [_cut(check, width), _cut(f"  {metric}", width)]


def render_summary(summary: Summary, width: int = 80) -> list[str]:
    """Lines of the llmeval section, fitting ``width`` columns (80 at least)."""
    width = max(width, 80)
    unverified = summary.unverified_count
    lines = [
        f"{counted(summary.checks, 'check')}{models_phrase(summary.models)}: {summary.passed} passed "
        f"({summary.pass_rate:.0%})"
        + (f", {unverified} unverified" if unverified else "")
        + (f", {summary.expected_failures} expected failures (xfail)" if summary.expected_failures else "")
    ]
    unv = "  unv" if unverified else ""  # a column of unverified results, when there are any
    xf = "  xf" if summary.expected_failures else ""  # and one of expected failures (checks of xfail tests)
    level = f"{1 - summary.alpha:.0%}"
    check_width, model_width = _name_widths(summary, width - 51 - len(unv) - len(xf))
    models = names_within([shown_model(r.model) for r in summary.rows], model_width)
    header = (
        f"{'check':<{check_width}}  {'model':<{model_width}}  {'mean':>6}  {level + ' CI':>11}  {'pass':>5}  "
        f"{level + ' CI':>9}{unv}{xf}  {'n':>5}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    pending: list[str] = []  # what is left of the current check's label, one cell per line
    for index, row in enumerate(summary.rows):
        if index == 0 or row.check != summary.rows[index - 1].check:
            lines += pending  # a label longer than its check's rows
            pending = _label_cells(row.check, row.metric + ("" if row.higher_is_better else " (lower)"), check_width)
        shown = pending.pop(0) if pending else ""
        mean = "n/a" if row.mean is None else f"{row.mean:.3f}"
        lines.append(
            f"{shown:<{check_width}}  {models[shown_model(row.model)]:<{model_width}}  {mean:>6}  "
            f"{interval(row.ci_low, row.ci_high):>11}  {row.pass_rate:>5.0%}  "
            f"{interval(row.pass_ci_low, row.pass_ci_high, percent=True):>9}"
            + (f"  {row.unverified:>3}" if unv else "")
            + (f"  {row.expected:>2}" if xf else "")
            + f"  {row.count:>5}"
        )
    lines += pending
    lines += render_repeats(summary, width)
    if summary.best_model:
        passed, count = summary.model_totals[summary.best_model]
        lines.append(f"best model: {summary.best_model} ({passed}/{count} checks passed)")
    elif summary.no_clear_best:  # whole model names: they are what the line compares
        lines.append(summary.no_clear_best)
    if summary.hardest_case:
        hard = summary.hardest_case
        failed = [m for m in hard.failed_models if m != NO_MODEL]
        if failed:
            failed_by = f"{len(hard.failed_models)}/{counted(hard.models, 'model')}"
            line = f"most difficult case: {hard.case_id} (failed by {failed_by})"
            lines.append(_cut(line, width))
            lines.append(_cut(f"  failed by: {', '.join(hard.failed_models)}", width))
        else:
            lines.append(_cut(f"most difficult case: {hard.case_id} (failed)", width))
    problems = summary.problems
    if problems:
        # Not "problem:" or "failed": in a green run's log these must not read like failures.
        lines += [
            _cut(
                f"below threshold: {shown_model(row.model)} {row.check} mean {row.mean:.3f} "
                f"{'<' if row.higher_is_better else '>'} "
                f"threshold {row.threshold:g}",
                width,
            )
            for row in problems[:5]
        ]
        if len(problems) > 5:
            lines.append(f"... and {len(problems) - 5} more rows below their threshold (in the JSON report)")
    if summary.perturbed_checks:
        lines += render_flips(summary, width)
    if summary.classification:
        lines += render_classification(summary, width)
    if summary.operations:
        lines += render_operations(summary, width)
    return lines


def render_repeats(summary: Summary, width: int = 80, limit: int = 10) -> list[str]:
    """Per row of repeated cases: pass@k and pass^k; then the flaky cases (passed in some draws, failed in others)."""
    lines = []
    for row in summary.rows:
        if row.k is None:
            continue
        lines.append(
            _cut(
                f"repeats: {repeats_line({**asdict(row), 'model': None if row.model == NO_MODEL else row.model})}",
                width,
            )
        )
    flaky = summary.flaky
    for case in flaky[:limit]:
        model = "" if case.model == NO_MODEL else f" on {case.model}"
        lines.append(
            _cut(f"  flaky: {case.check}{model}: passed {case.passed} of {case.draws} draws: {case.case_id}", width)
        )
    if len(flaky) > limit:
        lines.append(f"  ... {len(flaky) - limit} more flaky cases in the report")
    return lines


def _n(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_operations(summary: Summary, width: int = 80) -> list[str]:
    """Latency, tokens and cost of the recorded generations, per model, and the four insights."""
    from .generations import operations_insights

    rows = summary.operations
    model_width = min(max([len(shown_model(r.model)) for r in rows] + [5]), 28)
    models = names_within([shown_model(r.model) for r in rows], model_width)
    lines = [
        "generations (measured):",
        f"{'model':<{model_width}}  {'latency ms':>10}  {'p95 ms':>8}  {'tokens':>7}  {'cost':>9}  {'total':>9}  "
        f"{'n':>5}",
    ]
    for r in rows:
        lines.append(
            _cut(
                f"{models[shown_model(r.model)]:<{model_width}}  {_n(r.latency_ms_mean):>10}  "
                f"{_n(r.latency_ms_p95):>8}  {_n(r.tokens_mean):>7}  {_n(r.cost_mean, 6):>9}  {_n(r.cost_total, 6):>9} "
                " "
                f"{r.count:>5}",
                width,
            )
        )
    insights = operations_insights(rows)
    if insights:
        lines.append(_cut("; ".join(f"{key.replace('_', ' ')}: {model}" for key, model in insights.items()), width))
    return lines


def render_classification(summary: Summary, width: int = 80) -> list[str]:
    """The per-model table of recorded label predictions (``record_label``)."""
    rows = summary.classification
    model_width = min(max([len(shown_model(r.model)) for r in rows] + [5]), 28)
    models = names_within([shown_model(r.model) for r in rows], model_width)
    lines = [
        "classification (recorded labels):",
        f"{'model':<{model_width}}  {'accuracy':>8}  {'macro F1':>8}  {'ROC AUC':>7}  {'n':>5}  labels",
    ]
    for row in rows:
        auc = "n/a" if row.roc_auc is None else f"{row.roc_auc:.3f}"
        lines.append(
            _cut(
                f"{models[shown_model(row.model)]:<{model_width}}  {row.accuracy:>8.3f}  "
                f"{row.macro_f1:>8.3f}  "
                f"{auc:>7}  {row.count:>5}  {', '.join(row.labels)}",
                width,
            )
        )
    return lines


def render_flips(summary: Summary, width: int = 80) -> list[str]:
    """The "Perturbation flips" table: checks whose outcome changed under a perturbation."""
    flips = summary.flips
    kinds = {k: sum(f.kind == k for f in flips) for k in ("broke", "fixed", "moved")}
    counted = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
    lines = [
        f"perturbation flips: {len(flips)}"
        + (f" ({counted})" if counted else "")
        + f" in {summary.perturbed_checks} perturbed checks"
    ]
    if not flips:
        return lines
    cells = [
        (
            f.case_id,
            f.model,
            f"{f.check} {f.metric}",
            f.perturbation,
            "n/a" if f.original_score is None else f"{f.original_score:.3f}",
            "n/a" if f.perturbed_score is None else f"{f.perturbed_score:.3f}",
            f.kind,
        )
        for f in flips[:MAX_FLIP_LINES]
    ]
    head = ("case", "model", "check", "perturbation", "before", "after", "flip")
    free = max(width - (6 + 6 + 5 + 2 * 6), 40)
    widths = [max(len(row[i]) for row in [head, *cells]) for i in range(4)]
    while sum(widths) > free:  # shrink the widest column first
        widest = max(range(4), key=widths.__getitem__)
        if widths[widest] <= 6:
            break
        widths[widest] -= 1
    widths += [6, 6, 5]
    lines.append(
        "  ".join(
            f"{h:<{w}}" if i < 4 or i == 6 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(head, widths))
        ).rstrip()
    )
    for row in cells:
        lines.append(
            "  ".join(
                f"{_cut(c, w):<{w}}" if i < 4 or i == 6 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(row, widths))
            ).rstrip()
        )
    if len(flips) > MAX_FLIP_LINES:
        lines.append(f"... {len(flips) - MAX_FLIP_LINES} more flips in the report")
    return lines
