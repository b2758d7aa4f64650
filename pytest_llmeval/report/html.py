"""The HTML report: one self-contained file (no scripts, fonts or links to fetch).

The leaderboard is a heatmap, models by checks, each cell coloured by how good
the mean of the primary metric is (red bad, green good; direction-aware). Every
piece of text from the run, model outputs above all, is HTML-escaped. What is
shown comes from :func:`.view.view`; this module only writes it as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .view import HTML_LIMITS, view

__all__ = ["render"]


MAX_RESULTS = HTML_LIMITS.results


MAX_FLIPS = HTML_LIMITS.flips


_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;color:#1b1f24}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}
th{background:#f6f8fa;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.heat{text-align:center;min-width:6em}.fail{color:#b42318;font-weight:600}.pass{color:#067647}
pre{white-space:pre-wrap;max-width:60em;margin:0;font-size:12px}.muted{color:#57606a}.unverified{color:#9a6700;font-weight:600}
"""


def _colour(goodness: float) -> str:
    """Red (0) through yellow to green (1)."""
    goodness = min(1.0, max(0.0, goodness))
    hue = int(120 * goodness)
    return f"hsl({hue},70%,80%)"


_PASS, _FAIL = '<span class="pass">pass</span>', '<span class="fail">fail</span>'


_UNVERIFIED = '<span class="unverified">unverified</span>'


def _flagged(kind: str, bad: bool) -> str:
    """A flip's or a change's kind, in red when it is bad news."""
    return f'<span class="fail">{escape(kind)}</span>' if bad else escape(kind)


def _verdict_cell(row: Any) -> str:
    if row.verdict == "unverified":
        return _UNVERIFIED
    if row.passed:
        return _PASS
    return '<span class="muted">fail (expected: xfail)</span>' if row.expected else _FAIL


def render(report: dict[str, Any]) -> str:
    v = view(report, HTML_LIMITS)
    e = escape
    head = v.headline
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        "<title>LLM evaluation report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>LLM evaluation</h1>",
        *([f'<p class="fail">{escape(v.interruption)}.</p>'] if v.interruption else []),
        *([f"<p><b>Verdict: {escape(v.baseline.verdict_line)}</b></p>"] if v.baseline and v.baseline.verdict_line else []),
        f"<p>{head.checks} checks{head.models}: <b>{head.passed} passed</b> ({head.pass_rate})"
        + (f", {head.unverified} unverified" if head.unverified else "")
        + (f", {head.expected} expected failures (xfail)" if head.expected else "") + ".</p>",
        *(f"<p>{e(line)}.</p>" for line in v.verdicts),
    ]
    if v.outcomes_line is not None:
        out.append(f"<p>Tests (pytest's outcomes, with or without checks): {e(v.outcomes_line)}.</p>")
    if v.best_model:
        out.append(f"<p>Best model: <b>{e(v.best_model.name)}</b></p>")
    hard = v.hardest_case
    if hard and hard.failed_by:
        out.append(f"<p>Most difficult case: <code>{e(hard.case_id)}</code>, failed by {hard.failed_by}: {e(hard.failed_models)}</p>")
    elif hard:
        out.append(f"<p>Most difficult case: <code>{e(hard.case_id)}</code> (failed)</p>")
    if v.problems:
        out.append("<p>Problems (a model's mean misses the check's threshold):</p><ul>")
        out += [f"<li>{e(problem)}</li>" for problem in v.problems]
        out.append("</ul>")

    heat = v.heatmap
    if heat.columns:
        out.append(f"<h2>Leaderboard</h2><p class=muted>Each cell: the mean (its {v.interval_level} interval), then the pass rate "
                   f"of n results (its {v.interval_level} interval).</p><table><tr><th>model</th>")
        out += [f"<th>{e(c.check)}<br><span class=muted>{e(c.metric)} {c.arrow}</span></th>" for c in heat.columns]
        out.append("</tr>")
        for model, cells in heat.rows:
            out.append(f"<tr><th>{e(model)}</th>")
            out += ['<td class="heat muted">–</td>' if c is None else
                    f'<td class="heat" style="background:{_colour(c.goodness)}" title="{e(c.signature)}">'
                    f"{c.mean}" + (f" <span class=muted>({c.ci})</span>" if c.ci else "")
                    + f"<br><span class=muted>{c.pass_rate} of {c.count}" + (f" ({c.pass_ci})" if c.pass_ci else "")
                    + (f", {c.unverified} unverified" if c.unverified else "")
                    + (f", {c.expected} expected (xfail)" if c.expected else "") + "</span></td>" for c in cells]
            out.append("</tr>")
        out.append("</table>")

    if v.perturbation:
        flips = v.perturbation.flips
        out.append(f"<h2>Perturbation flips</h2><p>{v.perturbation.sentence}</p>")
        if flips.total:
            out.append("<table><tr><th>case</th><th>model</th><th>check</th><th>perturbation</th><th>before</th><th>after</th>"
                       "<th>flip</th><th>test</th></tr>")
            out += [f"<tr><td>{e(f.case_id)}</td><td>{e(f.model)}</td><td>{e(f.check)} <span class=muted>{e(f.metric)}</span></td>"
                    f"<td>{e(f.perturbation)}</td><td class=num>{f.before}</td><td class=num>{f.after}</td>"
                    f"<td>{_flagged(f.kind, f.broke)}</td><td>{e(f.test)}</td></tr>" for f in flips.rows]
            out.append("</table>")
            if flips.more:
                out.append(f"<p class=muted>{flips.more} more flips are in the JSON report.</p>")
    if v.classification:
        out.append("<h2>Classification (recorded labels)</h2><table><tr><th>model</th><th>accuracy</th><th>macro F1</th>"
                   "<th>ROC AUC</th><th>n</th><th>labels</th><th>ROC</th><th>precision-recall</th></tr>")
        out += [f"<tr><td>{e(c.model)}</td><td class=num>{c.accuracy}</td><td class=num>{c.macro_f1}</td>"
                f"<td class=num>{c.roc_auc}</td><td class=num>{c.count}</td><td>{e(c.labels)}</td>"
                f"<td>{_chart(c.curves, 'roc')}</td><td>{_chart(c.curves, 'pr')}</td></tr>" for c in v.classification]
        out.append("</table>")
    if v.operations:
        out.append("<h2>Generations (measured)</h2><table><tr><th>model</th><th>mean latency ms</th><th>p95 ms</th>"
                   "<th>mean tokens</th><th>mean cost</th><th>total cost</th><th>n</th></tr>")
        out += [f"<tr><td>{e(o.model)}</td><td class=num>{o.latency_ms}</td><td class=num>{o.latency_ms_p95}</td>"
                f"<td class=num>{o.tokens}</td><td class=num>{o.cost}</td><td class=num>{o.cost_total}</td>"
                f"<td class=num>{o.count}</td></tr>" for o in v.operations]
        out.append("</table>")
        if v.operations_insights:
            out.append(f"<p>{e(v.operations_insights)}</p>")
    base = v.baseline
    if base:
        out.append(f"<h2>Compared with baseline</h2><p><code>{e(base.path)}</code>: {base.rows.total} leaderboard row(s) "
                   f"compared over {base.compared} matched result(s); {base.not_comparable} not comparable, {base.new} new, "
                   f"{base.missing} gone.</p>")
        if base.rows.total:
            out.append("<table><tr><th>verdict</th><th>check</th><th>model</th><th>before</th><th>after</th><th>difference</th>"
                       "<th>interval</th><th>p (Holm)</th><th>cases</th><th>note</th></tr>")
            out += [f"<tr><td>{_flagged(r.verdict, r.verdict == 'regressed')}</td><td>{e(r.check)} <span class=muted>{e(r.metric)}"
                    f"</span></td><td>{e(r.model)}</td><td class=num>{r.before}</td><td class=num>{r.after}</td>"
                    f"<td class=num>{r.difference}</td><td class=num>{r.interval}</td><td class=num>{r.p_value}</td>"
                    f"<td class=num>{r.cases}</td><td>{e(r.note)}</td></tr>" for r in base.rows.rows]
            out.append("</table>")
        if base.changes.total:
            out.append(f"<details><summary>{base.changes.total} result(s) moved to or from a failure (evidence; the rows' "
                       "tests decide)</summary>")
            out.append("<table><tr><th>change</th><th>check</th><th>model</th><th>before</th><th>after</th><th>test</th></tr>")
            out += [f"<tr><td>{_flagged(c.kind, c.regression)}</td><td>{e(c.evaluator)} <span class=muted>"
                    f"{e(c.metric)}</span></td><td>{e(c.model)}</td><td class=num>{c.before}</td><td class=num>{c.after}</td>"
                    f"<td>{e(c.test)}</td></tr>" for c in base.changes.rows]
            out.append("</table>")
            if base.changes.more:
                out.append(f"<p class=muted>{base.changes.more} more are in the JSON report.</p>")
            out.append("</details>")
    if v.repeats:
        out.append("<h2>Repeated cases</h2><p>Each case ran several times (draws); pass@k: at least one of k draws passes, "
                   "pass^k: all k pass.</p><ul>")
        out += [f"<li>{e(line)}</li>" for line in v.repeats]
        out.append("</ul>")
        if v.flaky.total:
            out.append("<p>Flaky cases (passed in some draws, failed in others):</p><table><tr><th>case</th><th>model</th>"
                       "<th>check</th><th>passed</th><th>draws</th></tr>")
            out += [f"<tr><td>{e(c.case_id)}</td><td>{e(c.model)}</td><td>{e(c.check)}</td><td class=num>{c.passed}</td>"
                    f"<td class=num>{c.draws}</td></tr>" for c in v.flaky.rows]
            out.append("</table>")
            if v.flaky.more:
                out.append(f"<p class=muted>{v.flaky.more} more flaky cases are in the JSON report.</p>")
    if v.insights:
        out.append("<h2>Insights</h2><table><tr><th>check</th><th>model</th><th>case</th><th>score</th><th>evidence</th></tr>")
        out += [f"<tr><td>{e(i.check)} <span class=muted>{e(i.metric)}</span></td><td>{e(i.model)}</td><td>{e(i.case_id)}</td>"
                f"<td class=num>{i.score}</td><td>{e(i.reason)}</td></tr>" for i in v.insights]
        out.append("</table>")

    results = v.results
    if results.total:
        out.append("<h2>Results</h2><table><tr><th>test</th><th>model</th><th>check</th><th>score</th>"
                   "<th>threshold</th><th>verdict</th><th>why</th><th>answer</th></tr>")
        out += [f"<tr><td>{e(r.test)}</td><td>{e(r.model)}</td><td>{e(r.check)}</td><td class=num>{r.score}</td>"
                f"<td class=num>{r.threshold}</td><td>{_verdict_cell(r)}</td>"
                f"<td>{e(r.reason)}</td><td><pre>{e(r.answer)}</pre></td></tr>" for r in results.rows]
        out.append("</table>")
        if results.more:
            out.append(f"<p class=muted>{results.more} more results are in the JSON report.</p>")
    if v.footer:
        run = v.footer
        out.append(f"<p class=muted>pytest-llm-verdict {e(run.plugin)}, pytest {e(run.pytest)}, "
                   f"Python {e(run.python)}, finished {e(run.finished)}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")


def _chart(curves: Sequence[Any], kind: str, size: int = 140) -> str:
    """One inline SVG: each label's ROC (false vs true positive rate) or precision-recall curve, one colour each."""
    if not curves:
        return '<span class="muted">no scores</span>'
    pad = 4
    span = size - 2 * pad

    def point(x: float, y: float) -> str:
        return f"{pad + x * span:.1f},{pad + (1 - y) * span:.1f}"

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" role="img" '
             f'aria-label="{"ROC" if kind == "roc" else "precision-recall"} curves">',
             f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" stroke="#999"/>']
    if kind == "roc":
        parts.append(f'<line x1="{pad}" y1="{pad + span}" x2="{pad + span}" y2="{pad}" stroke="#ccc" stroke-dasharray="3"/>')
    for index, curve in enumerate(curves):
        points = curve.roc if kind == "roc" else sorted(curve.pr)
        colour = _PALETTE[index % len(_PALETTE)]
        area = curve.roc_auc if kind == "roc" else curve.average_precision
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(point(x, y) for x, y in points)}">'
                     f"<title>{escape(curve.label)}: {'AUC' if kind == 'roc' else 'AP'} {area}</title></polyline>")
    parts.append("</svg>")
    return "".join(parts)
