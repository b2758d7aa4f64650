"""What the HTML report draws, read from the JSON report: score distributions against the threshold, the baseline's
before / after per leaderboard row, pass rates of repeated cases, and the cases-by-models grid of each check.

Every chart is an inline SVG string built here from numbers only; every label in it is escaped. Nothing is fetched.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, cast

from ..core.result import verdict_of
from .aggregate import shown_model
from .cells import number
from .findings import perturbation_of

if TYPE_CHECKING:
    from ..core.result import Record

__all__ = [
    "NO_MODEL_LABEL",
    "Distribution",
    "GridCell",
    "Grid",
    "distributions",
    "grids",
    "baseline_chart",
    "repeat_chart",
    "history_chart",
    "goodness",
    "colour",
]

#: How a result without a model under test is shown (its leaderboard rows are the tests without a ``model``).
NO_MODEL_LABEL = "(no model)"

#: Bins of a distribution chart.
BINS = 20


def shown(model: str | None) -> str:
    """The model's name, or `NO_MODEL_LABEL` where the leaderboard shows "-" (a test without a model)."""
    label = shown_model(model or None)
    return NO_MODEL_LABEL if label == "-" else label


def colour(good: float | None) -> str:
    """Red (0) through yellow to green (1); grey when there is no score."""
    if good is None:
        return "#eaeef2"
    return f"hsl({int(120 * min(1.0, max(0.0, good)))},70%,80%)"


def goodness(value: float | None, low: float, high: float, higher_is_better: bool) -> float | None:
    """Where ``value`` lies between ``low`` and ``high``, 1 the good end (direction-aware)."""
    if value is None or not math.isfinite(value):
        return None
    share = 0.5 if high <= low else (min(high, max(low, value)) - low) / (high - low)
    return share if higher_is_better else 1.0 - share


def _originals(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in records if perturbation_of(cast("Record", r)) is None]


def _primary(record: Mapping[str, Any]) -> float | None:
    value = (record.get("metrics") or {}).get(record.get("primary"))
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        else None
    )


# -- score distributions ----------------------------------------------------------------


@dataclass(frozen=True)
class Distribution:
    check: str
    metric: str
    model: str
    count: int
    passed: int
    svg: str


def _range(values: Sequence[float], threshold: float | None) -> tuple[float, float]:
    points = [*values, *([threshold] if threshold is not None else [])]
    low, high = min(points), max(points)
    if 0.0 <= low and high <= 1.0:
        return 0.0, 1.0
    return (low, high) if high > low else (low - 1.0, high + 1.0)


#: A bar's colour by the verdict of the answers in it (not by where the score falls: an answer can fail on evidence with
#: a score above the threshold).
VERDICT_COLOURS = (("fail", "#cf222e"), ("unverified", "#bf8700"), ("pass", "#2da44e"))


#: A cell's background by its answer's verdict (light tints of `VERDICT_COLOURS`, the text stays readable); grey: none.
VERDICT_TINTS = {"fail": "#ffd8d3", "unverified": "#fff1c2", "pass": "#d5f5dc", "": "#eaeef2"}


def _histogram(
    scored: Sequence[tuple[float, str]],
    low: float,
    high: float,
    threshold: float | None,
    higher: bool,
    label: str,
    width: int = 240,
    height: int = 56,
) -> str:
    """``(score, verdict)`` pairs as a histogram whose bars stack the verdicts of their answers (failed at the
    bottom)."""
    counts = [{verdict: 0 for verdict, _ in VERDICT_COLOURS} for _ in range(BINS)]
    for value, verdict in scored:
        index = BINS - 1 if high <= low else min(BINS - 1, int((value - low) / (high - low) * BINS))
        counts[index][verdict if verdict in counts[index] else "fail"] += 1
    top = max(sum(c.values()) for c in counts) or 1
    step = width / BINS
    parts = [
        f'<svg width="{width}" height="{height + 14}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>'
    ]
    if threshold is not None and high > low:
        x = (min(high, max(low, threshold)) - low) / (high - low) * width
        start, span = (x, width - x) if higher else (0.0, x)
        parts.append(f'<rect x="{start:.1f}" y="0" width="{span:.1f}" height="{height}" fill="#e6f4ea"/>')
    for index, bin_counts in enumerate(counts):
        base = float(height)
        said = ", ".join(f"{n} {verdict}" for verdict, n in bin_counts.items() if n)
        for verdict, fill in VERDICT_COLOURS:
            if bin_counts[verdict]:
                bar = bin_counts[verdict] / top * (height - 2)
                base -= bar
                parts.append(
                    f'<rect class="bar-{verdict}" x="{index * step + 0.5:.1f}" y="{base:.1f}" width="{step - 1:.1f}" '
                    f'height="{bar:.1f}" fill="{fill}"><title>{said}</title></rect>'
                )
    if threshold is not None and high > low:
        x = (min(high, max(low, threshold)) - low) / (high - low) * width
        parts.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height}" stroke="#1b1f24" stroke-dasharray="3,2"/>')
    parts.append(
        f'<line x1="0" y1="{height}" x2="{width}" y2="{height}" stroke="#8c959f"/>'
        f'<text x="0" y="{height + 12}" font-size="10" fill="#57606a">{escape(number(low))}</text>'
        f'<text x="{width}" y="{height + 12}" font-size="10" fill="#57606a" '
        f'text-anchor="end">{escape(number(high))}</text>'
        "</svg>"
    )
    return "".join(parts)


def distributions(records: Sequence[Mapping[str, Any]]) -> list[Distribution]:
    """Per check and model (original inputs), the primary scores as a histogram against the threshold."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for record in _originals(records):
        groups[(record["evaluator"], record["primary"], shown(record.get("model")))].append(record)
    out = []
    for (check, metric, model), group in sorted(groups.items()):
        scored = [(v, verdict_of(r)) for r in group if (v := _primary(r)) is not None]
        values = [v for v, _ in scored]
        if not values:
            continue
        threshold = (group[0].get("thresholds") or {}).get(metric)
        threshold = float(threshold) if isinstance(threshold, (int, float)) else None
        higher = bool((group[0].get("higher_is_better") or {}).get(metric, True))
        low, high = _range(values, threshold)
        label = (
            f"{check} {metric}, {model}: {len(values)} scores"
            + (f", threshold {number(threshold)}" if threshold is not None else "")
            + (" (higher is better)" if higher else " (lower is better)")
        )
        out.append(
            Distribution(
                check,
                metric,
                model,
                len(values),
                sum(bool(r.get("passed")) for r in group),
                _histogram(scored, low, high, threshold, higher, label),
            )
        )
    return out


# -- the cases-by-models grid -------------------------------------------------------------


@dataclass(frozen=True)
class GridCell:
    score: str
    verdict: str  # "pass", "fail", "unverified", "" when the model has no result for the case
    colour: str
    anchor: str  # "#r12" when the result is in the results table, else ""
    tip: str  # the answer and the evidence


@dataclass(frozen=True)
class Grid:
    check: str
    metric: str
    direction: str
    models: tuple[str, ...]
    rows: tuple[tuple[str, tuple[GridCell, ...]], ...]  # (case id, one cell per model), hardest case first
    more: int  # cases left out


def grids(records: Sequence[Mapping[str, Any]], anchors: Mapping[int, str], max_cases: int = 100) -> list[Grid]:
    """Per check: one row per case, one column per model, each cell the case's primary score, coloured by its verdict
    (an answer that fails on evidence is red whatever its score).

    ``anchors`` maps ``id(record)`` to the results table's anchor of that record, where it is shown.
    """
    by_check: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in _originals(records):
        by_check[record["evaluator"]].append(record)
    out = []
    for check, group in sorted(by_check.items()):
        metric = group[0]["primary"]
        higher = bool((group[0].get("higher_is_better") or {}).get(metric, True))
        values = [v for v in map(_primary, group) if v is not None]
        low, high = _range(values, None) if values else (0.0, 1.0)
        models = tuple(sorted({shown(r.get("model")) for r in group}))
        cells: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
        for record in group:
            case = str(record.get("case_id") or record.get("nodeid", ""))
            cells[case].setdefault(shown(record.get("model")), record)  # a repeated case: its first draw

        def badness(case: str) -> tuple[float, str]:
            marks = [goodness(_primary(r), low, high, higher) for r in cells[case].values()]
            failed = sum(not r.get("passed") for r in cells[case].values())
            known = [m for m in marks if m is not None]
            return (-failed + (sum(known) / len(known) if known else 0.0), case)

        cases = sorted(cells, key=badness)
        rows = []
        for case in cases[:max_cases]:
            row = []
            for model in models:
                found = cells[case].get(model)
                if found is None:
                    row.append(GridCell("", "", VERDICT_TINTS[""], "", "no result"))
                    continue
                value = _primary(found)
                tip = f"{found.get('reason', '')}\n\n{found.get('excerpt') or ''}"
                verdict = verdict_of(found)
                row.append(
                    GridCell(
                        number(value),
                        verdict,
                        VERDICT_TINTS.get(verdict, VERDICT_TINTS[""]),
                        anchors.get(id(found), ""),
                        tip[:600],
                    )
                )
            rows.append((case, tuple(row)))
        out.append(
            Grid(
                check,
                metric,
                "higher is better" if higher else "lower is better",
                models,
                tuple(rows),
                max(0, len(cases) - max_cases),
            )
        )
    return out


# -- the baseline's before / after ---------------------------------------------------------


def baseline_chart(rows: Sequence[Mapping[str, Any]], width: int = 520, row_height: int = 22) -> str:
    """One line per leaderboard row: before (hollow) and after (filled) on a shared axis, and the difference's interval
    as a band from the baseline (so it holds the after point); regressions red, improvements green."""
    usable = [r for r in rows if isinstance(r.get("before"), (int, float)) and isinstance(r.get("after"), (int, float))]
    if not usable:
        return ""
    label_width = 220
    span = width - label_width - 20
    points = [
        v
        for r in usable
        for v in (
            r["before"],
            r["after"],
            r["before"] + (r.get("ci_low") or 0.0),
            r["before"] + (r.get("ci_high") or 0.0),
        )
    ]
    low, high = float(min(0.0, *points)), float(max(1.0, *points))

    def x(value: float) -> float:
        return label_width + (value - low) / (high - low) * span

    height = row_height * len(usable) + 20
    parts = [
        f'<svg width="{width}" height="{height}" role="img" '
        f'aria-label="before and after, per leaderboard row"><title>before and after, per leaderboard row</title>'
    ]
    for index, row in enumerate(usable):
        y = index * row_height + 12
        tint = {"regressed": "#cf222e", "improved": "#1a7f37"}.get(row.get("verdict", ""), "#57606a")
        label = f"{row.get('check', '')} {row.get('measure', '')} · {shown(row.get('model'))}"
        before, after = float(row["before"]), float(row["after"])
        lo, hi = float(row.get("ci_low") or 0.0), float(row.get("ci_high") or 0.0)  # the difference's interval
        parts.append(
            f'<text x="0" y="{y + 4}" font-size="11" fill="#1b1f24">{escape(label[:40])}</text>'
            f'<line x1="{x(before + lo):.1f}" y1="{y}" x2="{x(before + hi):.1f}" y2="{y}" stroke="{tint}" '
            f'stroke-width="6" stroke-opacity="0.25"/>'
            f'<line x1="{x(before):.1f}" y1="{y}" x2="{x(after):.1f}" y2="{y}" stroke="{tint}"/>'
            f'<circle cx="{x(before):.1f}" cy="{y}" r="4" fill="#fff" stroke="{tint}"/>'
            f'<circle cx="{x(after):.1f}" cy="{y}" r="4" fill="{tint}"><title>{escape(label)}: {number(before)} → '
            f"{number(after)} ({escape(str(row.get('verdict', '')))})</title></circle>"
        )
    axis = height - 6
    parts.append(
        f'<line x1="{label_width}" y1="{axis - 6}" x2="{label_width + span}" y2="{axis - 6}" stroke="#8c959f"/>'
        f'<text x="{label_width}" y="{axis + 4}" font-size="10" fill="#57606a">{number(low)}</text>'
        f'<text x="{label_width + span}" y="{axis + 4}" font-size="10" fill="#57606a" text-anchor="end">{number(high)}'
        "</text></svg>"
    )
    return "".join(parts)


# -- repeated cases ---------------------------------------------------------------------------


def repeat_chart(records: Sequence[Mapping[str, Any]], max_bars: int = 60, width: int = 520) -> str:
    """Pass rate of each repeated case (check, model, case over its draws), worst first: one bar each."""
    draws: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for record in _originals(records):
        draws[(record["evaluator"], shown(record.get("model")), str(record.get("case_id") or ""))].append(
            bool(record.get("passed"))
        )
    repeated = sorted(
        ((sum(v) / len(v), key, len(v)) for key, v in draws.items() if len(v) > 1), key=lambda t: (t[0], t[1])
    )
    if not repeated:
        return ""
    shown_bars = repeated[:max_bars]
    step = width / len(shown_bars)
    height = 80
    parts = [
        f'<svg width="{width}" height="{height + 14}" role="img" '
        f'aria-label="pass rate of each repeated case"><title>pass rate of each repeated case, worst first</title>'
    ]
    for index, (rate, (check, model, case), count) in enumerate(shown_bars):
        bar = max(1.0, rate * height)
        parts.append(
            f'<rect x="{index * step + 0.5:.1f}" y="{height - bar:.1f}" width="{max(1.0, step - 1):.1f}" '
            f'height="{bar:.1f}" '
            f'fill="{colour(rate)}" stroke="#8c959f" stroke-width="0.5"><title>{escape(case)} · {escape(model)} · '
            f"{escape(check)}: {rate:.0%} of {count} draws</title></rect>"
        )
    parts.append(
        f'<line x1="0" y1="{height}" x2="{width}" y2="{height}" stroke="#8c959f"/>'
        f'<text x="0" y="{height + 12}" font-size="10" fill="#57606a">{len(repeated)} repeated case(s)'
        + (f", the {max_bars} worst shown" if len(repeated) > max_bars else "")
        + "</text></svg>"
    )
    return "".join(parts)


# -- runs over time ---------------------------------------------------------------------------

#: A history chart's colour by the row's verdict over the saved runs.
HISTORY_COLOURS = {"drift": "#cf222e", "falling": "#bf8700", "steady": "#2da44e"}


def history_chart(points: Sequence[tuple[str, float]], verdict: str, width: int = 160, height: int = 36) -> str:
    """A row's pass rate by saved run, oldest first, as a small line from its lowest to its highest (10 points at
    least), titled with both; coloured by the row's verdict (drifting red, falling amber, steady green), each point
    titled with its run."""
    if not points:
        return ""
    tint = HISTORY_COLOURS.get(verdict, "#57606a")
    step = (width - 8) / max(1, len(points) - 1)
    rates = [rate for _, rate in points]
    low = min(rates)
    span = max(max(rates) - low, 0.1)  # from the row's lowest to its highest, 10 points at least (as the terminal's)

    def at(index: int, rate: float) -> tuple[float, float]:
        return 4 + index * step, 4 + (1.0 - (rate - low) / span) * (height - 8)

    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (at(i, rate) for i, (_, rate) in enumerate(points)))
    parts = [
        f'<svg width="{width}" height="{height}" role="img" aria-label="pass rate by saved run ({escape(verdict)})">'
        f"<title>pass rate by saved run: {low:.0%} to {max(rates):.0%}</title>"
        f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="none" stroke="#d0d7de"/>'
        f'<polyline fill="none" stroke="{tint}" stroke-width="1.5" points="{line}"/>'
    ]
    for index, (run, rate) in enumerate(points):
        x, y = at(index, rate)
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{tint}"><title>{escape(run)}: {rate:.0%}</title></circle>'
        )
    parts.append("</svg>")
    return "".join(parts)
