"""The HTML report as a person meets it: opened in headless Chromium (Debian's chromium and chromium-driver, driven by
selenium; skipped where they are missing), and its new views escaped like the rest."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil

import pytest

from pytest_llmeval.checks.lexical.exact_match import ExactMatch
from pytest_llmeval.core.case import Case
from pytest_llmeval.report import html
from pytest_llmeval.report.aggregate import summarize
from pytest_llmeval.report.charts import NO_MODEL_LABEL, goodness

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "images" / "report.png"

# Two models over twelve cases: "big" answers every case; "small" fails ten of them now, none before (the baseline).
SUITE = """
import os
import pytest
from pytest_llmeval import assert_exact_match, assert_rouge

WRONG = os.environ.get("SMALL_WRONG") == "1"

@pytest.mark.parametrize("model", ["big", "small"])
@pytest.mark.parametrize("case", range(12))
def test_answer(model, case):
    answer = "paris" if model == "big" or not (WRONG and case % 6) else "lyon"
    assert_exact_match(answer, "paris", model=model, case=f"q{case:02d}")

@pytest.mark.parametrize("case", range(4))
def test_summary(case):
    assert_rouge("the cat sat on the mat", "the cat sat on the mat today", case=f"s{case}")
"""


def _chrome(phone: bool = False):
    """Headless Chromium at 1400 x 1800, or as a 390 x 844 phone (mobile emulation: a headless window is never narrower
    than 500 px, so a window size would not show a phone's layout)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("headless Chromium needs Debian's chromium and chromium-driver")
    options = Options()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
    ):
        options.add_argument(argument)
    if phone:
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0}}
        )
    else:
        options.add_argument("--window-size=1400,1800")
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=options)


@pytest.fixture(scope="module")
def browser():
    driver = _chrome()
    yield driver
    driver.quit()


@pytest.fixture
def two_model_report(pytester: pytest.Pytester, monkeypatch) -> pathlib.Path:
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=main").assert_outcomes(passed=28)
    monkeypatch.setenv("SMALL_WRONG", "1")
    pytester.runpytest(
        "-p", "no:randomly", "--llmeval-report=pr", "--llmeval-baseline=main/report.json"
    ).assert_outcomes(passed=18, failed=10)
    return pytester.path / "pr" / "report.html"


def _rows(browser) -> list[tuple[str, str, bool]]:
    """(verdict, test, shown) of every result row, in document order."""
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-filter]')).map("
        "r => [r.dataset.verdict, r.cells[0].textContent, r.offsetParent !== null]);"
    )


@pytest.mark.subprocess
def test_a_two_model_run_with_failures_and_a_baseline_in_chromium(browser, two_model_report: pathlib.Path):
    browser.get(two_model_report.as_uri())
    assert browser.title == "LLM evaluation report"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0  # nothing fetched
    assert "Verdict: regressed" in browser.find_element("id", "verdict").text
    rows = _rows(browser)
    verdicts = [verdict for verdict, _, _ in rows]
    assert verdicts.count("fail") == 2 * 10  # in the failures table, then again at the top of all results
    # every failure before any pass
    assert max(i for i, v in enumerate(verdicts) if v == "fail") < verdicts.index("pass")
    assert browser.execute_script("return document.querySelectorAll('#charts ~ .charts svg, .chart svg').length") >= 3
    assert (
        browser.execute_script("return document.querySelectorAll('svg[aria-label^=\"before and after\"]').length") == 1
    )
    grid = browser.execute_script(
        "return Array.from(document.querySelectorAll('.grid[data-check=exact_match] tr')).map(r => "
        "Array.from(r.cells).map(c => c.textContent.trim()))"
    )
    # the hardest case first
    assert grid[0] == ["case", "big", "small"] and grid[1][0] == "q01" and grid[1][2].endswith("✗")
    assert NO_MODEL_LABEL in browser.find_element("id", "results").find_element("xpath", "..").text  # rouge: no model

    # Filters: by model, by verdict, by text; and back to all.
    select = browser.find_element("id", "f-model")
    select.find_element("css selector", "option[value='']")  # "all"
    browser.execute_script(
        "const s = document.getElementById('f-model'); s.value = 'small'; s.dispatchEvent(new Event('change'));"
    )
    assert {test.split("[")[-1] for _, test, shown in _rows(browser) if shown} and all(
        "small" in test for _, test, shown in _rows(browser) if shown
    )
    browser.execute_script(
        "const s = document.getElementById('f-verdict'); s.value = 'fail'; s.dispatchEvent(new Event('change'));"
    )
    assert {v for v, _, shown in _rows(browser) if shown} == {"fail"}
    assert "of" in browser.find_element("id", "f-count").text
    browser.execute_script(
        "const t = document.getElementById('f-text'); t.value = '[3-small]'; t.dispatchEvent(new Event('input'));"
    )
    assert [test for _, test, shown in _rows(browser) if shown] == ["test_suite.py::test_answer[3-small]"] * 2
    browser.execute_script(
        "for (const id of ['f-model', 'f-verdict']) { const s = document.getElementById(id); s.value = '';"
        " s.dispatchEvent(new Event('change')); } const t = document.getElementById('f-text'); t.value = '';"
        " t.dispatchEvent(new Event('input'));"
    )
    assert all(shown for _, _, shown in _rows(browser))
    assert browser.get_log("browser") == []

    # The picture the README shows (written when asked: LLMEVAL_SCREENSHOT=1).
    if os.environ.get("LLMEVAL_SCREENSHOT") == "1":
        browser.set_window_size(1400, 1500)
        browser.execute_script("window.scrollTo(0, 0)")
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOT))


HOSTILE = [
    "<script>window.pwned = 1</script>",
    '"><img src=x onerror="window.pwned=1">',
    "[click](javascript:alert(1)) **bold**",
    "</pre></td></tr></table><svg onload=alert(1)>",
    "{{ 7*7 }} {% raw %}",
]


def _hostile_report() -> dict:
    evaluator = ExactMatch()
    records = []
    for index, text in enumerate(HOSTILE):
        case = Case(actual=text, expected="safe", model=text, case_id=text)
        [result] = evaluator.evaluate([case])
        records.append(
            {**result.to_dict(), "nodeid": f"t.py::test[{text}]", "outcome": "failed" if index % 2 else "xfailed"}
        )
    return {"summary": summarize(records).to_dict(), "results": records, "tests": {}}


def test_hostile_model_output_stays_inert_in_every_new_view():
    page = html.render(_hostile_report())
    lowered = page.lower()
    assert lowered.count("<script") == 1  # the filters' own
    assert "<img" not in lowered and 'onerror="window' not in lowered and "<svg onload" not in lowered
    assert 'href="javascript' not in lowered  # Markdown link syntax stays text
    assert "49" not in re.findall(r"\{\{ 7\*7 \}\}|49", page)  # no template ran on model text
    assert "{{ 7*7 }}" in page
    for text in HOSTILE[:2]:
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
        assert escaped in page  # in the failures, results, grid (tooltip) and filter options, escaped


@pytest.mark.subprocess
def test_hostile_model_output_runs_nothing_in_chromium(browser, tmp_path: pathlib.Path):
    path = tmp_path / "report.html"
    path.write_text(html.render(_hostile_report()), encoding="utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script("return window.pwned === undefined && document.images.length === 0")
    assert browser.execute_script("return document.querySelectorAll('a[href^=\"javascript\"]').length") == 0
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_goodness_runs_the_metrics_way():
    assert goodness(0.9, 0.0, 1.0, True) == pytest.approx(0.9) and goodness(0.9, 0.0, 1.0, False) == pytest.approx(0.1)
    assert goodness(None, 0.0, 1.0, True) is None and goodness(float("nan"), 0.0, 1.0, True) is None


def test_a_report_without_records_still_renders():
    page = html.render({"results": [], "summary": None})
    assert "<h1>LLM evaluation</h1>" in page and json.dumps([]) not in page.split("<main>")[0]


def test_chart_bars_are_coloured_by_verdict_not_by_the_side_of_the_threshold():
    """An answer failed on evidence with a score above the threshold is a red bar, never a green one."""
    from pytest_llmeval.report.charts import distributions

    def rec(score, verdict):
        return {
            "evaluator": "groundedness",
            "primary": "support",
            "metrics": {"support": score},
            "passed": verdict != "fail",
            "verdict": verdict,
            "thresholds": {"support": 0.7},
            "higher_is_better": {"support": True},
            "model": "m",
        }

    [chart] = distributions([rec(0.93, "fail"), rec(0.91, "pass"), rec(0.4, "unverified"), rec(0.2, "fail")])
    bars = re.findall(r'<rect class="bar-(\w+)" x="([\d.]+)"', chart.svg)
    by_x = {float(x): verdict for verdict, x in bars}
    assert sorted(set(by_x.values())) == ["fail", "pass", "unverified"]
    high = [verdict for verdict, x in bars if float(x) > 200]  # the bin of 0.90 to 0.95: a pass and a fail, stacked
    assert sorted(high) == ["fail", "pass"]
    assert '<rect class="bar-fail"' in chart.svg and 'fill="#cf222e"' in chart.svg and "1 fail, 1 pass" in chart.svg


def test_grid_and_leaderboard_cells_are_coloured_by_verdicts_not_by_scores():
    """A failed answer's 0.933 is a red cell, an unverified one amber; a leaderboard cell where one answer in five
    passed is red whatever its mean (it was green: coloured by the mean score)."""
    from pytest_llmeval.report.charts import VERDICT_TINTS, grids
    from pytest_llmeval.report.view import view

    def rec(case, score, verdict):
        return {
            "evaluator": "groundedness",
            "primary": "support",
            "metrics": {"support": score},
            "passed": verdict != "fail",
            "verdict": verdict,
            "thresholds": {"support": 0.7},
            "higher_is_better": {"support": True},
            "model": "m",
            "case_id": case,
            "nodeid": f"t::{case}",
            "signature": {"evaluator": "groundedness", "version": "7"},
        }

    recs = [
        rec("a", 0.933, "fail"),
        rec("b", 0.95, "fail"),
        rec("c", 0.91, "fail"),
        rec("d", 0.55, "unverified"),
        rec("e", 0.2, "pass"),
    ]
    [grid] = grids(recs, {})
    colours = {case: cells[0].colour for case, cells in grid.rows}
    assert colours == {
        "a": VERDICT_TINTS["fail"],
        "b": VERDICT_TINTS["fail"],
        "c": VERDICT_TINTS["fail"],
        "d": VERDICT_TINTS["unverified"],
        "e": VERDICT_TINTS["pass"],
    }
    report = {"summary": summarize(recs).to_dict(), "results": recs}
    [[_, [cell]]] = view(report).heatmap.rows
    assert cell.goodness == pytest.approx(0.2) and cell.mean == "0.709"  # the colour is the pass rate, not the mean
    assert "hsl(24," in html.render(report)  # 0.2 of the way from red to green


@pytest.mark.subprocess
def test_the_report_fits_a_phone_width_in_chromium(browser, two_model_report: pathlib.Path):
    """At 390 px the page never scrolls sideways (wide tables scroll in their own box) and each filter's label sits on
    the line of its control; at 1400 px nothing changes."""
    try:
        for width in (390, 1400):
            browser.set_window_size(width, 900)
            browser.get(two_model_report.as_uri())
            page, visible = browser.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert page <= visible, (width, page, visible)
            apart = browser.execute_script(
                "return Array.from(document.querySelectorAll('nav label')).filter(l => {"
                " const c = l.querySelector('select,input'); const a = l.getBoundingClientRect(), b = "
                "c.getBoundingClientRect();"
                " return Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) > 8; }).map(l => "
                "l.textContent.trim().slice(0, 20));"
            )
            assert apart == [], (width, apart)
        tables = browser.execute_script(
            "return Array.from(document.querySelectorAll('main table')).filter(t => t.scrollWidth > "
            "t.clientWidth).length;"
        )
        browser.set_window_size(390, 900)
        browser.get(two_model_report.as_uri())
        scrolled = browser.execute_script(
            "return Array.from(document.querySelectorAll('main table')).filter(t => t.scrollWidth > "
            "t.clientWidth).length;"
        )
        assert scrolled >= 1 and tables == 0  # at 390 px the wide tables scroll in their box; at 1400 px none needs to
    finally:
        browser.set_window_size(1400, 1800)


#: Each failure row of the first table (the failures): its width, how it and its cells are laid out, and what the
#: label before its evidence says; and whether the header row shows.
_CARDS = """
const table = document.querySelector('main table.cards');
const rows = Array.from(table.querySelectorAll('tr[data-verdict=fail]'));
return [getComputedStyle(table.querySelector('tr.head')).display, rows.map(r => \
[Math.round(r.getBoundingClientRect().width),
  getComputedStyle(r).display, Array.from(r.cells).every(c => getComputedStyle(c).display === \
getComputedStyle(r.cells[0]).display)
  ? getComputedStyle(r.cells[0]).display : 'mixed', getComputedStyle(r.querySelector('td.evidence'), \
'::before').content])];
"""


@pytest.mark.subprocess
def test_on_a_phone_each_failure_is_a_card_and_nothing_scrolls_sideways(browser, two_model_report: pathlib.Path):
    phone = _chrome(phone=True)
    try:
        phone.get(two_model_report.as_uri())
        width, page = phone.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
        assert width == 390 and page <= width
        head, cards = phone.execute_script(_CARDS)
        assert head == "none" and len(cards) == 10
        assert all(
            w <= width and row == "block" and cells == "block" and label == '"evidence: "'
            for w, row, cells, label in cards
        ), cards
        wide = phone.execute_script(
            "return Array.from(document.querySelectorAll('main table.cards'))"
            ".filter(t => t.offsetParent !== null && t.scrollWidth > t.clientWidth).length"
        )
        assert wide == 0  # a card never scrolls inside its table either
        # the first failure's evidence, scrolled to, lies inside the screen and says something
        seen = phone.execute_script(
            "const e = document.querySelector('main table.cards tr[data-verdict=fail] td.evidence'); "
            "e.scrollIntoView();"
            "const r = e.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom, "
            "e.textContent.trim().length];"
        )
        left, right, top, bottom, said = seen
        assert 0 <= left < right <= width and -1 <= top < bottom <= 845 and said > 0, seen  # (a pixel's rounding)
    finally:
        phone.quit()
    browser.get(two_model_report.as_uri())  # on a desktop the failures stay a table
    head, rows = browser.execute_script(_CARDS)
    assert head == "table-row" and {(row, cells) for _, row, cells, _ in rows} == {("table-row", "table-cell")}
