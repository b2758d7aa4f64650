"""The HTML report: one self-contained file (no scripts, fonts or links to fetch).

The leaderboard is a heatmap, models by checks, each cell coloured by how good
the mean of the primary metric is (red bad, green good; direction-aware). Every
piece of text from the run, model outputs above all, is HTML-escaped.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from ..aggregate import models_phrase, outcome_counts_line, shown_model

__all__ = ["render"]

MAX_RESULTS = 2000
MAX_FLIPS = 500

_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;color:#1b1f24}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}
th{background:#f6f8fa;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.heat{text-align:center;min-width:6em}.fail{color:#b42318;font-weight:600}.pass{color:#067647}
pre{white-space:pre-wrap;max-width:60em;margin:0;font-size:12px}.muted{color:#57606a}
"""


def _colour(goodness: float) -> str:
    """Red (0) through yellow to green (1)."""
    goodness = min(1.0, max(0.0, goodness))
    hue = int(120 * goodness)
    return f"hsl({hue},70%,80%)"


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render(report: dict[str, Any]) -> str:
    summary = report["summary"]
    run = report["run"]
    e = escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        "<title>LLM evaluation report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>LLM evaluation</h1>",
        f"<p>{summary['checks']} checks{models_phrase(summary['models'])}: "
        f"<b>{summary['passed']} passed</b> ({summary['pass_rate']:.0%}).</p>",
    ]
    if report.get("tests"):
        out.append(f"<p>Tests (pytest's outcomes, with or without checks): {e(outcome_counts_line(report['tests']))}.</p>")
    if summary.get("best_model"):
        out.append(f"<p>Best model: <b>{e(summary['best_model'])}</b></p>")
    hard = summary.get("hardest_case")
    if hard and hard["failed_models"]:
        out.append(
            f"<p>Most difficult case: <code>{e(hard['case_id'])}</code>, failed by "
            f"{len(hard['failed_models'])}/{hard['models']} model(s): {e(', '.join(hard['failed_models']))}</p>"
        )
    elif hard:
        out.append(f"<p>Most difficult case: <code>{e(hard['case_id'])}</code> (failed)</p>")

    rows = summary["leaderboard"]
    checks = list(dict.fromkeys((r["check"], r["metric"], r["higher_is_better"]) for r in rows))
    models = list(dict.fromkeys(r["model"] for r in sorted(rows, key=lambda r: (r["model"] is None, r["model"] or ""))))
    cells: dict[tuple[str, str], dict[str, Any]] = {(r["model"], r["check"]): r for r in rows}
    if checks:
        out.append("<h2>Leaderboard</h2><table><tr><th>model</th>")
        for check, metric, higher in checks:
            arrow = "↑" if higher else "↓"
            out.append(f"<th>{e(check)}<br><span class=muted>{e(metric)} {arrow}</span></th>")
        out.append("</tr>")
        for model in models:
            out.append(f"<tr><th>{e(shown_model(model))}</th>")
            for check, _metric, higher in checks:
                row = cells.get((model, check))
                if row is None:
                    out.append('<td class="heat muted">–</td>')
                    continue
                mean = row["mean"]
                goodness = row["pass_rate"] if mean is None else (mean if higher else 1.0 - mean)
                out.append(
                    f'<td class="heat" style="background:{_colour(goodness)}" title="{e(row["signature"])}">'
                    f"{_num(mean)}<br><span class=muted>{row['pass_rate']:.0%} of {row['count']}</span></td>"
                )
            out.append("</tr>")
        out.append("</table>")

    if summary.get("perturbed_checks"):
        flips = summary.get("flips", [])
        out.append(f"<h2>Perturbation flips</h2><p>{len(flips)} flip(s) in {summary['perturbed_checks']} checks on perturbed inputs.</p>")
        if flips:
            out.append("<table><tr><th>case</th><th>model</th><th>check</th><th>perturbation</th><th>before</th><th>after</th>"
                       "<th>flip</th><th>test</th></tr>")
            for flip in flips[:MAX_FLIPS]:
                kind = f'<span class="fail">{e(flip["kind"])}</span>' if flip["kind"] == "broke" else e(flip["kind"])
                out.append(
                    f"<tr><td>{e(flip['case_id'])}</td><td>{e(shown_model(flip['model']))}</td><td>{e(flip['check'])} "
                    f"<span class=muted>{e(flip['metric'])}</span></td><td>{e(flip['perturbation'])}</td>"
                    f"<td class=num>{_num(flip['original_score'])}</td><td class=num>{_num(flip['perturbed_score'])}</td>"
                    f"<td>{kind}</td><td>{e(flip.get('nodeid') or '')}</td></tr>"
                )
            out.append("</table>")
            if len(flips) > MAX_FLIPS:
                out.append(f"<p class=muted>{len(flips) - MAX_FLIPS} more flips are in the JSON report.</p>")
    baseline = report.get("baseline")
    if baseline:
        out.append(f"<h2>Compared with baseline</h2><p><code>{e(baseline['baseline'])}</code>: <b>{baseline['regressions']} "
                   f"regression(s)</b>, {baseline['improvements']} improvement(s) in {baseline['compared']} comparable result(s); "
                   f"{len(baseline['not_comparable'])} not comparable, {baseline['new']} new, {baseline['missing']} gone.</p>")
        if baseline["changes"]:
            out.append("<table><tr><th>change</th><th>check</th><th>model</th><th>before</th><th>after</th><th>test</th></tr>")
            for change in baseline["changes"][:MAX_FLIPS]:
                kind = f'<span class="fail">{e(change["kind"])}</span>' if change["kind"] == "regression" else e(change["kind"])
                out.append(f"<tr><td>{kind} ({e(change['scope'])})</td><td>{e(change['evaluator'])} <span class=muted>"
                           f"{e(change['metric'])}</span></td><td>{e(shown_model(change['model']))}</td><td class=num>{_num(change['before'])}</td>"
                           f"<td class=num>{_num(change['after'])}</td><td>{e(change.get('nodeid') or '')}</td></tr>")
            out.append("</table>")
    insights = summary.get("insights", [])
    if insights:
        out.append("<h2>Insights</h2><table><tr><th>check</th><th>model</th><th>case</th><th>score</th><th>evidence</th></tr>")
        for insight in insights:
            out.append(
                f"<tr><td>{e(insight['check'])} <span class=muted>{e(insight['metric'])}</span></td><td>{e(shown_model(insight['model']))}</td>"
                f"<td>{e(insight.get('case_id') or '')}</td><td class=num>{_num(insight['score'])}</td><td>{e(insight['reason'])}</td></tr>"
            )
        out.append("</table>")

    results = report.get("results", [])
    by_test: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in results[:MAX_RESULTS]:
        by_test[record.get("nodeid", "")].append(record)
    if results:
        out.append("<h2>Results</h2><table><tr><th>test</th><th>model</th><th>check</th><th>score</th>"
                   "<th>threshold</th><th>verdict</th><th>why</th><th>answer</th></tr>")
        for nodeid, records in by_test.items():
            for record in records:
                primary = record["primary"]
                verdict = '<span class="pass">pass</span>' if record.get("passed") else '<span class="fail">fail</span>'
                out.append(
                    f"<tr><td>{e(nodeid)}</td><td>{e(record.get('model') or '')}</td><td>{e(record['evaluator'])}</td>"
                    f"<td class=num>{_num(record['metrics'].get(primary))}</td>"
                    f"<td class=num>{_num(record.get('thresholds', {}).get(primary))}</td><td>{verdict}</td>"
                    f"<td>{e(record.get('reason', ''))}</td><td><pre>{e(record.get('excerpt') or '')}</pre></td></tr>"
                )
        out.append("</table>")
        if len(results) > MAX_RESULTS:
            out.append(f"<p class=muted>{len(results) - MAX_RESULTS} more results are in the JSON report.</p>")
    out.append(
        f"<p class=muted>pytest-llmeval {e(str(run['plugin']))}, pytest {e(str(run['pytest']))}, "
        f"Python {e(str(run['python']))}, finished {e(str(run['finished']))}</p>"
    )
    out.append("</body></html>")
    return "\n".join(out) + "\n"
