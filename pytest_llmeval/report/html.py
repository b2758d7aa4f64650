"""The HTML report: one self-contained file that opens offline from a CI artifact.

Failures come first (each answer beside its evidence, expected failures marked), then the score
distributions against the threshold, the baseline's before / after, the leaderboard heatmap (models by
checks), the cases-by-models grid of each check, and every result, failures first. Filters by model,
check, verdict and text run in an inline script; charts are inline SVG; a Content-Security-Policy lets
the page fetch nothing. The page is a Jinja2 template with autoescape: every text from the run, model
output above all, is escaped. What is shown comes from `.view.view()` and `.charts`.
"""

from __future__ import annotations

import functools
from collections import Counter
import os
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..core.result import verdict_of
from . import charts
from .baselineview import new_failures
from .view import HTML_LIMITS, Limits, result_row, view

__all__ = ["render", "MAX_RESULTS", "MAX_FAILURES"]


#: Rows of the results table at most (failures first); the JSON report has them all.
MAX_RESULTS = HTML_LIMITS.results

#: Rows of the failures table at most.
MAX_FAILURES = 1000

#: Cases per check in the cases-by-models grid (the hardest first).
MAX_GRID_CASES = 100

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


def _order(record: Mapping[str, Any]) -> int:
    """Failed, unverified, expected failure (xfail), passed."""
    if not record.get("passed"):
        return 2 if record.get("outcome") == "xfailed" else 0
    return 1 if verdict_of(record) == "unverified" else 3


def render(report: dict[str, Any]) -> str:
    v = view(report, Limits(flips=HTML_LIMITS.flips, changes=HTML_LIMITS.changes, failures=0, results=0))
    records: list[Mapping[str, Any]] = [r for r in report.get("results") or [] if isinstance(r, Mapping)]
    # stable: test-id order within
    ranked = sorted(((_order(record), record) for record in records), key=lambda pair: pair[0])
    shown = [record for _, record in ranked[:MAX_RESULTS]]
    anchors = {id(record): f"#r{index}" for index, record in enumerate(shown)}
    new = new_failures(report.get("baseline"))  # marked "new" as in the Markdown and the comment
    results = [(f"r{index}", result_row(record, new)) for index, record in enumerate(shown)]
    not_passed = [pair for pair in ranked if pair[0] < 3][:MAX_FAILURES]
    groups: dict[int, list[tuple[str, Any]]] = {0: [], 1: [], 2: []}
    for index, (group, record) in enumerate(not_passed):
        groups[group].append((f"f{index}", result_row(record, new)))
    counted = Counter(group for group, _ in ranked)
    totals = [counted[group] for group in range(3)]
    models = sorted({charts.shown(r.get("model")) for r in records})
    base_rows = (report.get("baseline") or {}).get("rows") or []
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
            failures_more=max(0, sum(totals) - len(not_passed)),
            results=results,
            results_more=max(0, len(records) - len(shown)),
            models=models,
            checks=sorted({str(r.get("evaluator", "")) for r in records}),
            distributions=charts.distributions(records),
            grids=charts.grids(records, anchors, MAX_GRID_CASES),
            baseline_svg=charts.baseline_chart(base_rows),
            repeat_svg=charts.repeat_chart(records),
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
