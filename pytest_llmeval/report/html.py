"""The HTML report: one self-contained file that opens offline from a CI artifact.

Failures come first (each answer beside its evidence, expected failures marked), then the score
distributions against the threshold, the baseline's before / after, the leaderboard heatmap (models by
checks), the cases-by-models grid of each check, and every result, failures first. Filters by model,
check, verdict and text run in an inline script; charts are inline SVG; a Content-Security-Policy lets
the page fetch nothing. The page is a Jinja2 template with autoescape: every text from the run, model
output above all, is escaped. What is shown comes from the report model (`.rows.ReportView`), charts included.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from . import charts
from .rows import HTML_LIMITS, Charts, ReportView, ResultRow

__all__ = ["render", "MAX_RESULTS", "MAX_FAILURES"]


#: Rows of the results table at most (failures first); the JSON report has them all.
MAX_RESULTS = HTML_LIMITS.results

#: Rows of the failures tables at most, all three together.
MAX_FAILURES = 1000

_TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


@functools.lru_cache(maxsize=1)
def _template() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    return environment.get_template("report.html.j2")


def render(report: ReportView | Mapping[str, Any]) -> str:
    """The HTML page of the report model (a JSON report dict is read by `.view.view()` first)."""
    from .view import view

    whole = report if isinstance(report, ReportView) else view(report)
    v = whole.limited(HTML_LIMITS)
    # the failures tables: failed, unverified, expected failures, MAX_FAILURES rows in all, numbered on
    groups: list[list[tuple[str, ResultRow]]] = []
    index = 0
    for found in (whole.failures, whole.unverified, whole.expected_failures):
        rows = found.rows[: max(0, MAX_FAILURES - index)]
        groups.append([(f"f{index + n}", row) for n, row in enumerate(rows)])
        index += len(rows)
    totals = [whole.failures.total, whole.unverified.total, whole.expected_failures.total]
    drawn = v.charts or Charts()  # a model built without charts (view(..., charts=False)) draws none
    return str(
        _template().render(
            v=v,
            head=v.headline,
            base=v.baseline,
            heat=v.heatmap,
            shown=charts.shown,
            hue=charts.colour,
            curve=_chart,
            zip=zip,
            failed=groups[0],
            unverified=groups[1],
            expected=groups[2],
            failed_total=totals[0],
            unverified_total=totals[1],
            expected_total=totals[2],
            failures_more=max(0, sum(totals) - index),
            results=[(f"r{n}", row) for n, row in enumerate(v.results.rows)],
            results_more=v.results.more,
            models=drawn.models,
            checks=drawn.checks,
            distributions=drawn.distributions,
            grids=drawn.grids,
            baseline_svg=drawn.baseline_svg,
            repeat_svg=drawn.repeat_svg,
        )
    )


_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")


def _chart(curves: Sequence[Any], kind: str, size: int = 140) -> str:
    """One inline SVG: each label's ROC (false vs true positive rate) or precision-recall curve, one colour each."""
    if not curves:
        return '<span class="muted">no scores</span>'
    pad = 4
    span = size - 2 * pad

    def point(x: float, y: float) -> str:
        return f"{pad + x * span:.1f},{pad + (1 - y) * span:.1f}"

    parts = [
        f'<svg width="{size}" height="{size}" role="img" '
        f'aria-label="{"ROC" if kind == "roc" else "precision-recall"} curves">',
        f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" stroke="#999"/>',
    ]
    if kind == "roc":
        parts.append(
            f'<line x1="{pad}" y1="{pad + span}" x2="{pad + span}" y2="{pad}" stroke="#ccc" stroke-dasharray="3"/>'
        )
    for index, curve in enumerate(curves):
        points = curve.roc if kind == "roc" else sorted(curve.pr)
        colour = _PALETTE[index % len(_PALETTE)]
        area = curve.roc_auc if kind == "roc" else curve.average_precision
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
            f'points="{" ".join(point(x, y) for x, y in points)}">'
            f"<title>{escape(curve.label)}: {'AUC' if kind == 'roc' else 'AP'} {area}</title></polyline>"
        )
    parts.append("</svg>")
    return "".join(parts)
