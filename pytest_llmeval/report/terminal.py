"""The terminal summary: a leaderboard per check, best model, most difficult case (from the report model)."""

from __future__ import annotations

from ..text.basics import counted
from .cells import names_within
from .rows import ReportView

__all__ = [
    "headline",
    "render_summary",
    "render_history",
    "render_judge_spend",
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


def _name_widths(v: ReportView, room: int) -> tuple[int, int]:
    """The widths of the check and model columns in ``room`` columns: check and metric on one line where they fit beside
    the whole model names, else the check names whole (the metric goes below), else the room shared between them."""
    rows = [row for board in v.leaderboard for row in board.rows]
    model = min(max([len(r.model) for r in rows] + [5]), 28)
    label = max([len(f"{b.check} {b.metric}") + (0 if b.higher_is_better else 8) for b in v.leaderboard] + [5])
    check = max([len(b.check) for b in v.leaderboard] + [5])
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


def headline(v: ReportView) -> str:
    """``126 checks on 3 models: 108 passed (86%), 1 unverified, 17 expected failures (xfail)``."""
    head = v.headline
    return (
        f"{counted(head.checks, 'check')}{head.models}: {head.passed} passed ({head.pass_rate})"
        + (f", {head.unverified} unverified" if head.unverified else "")
        + (f", {head.expected} expected failures (xfail)" if head.expected else "")
    )


def render_summary(v: ReportView, width: int = 80) -> list[str]:
    """Lines of the llmeval section, fitting ``width`` columns (80 at least), from the report model."""
    width = max(width, 80)
    head = v.headline
    lines = [headline(v)]
    unv = "  unv" if head.unverified else ""  # a column of unverified results, when there are any
    xf = "  xf" if head.expected else ""  # and one of expected failures (checks of xfail tests)
    level = v.interval_level
    check_width, model_width = _name_widths(v, width - 51 - len(unv) - len(xf))
    models = names_within([row.model for board in v.leaderboard for row in board.rows], model_width)
    header = (
        f"{'check':<{check_width}}  {'model':<{model_width}}  {'mean':>6}  {level + ' CI':>11}  {'pass':>5}  "
        f"{level + ' CI':>9}{unv}{xf}  {'n':>5}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    for board in v.leaderboard:
        pending = _label_cells(board.check, board.metric + ("" if board.higher_is_better else " (lower)"), check_width)
        for row in board.rows:
            shown = pending.pop(0) if pending else ""
            lines.append(
                f"{shown:<{check_width}}  {models[row.model]:<{model_width}}  {row.mean:>6}  {row.ci:>11}  "
                f"{row.pass_rate:>5}  {row.pass_ci:>9}"
                + (f"  {row.unverified:>3}" if unv else "")
                + (f"  {row.expected:>2}" if xf else "")
                + f"  {row.count:>5}"
            )
        lines += pending  # a label longer than its check's rows
    lines += render_repeats(v, width)
    if v.best_model:
        lines.append(f"best model: {v.best_model.name} ({v.best_model.passed}/{v.best_model.count} checks passed)")
    elif v.no_clear_best:  # whole model names: they are what the line compares
        lines.append(v.no_clear_best)
    hard = v.hardest_case
    if hard and hard.failed_by:
        lines.append(_cut(f"most difficult case: {hard.case_id} (failed by {hard.failed_by})", width))
        lines.append(_cut(f"  failed by: {hard.failed_models}", width))
    elif hard:
        lines.append(_cut(f"most difficult case: {hard.case_id} (failed)", width))
    # Not "problem:" or "failed": in a green run's log these must not read like failures.
    lines += [
        _cut(
            f"below threshold: {p.model} {p.check} mean {p.mean} {'<' if p.higher_is_better else '>'} "
            f"threshold {p.threshold:g}",
            width,
        )
        for p in v.problems[:5]
    ]
    if len(v.problems) > 5:
        lines.append(f"... and {len(v.problems) - 5} more rows below their threshold (in the JSON report)")
    if v.perturbation is not None:
        lines += render_flips(v, width)
    if v.classification:
        lines += render_classification(v, width)
    if v.operations:
        lines += render_operations(v, width)
    return lines


def render_repeats(v: ReportView, width: int = 80, limit: int = 10) -> list[str]:
    """Per row of repeated cases: pass@k and pass^k; then the flaky cases (passed in some draws, failed in others)."""
    lines = [_cut(f"repeats: {line}", width) for line in v.repeats]
    for case in v.flaky.rows[:limit]:
        model = "" if case.model == "-" else f" on {case.model}"
        lines.append(
            _cut(f"  flaky: {case.check}{model}: passed {case.passed} of {case.draws} draws: {case.case_id}", width)
        )
    if v.flaky.total > limit:
        lines.append(f"  ... {v.flaky.total - limit} more flaky cases in the report")
    return lines


def render_operations(v: ReportView, width: int = 80) -> list[str]:
    """Latency, tokens and cost of the recorded generations, per model, and the four insights."""
    rows = v.operations
    model_width = min(max([len(r.model) for r in rows] + [5]), 28)
    models = names_within([r.model for r in rows], model_width)
    lines = [
        "generations (measured):",
        f"{'model':<{model_width}}  {'latency ms':>10}  {'p95 ms':>8}  {'tokens':>7}  {'cost':>9}  {'total':>9}  "
        f"{'n':>5}",
    ]
    for r in rows:
        lines.append(
            _cut(
                f"{models[r.model]:<{model_width}}  {r.latency_ms:>10}  {r.latency_ms_p95:>8}  {r.tokens:>7}  "
                f"{r.cost:>9}  {r.cost_total:>9}  {r.count:>5}",
                width,
            )
        )
    if v.operations_insights:
        lines.append(_cut(v.operations_insights, width))
    return lines


def render_classification(v: ReportView, width: int = 80) -> list[str]:
    """The per-model table of recorded label predictions (``record_label``)."""
    rows = v.classification
    model_width = min(max([len(r.model) for r in rows] + [5]), 28)
    models = names_within([r.model for r in rows], model_width)
    lines = [
        "classification (recorded labels):",
        f"{'model':<{model_width}}  {'accuracy':>8}  {'macro F1':>8}  {'ROC AUC':>7}  {'n':>5}  labels",
    ]
    for row in rows:
        lines.append(
            _cut(
                f"{models[row.model]:<{model_width}}  {row.accuracy:>8}  {row.macro_f1:>8}  {row.roc_auc:>7}  "
                f"{row.count:>5}  {row.labels}",
                width,
            )
        )
    return lines


def render_flips(v: ReportView, width: int = 80) -> list[str]:
    """The "Perturbation flips" table: checks whose outcome changed under a perturbation."""
    if v.perturbation is None:
        return []
    flips = v.perturbation.flips.rows
    kinds = {k: sum(f.kind == k for f in flips) for k in ("broke", "fixed", "moved")}
    counted = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
    lines = [
        f"perturbation flips: {len(flips)}"
        + (f" ({counted})" if counted else "")
        + f" in {v.perturbation.checks} perturbed checks"
    ]
    if not flips:
        return lines
    cells = [
        (f.case_id, f.model, f"{f.check} {f.metric}", f.perturbation, f.before, f.after, f.kind)
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


def render_history(v: ReportView, width: int = 80, limit: int = 10) -> list[str]:
    """The saved runs' history: its sentence, then each row drifting or falling (its pass rate by run, and what)."""
    if v.history is None:
        return []
    lines = [f"history: {v.history.sentence}"]
    notable = v.history.notable
    for h in notable[:limit]:
        model = "" if h.model == "-" else f" on {h.model}"
        lines.append(_cut(f"  {h.check} {h.metric}{model}: {h.trend} last {h.pass_rate} ({h.pass_ci})", width))
        lines.append(f"    {h.what}")
    if len(notable) > limit:
        lines.append(f"  ... {len(notable) - limit} more rows drifting or falling in the report")
    return lines


def render_judge_spend(v: ReportView, limit: int = 5) -> list[str]:
    """The judge's spend against judge.spend_limit, then the checks that spent most (new calls; replays are free)."""
    lines = [v.judge_limit] if v.judge_limit else []
    costly = sorted((row for row in v.judge_spend if row.calls), key=lambda r: (-float(r.cost), -r.tokens, r.check))
    for row in costly[:limit]:
        model = "" if row.model == "-" else f" on {row.model}"
        lines.append(
            f"judge spend: {row.check}{model}: {row.calls} calls, {row.tokens} tokens, cost {row.cost}; "
            f"{row.replayed} replayed"
        )
    return lines
