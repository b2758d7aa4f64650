"""Runs over time (issue 48, item 2): rows over saved runs, the drift test, and how the reports show them."""

from __future__ import annotations

import random

import pytest

from pytest_llmeval.report.history import drift_bound, history, look_level, spark
from pytest_llmeval.report.view import view


def _run(number, pass_chance, *, cases=300, seed=0, evaluator="text_matching", scores=None):
    """A saved run of a stochastic model: each case passes with ``pass_chance``."""
    draw = random.Random(seed * 1000 + number)
    results = []
    for case in range(cases):
        passed = draw.random() < pass_chance
        score = float(passed) if scores is None else scores(draw, passed)
        results.append(
            {
                "nodeid": f"t::test[{case}]",
                "case_id": f"c{case}",
                "evaluator": evaluator,
                "primary": "pass",
                "metrics": {"pass": score},
                "thresholds": {"pass": 0.5},
                "passed": passed,
                "verdict": "pass" if passed else "fail",
                "higher_is_better": {"pass": True},
                "model": "acme",
                "signature": {"evaluator": evaluator, "version": "1"},
            }
        )
    saved = {"id": f"{number:08x}", "time": f"2026-11-{number + 10:02d}T09:00:00Z", "commit": None, "number": number}
    return {"run": {"saved": saved}, "results": results}


def test_a_model_that_degrades_two_points_a_run_drifts_by_the_tenth_run():
    found = history([_run(n, 0.92 - 0.02 * n) for n in range(1, 11)])
    [row] = found.rows
    assert (row.check, row.metric, row.model, len(row.points)) == ("text_matching", "pass", "acme", 10)
    drift = row.drift
    assert drift is not None and drift.measure == "fail rate" and drift.window == 5 and drift.look == 10
    assert drift.after > drift.before and drift.p_value <= drift.level == look_level(10)
    assert drift.describe().startswith(f"fail rate {drift.before:.3f} -> {drift.after:.3f} over the last 5 runs")


def test_an_unchanged_model_is_not_flagged_at_any_run():
    for seed in range(5):
        runs = [_run(n, 0.8, seed=seed) for n in range(1, 11)]
        assert all(history(runs[:k]).rows[0].drift is None for k in range(4, 11))


def test_the_levels_over_every_look_sum_to_alpha_and_the_bound_is_one_sided():
    assert sum(look_level(n, 0.1) for n in range(1, 200_000)) == pytest.approx(0.1, abs=1e-6)
    assert drift_bound([-0.3] * 40) == 1.0 and drift_bound([0.3] * 40) == pytest.approx(2.718281828**-20)
    assert drift_bound([0.1, -0.1, 0.2]) == pytest.approx(2.718281828 ** (-(0.2**2) / (2 * 0.06)))


def test_a_mean_that_falls_drifts_when_the_scores_are_not_just_0_and_1():
    def scores(offset):
        return lambda draw, passed: min(1.0, max(0.0, draw.gauss(0.8 - offset, 0.05)))

    runs = [_run(n, 0.9, cases=60, scores=scores(0.0 if n <= 5 else 0.1)) for n in range(1, 11)]
    [row] = history(runs).rows
    assert row.drift is not None and row.drift.measure == "mean" and row.drift.after < row.drift.before


def test_a_changed_signature_starts_a_new_row_and_few_runs_test_nothing():
    runs = [_run(n, 0.9) for n in range(1, 4)]
    changed = _run(4, 0.5)
    for record in changed["results"]:
        record["signature"] = {"evaluator": "text_matching", "version": "2"}
    found = history([*runs, changed])
    assert sorted(len(row.points) for row in found.rows) == [1, 3]
    assert all(row.check.startswith("text_matching#") for row in found.rows)
    assert all(row.drift is None for row in found.rows)  # one run, and three: too few for two windows of two


def test_falling_counts_the_runs_in_a_row_and_spark_draws_them():
    found = history([_run(n, rate) for n, rate in enumerate((0.9, 0.95, 0.85, 0.8, 0.7), 1)])
    assert found.rows[0].falling == 3
    assert spark([0.0, 0.5, 1.0]) == "▁▅█" and spark([0.9, 0.95, 0.85, 0.8, 0.7]) == "▇█▅▄▁"


def test_the_reports_show_the_history_rows_drifting_first():
    from pytest_llmeval.report import html, markdown
    from pytest_llmeval.report.github import render_comment
    from pytest_llmeval.report.terminal import render_history

    found = history([_run(n, 0.92 - 0.02 * n) for n in range(1, 11)]).to_dict()
    v = view({"results": [], "history": found})
    [line] = v.history.rows
    assert line.verdict == "drift" and line.runs == 10 and len(line.trend) == 10 and line.what.startswith("drift: ")
    assert v.history.sentence.startswith("10 saved runs (2026-11-11 to 2026-11-20), this one included: 1 of 1 row")
    text = markdown.render(v)
    assert "## History" in text and f"**{markdown.cell(line.what, 300)}**" in text
    assert "### Over the saved runs" in render_comment(v, environ={})
    page = html.render(v)
    assert 'id="history"' in page and 'aria-label="pass rate by saved run (drift)"' in page
    lines = render_history(v)
    assert lines[0].startswith("history: 10 saved runs") and lines[2].strip().startswith("drift: fail rate")
    steady = view({"results": [], "history": history([_run(n, 0.9) for n in range(1, 5)]).to_dict()})
    assert steady.history.notable == () and render_history(steady)[1:] == []
    assert "### Over the saved runs" not in render_comment(steady, environ={})


@pytest.mark.subprocess
def test_the_history_section_in_chromium_at_desktop_and_phone_widths(tmp_path):
    """At 1400 px the history is a table, each row's chart beside its drift; on a 390 px phone each row is a card and
    nothing scrolls sideways."""
    from pytest_llmeval.report import html
    from tests.report.test_html_report import _chrome

    page = tmp_path / "report.html"
    found = history([_run(n, 0.92 - 0.02 * n) for n in range(1, 11)]).to_dict()
    page.write_text(html.render(view({"results": [], "history": found})), encoding="utf-8")
    for phone in (False, True):
        browser = _chrome(phone=phone)
        try:
            browser.get(page.as_uri())
            width, scrolled = browser.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
            display, charted, what, right = browser.execute_script(
                "const r = document.querySelector('table.history tr:not(.head)');"
                "return [getComputedStyle(r).display, r.querySelector('svg polyline') !== null,"
                " r.cells[6].textContent, r.getBoundingClientRect().right];"
            )
            assert scrolled <= width and right <= width and charted and what.startswith("drift: fail rate")
            assert display == ("block" if phone else "table-row")
        finally:
            browser.quit()
