"""The terminal summary: a leaderboard per check, best model, most difficult case."""

from __future__ import annotations

from ..aggregate import Summary

__all__ = ["render_summary"]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render_summary(summary: Summary, width: int = 80) -> list[str]:
    """Lines of the llmeval section, fitting ``width`` columns (80 at least)."""
    width = max(width, 80)
    lines = [
        f"{summary.checks} checks on {len(summary.models)} model(s): "
        f"{summary.passed} passed ({summary.pass_rate:.0%})"
    ]
    model_width = min(max([len(r.model) for r in summary.rows] + [5]), 28)
    check_width = min(max([len(f"{r.check} {r.metric}") for r in summary.rows] + [5]), width - model_width - 30)
    header = f"{'check':<{check_width}}  {'model':<{model_width}}  {'mean':>6}  {'pass':>5}  {'n':>5}"
    lines.append(header)
    lines.append("-" * len(header))
    previous = None
    for row in summary.rows:
        label = f"{row.check} {row.metric}" + ("" if row.higher_is_better else " (lower)")
        shown = _cut(label, check_width) if row.check != previous else ""
        previous = row.check
        mean = "n/a" if row.mean is None else f"{row.mean:.3f}"
        lines.append(
            f"{shown:<{check_width}}  {_cut(row.model, model_width):<{model_width}}  {mean:>6}  "
            f"{row.pass_rate:>5.0%}  {row.count:>5}"
        )
    if summary.best_model:
        passed, count = summary.model_totals[summary.best_model]
        lines.append(f"best model: {summary.best_model} ({passed}/{count} checks passed)")
    if summary.hardest_case:
        hard = summary.hardest_case
        line = f"most difficult case: {hard.case_id} (failed by {len(hard.failed_models)}/{hard.models} model(s))"
        lines.append(_cut(line, width))
        lines.append(_cut(f"  failed by: {', '.join(hard.failed_models)}", width))
    return lines
