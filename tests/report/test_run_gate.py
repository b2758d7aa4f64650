"""The run's gate: indeterminate when measurement collapses (a judge outage is never green), and floors on a row's
pass rate or mean, with and without a baseline."""

from __future__ import annotations

import pytest

from pytest_llmeval.report.baseline import compare
from pytest_llmeval.report.gate import (
    EXIT_RULES,
    Floor,
    RunEnd,
    failing,
    floors_below,
    gate,
    indeterminate_gate,
    is_error,
    merged_failures,
    new_failures,
    parse_floor,
    regressions,
)
from tests.run.test_unverified_runs import SUITE


def rec(i, verdict, evaluator="g", model="x", **details):
    return {
        "evaluator": evaluator,
        "primary": "m",
        "metrics": {"m": 1.0 if verdict == "pass" else 0.0},
        "passed": verdict != "fail",
        "verdict": verdict,
        "model": model,
        "case_id": f"q{i}",
        "nodeid": f"t::q{i}",
        "higher_is_better": {"m": True},
        "signature": {"evaluator": evaluator, "version": "1"},
        "details": details,
    }


def test_what_measured_nothing_is_an_error():
    assert is_error(rec(0, "fail", error="judge error: down"))
    assert is_error(rec(0, "unverified", escalated={"check": "faithfulness", "error": "the judge could not decide"}))
    assert is_error({**rec(0, "fail"), "metrics": {"m": None, "parse_failure": 1.0}})
    assert not is_error(rec(0, "unverified")) and not is_error(
        rec(0, "pass", escalated={"check": "f", "verdict": "pass"})
    )


def test_budgets_make_the_run_indeterminate_and_name_the_row():
    escalation_failed = [rec(i, "unverified", escalated={"error": "down"}) for i in range(3)] + [
        rec(i, "pass") for i in range(3, 10)
    ]
    found = gate(escalation_failed)  # the default: no error allowed
    assert found.verdict == "indeterminate"
    assert found.indeterminate == ("g (model x): 3 of 10 results could not be measured (30%, budget 0%)",)
    assert found.line().startswith("INDETERMINATE: the run measured too little to gate on: g (model x)")
    assert gate(escalation_failed, max_errors=0.5).verdict == "none"
    mostly_unverified = [rec(i, "unverified") for i in range(6)] + [rec(i, "pass") for i in range(6, 10)]
    assert gate(mostly_unverified).verdict == "none"  # the unverified budget is off by default
    assert gate(mostly_unverified, max_unverified=0.5).indeterminate == (
        "g (model x): 6 of 10 results unverified (60%, budget 50%)",
    )
    perturbed = [{**rec(i, "fail", error="down"), "tags": {"perturbation": "typos"}} for i in range(5)]
    assert gate(perturbed + [rec(9, "pass")]).verdict == "none"  # perturbed inputs are not the rows' measurement


def _rows(records):
    from pytest_llmeval.report.aggregate import summarize

    return summarize(records).rows


@pytest.mark.parametrize(
    ("passed", "floor", "verdict"), [(20, 0.8, "passed"), (8, 0.9, "failed"), (17, 0.9, "inconclusive")]
)
def test_a_floor_fails_passes_or_says_how_many_cases_would_decide(passed, floor, verdict):
    records = [rec(i, "pass" if i < passed else "fail") for i in range(20)]
    found = gate(records, floors=[Floor("g", None, "pass rate", floor)], rows=_rows(records))
    [result] = found.floors
    assert result.verdict == verdict and found.verdict == verdict
    if verdict == "inconclusive":
        assert result.cases_needed and result.cases_needed > 20
        assert f"about {result.cases_needed} cases would decide it" in result.describe()
    if verdict == "failed":
        assert found.line().startswith("FAILED: 1 row(s) below their floor: g (model x) pass rate 0.400")


def test_a_floor_names_its_model_and_the_mean():
    records = [rec(i, "pass", model="a") for i in range(10)] + [rec(i, "fail", model="b") for i in range(10)]
    found = gate(records, floors=[parse_floor("g:b=0.5", "pass rate", "--llmeval-min-pass-rate")], rows=_rows(records))
    assert [(f.model, f.verdict) for f in found.floors] == [("b", "failed")]
    mean = gate(records, floors=[parse_floor("g=0.2", "mean", "--llmeval-min-mean")], rows=_rows(records))
    assert {f.model: f.measure for f in mean.floors} == {"a": "mean", "b": "mean"}


@pytest.mark.parametrize("text", ["g", "g=", "=0.5", "g=1.5", "g=high"])
def test_a_bad_floor_names_the_option_and_the_form(text):
    with pytest.raises(ValueError, match=r"--llmeval-min-pass-rate: expected CHECK\[:MODEL\]=VALUE"):
        parse_floor(text, "pass rate", "--llmeval-min-pass-rate")


def test_more_unverified_than_the_baseline_is_indeterminate_not_a_regression():
    before = {"results": [rec(i, "pass") for i in range(30)]}
    now = [rec(i, "unverified" if i < 20 else "pass") for i in range(30)]
    comparison = compare(now, before)
    assert comparison.verdict == "indeterminate" and not comparison.regressions
    assert [r.verdict for r in comparison.rows if r.measure == "unverified rate"] == ["indeterminate"]
    assert comparison.verdict_line().startswith(
        "indeterminate: g unverified rate on x 0.000 -> 0.667: the run measured less"
    )
    # every report labels the row by its rate, as the terminal does, not by the check's metric
    from pytest_llmeval.report.baselineview import baseline_section

    shown = baseline_section(comparison.to_dict(), 50)
    assert shown is not None and {r.metric for r in shown.rows.rows} == {"fail rate", "unverified rate"}


def test_each_exit_rule_is_one_function_that_says_why_the_run_fails():
    """The exit rules, one by one: each says why it fails a run whose tests passed, or ``None``."""
    assert EXIT_RULES == (merged_failures, regressions, new_failures, floors_below, indeterminate_gate)
    assert failing(RunEnd()) == []
    # merged shards: a failed, erroring or crashed test fails the merge, a skipped or xfailed one does not
    outcomes = {"t::a": "passed", "t::b": "crashed", "t::c": "skipped", "t::d": "error"}
    assert merged_failures(RunEnd(merged_outcomes=outcomes)) == "the merged shards hold 2 failed test(s)"
    assert merged_failures(RunEnd(merged_outcomes={"t::a": "xfailed"})) is None
    # a regression beyond noise fails only when the run is told to
    before = {"results": [rec(i, "pass") for i in range(30)]}
    comparison = compare([rec(i, "fail" if i < 20 else "pass") for i in range(30)], before)
    assert comparison.regressions
    assert regressions(RunEnd(comparison=comparison)) is None
    assert regressions(RunEnd(comparison=comparison, fail_on_regression=True)).startswith(
        "1 row(s) regressed against the baseline: g"
    )
    # a row below its floor
    records = [rec(i, "pass" if i < 8 else "fail") for i in range(20)]
    below = gate(records, floors=[Floor("g", None, "pass rate", 0.9)], rows=_rows(records))
    assert floors_below(RunEnd(gate=below)).startswith("1 row(s) below their floor: g (model x) pass rate 0.400")
    # an indeterminate gate fails unless the run says an indeterminate gate passes
    outage = gate([rec(i, "unverified", escalated={"error": "down"}) for i in range(3)] + [rec(9, "pass")])
    assert indeterminate_gate(RunEnd(gate=outage)) == (
        "the gate is indeterminate: g (model x): 3 of 4 results could not be measured (75%, budget 0%)"
    )
    assert indeterminate_gate(RunEnd(gate=outage, indeterminate="pass")) is None
    assert len(failing(RunEnd(gate=outage, comparison=comparison, fail_on_regression=True))) == 2


def _replayed(i, verdict, calls=0):
    return {**rec(i, verdict), "tags": {"answers": "replayed"}, "details": {"judge": {"calls": calls}}}


def test_a_replayed_case_under_a_deterministic_check_that_now_fails_is_a_regression():
    """Two answers replayed from cassettes went from pass to fail: with 30 cases that is within noise for the paired
    test, but the same input gave another verdict, so the comparison regresses and names them."""
    before = {"results": [_replayed(i, "pass") for i in range(30)]}
    now = [_replayed(i, "fail" if i in (3, 7) else "pass") for i in range(30)]
    comparison = compare(now, before)
    assert not comparison.regressions  # no row is significant
    assert [c.nodeid for c in comparison.fixed_failures] == ["t::q3", "t::q7"]
    assert comparison.verdict == "regressed"
    assert comparison.verdict_line().startswith(
        "regressed: 2 replayed case(s) that passed in the baseline fail now: t::q3 (g), t::q7 (g)"
    )
    assert comparison.to_dict()["fixed_failures"] == 2
    end = RunEnd(comparison=comparison, fail_on_regression=True)
    assert regressions(end) == "2 replayed case(s) that passed in the baseline fail now: t::q3 (g), t::q7 (g)"
    assert regressions(RunEnd(comparison=comparison)) is None  # only when the run is told to fail on regressions
    # live answers, or a judge asked anew: the same flips are noise for the paired test, as before
    for now_, before_ in (
        ([rec(i, "fail" if i in (3, 7) else "pass") for i in range(30)], [rec(i, "pass") for i in range(30)]),
        ([_replayed(i, "fail" if i in (3, 7) else "pass", calls=1) for i in range(30)], before["results"]),
    ):
        live = compare(now_, {"results": before_})
        assert live.fixed_failures == [] and live.verdict == "inconclusive"
        assert regressions(RunEnd(comparison=live, fail_on_regression=True)) is None
        # golden cases: under gate = "strict" any case that passed and fails now fails the run
        assert len(live.new_failures) == 2 and new_failures(RunEnd(comparison=live)) is None
        assert new_failures(RunEnd(comparison=live, strict=True)) == (
            "2 case(s) that passed in the baseline fail now: t::q3 (g), t::q7 (g)"
        )


def test_a_judge_outage_is_never_a_green_run(pytester, model_stack, server, read_json, junit_properties):
    """The judge is down: the reworded answer stays unverified and its test passes, but the gate is indeterminate,
    the run exits 1 under the aggregate gate, and every report says so first."""
    pytest.importorskip("openai")
    server.default = {"status": 500, "message": "the judge is down"}
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_timeout = 2\n"
    )
    pytester.makepyfile(SUITE)
    args = [
        "-p",
        "no:randomly",
        "--llmeval-cache-dir=off",
        "--override-ini=llmeval_judge_cache=off",
        "--llmeval-gate=aggregate",
        "--llmeval-report=r.json",
        "--llmeval-report=r.md",
        "--llmeval-report=r.html",
        "--llmeval-report=out/",
        "--junitxml=j.xml",
    ]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2)
    assert result.parseoutcomes()["unverified"] == 1  # passed, with a status of its own
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "llmeval gate: INDETERMINATE: the run measured too little to gate on: groundedness (no model): "
            "1 of 3 results could not be measured*"
        ]
    )
    report = read_json(pytester.path / "r.json")
    assert report["gate"]["verdict"] == "indeterminate"
    assert "**Gate: INDETERMINATE" in (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "<b>Gate:</b> INDETERMINATE" in (pytester.path / "r.html").read_text(encoding="utf-8")
    assert junit_properties(pytester.path / "j.xml")[1]["llmeval.gate"] == "indeterminate"
    # the PR comment
    assert "**Gate: INDETERMINATE" in (pytester.path / "out" / "comment.md").read_text(encoding="utf-8")
    allowed = pytester.runpytest(*args, "--override-ini=llmeval_indeterminate=pass")
    assert allowed.ret == 0


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_floors_gate_a_run_without_a_baseline(pytester, workers):
    pytester.makepyfile(
        "import pytest\nfrom pytest_llmeval import assert_exact_match\n\n"
        "@pytest.mark.parametrize('i', range(10))\n"
        "def test_x(i):\n    assert_exact_match('a' if i < 8 else 'b', 'a')\n"
    )
    if workers:
        pytest.importorskip("xdist")
    failed = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-gate=aggregate",
        "--override-ini=llmeval_min_pass_rate=exact_match=0.95",
        *workers,
    )
    failed.assert_outcomes(passed=10)
    assert failed.ret == 1
    failed.stdout.fnmatch_lines(
        [
            "llmeval gate: FAILED: 1 row(s) below their floor: exact_match (no model) pass rate 0.800*",
            "llmeval gate: aggregate: 2 failed check(s)*; a row below its floor fails the run",
        ]
    )
    pytester.makeini("[pytest]\nllmeval_min_pass_rate = exact_match=0.3\n")
    passed = pytester.runpytest("-p", "no:randomly", "--llmeval-gate=aggregate", *workers)
    assert passed.ret == 0
    unguarded = pytester.runpytest("-p", "no:randomly", "--llmeval-gate=aggregate", "-o", "llmeval_min_pass_rate=")
    unguarded.stdout.fnmatch_lines(
        [
            "*no gate fails the run on them (add --llmeval-baseline and --llmeval-fail-on-regression, "
            "or a floor: min_pass_rate in [[]tool.llmeval.gate[]])"
        ]
    )
    passed.stdout.fnmatch_lines(["llmeval gate: PASSED: every row meets its floor (1 floor(s))"])


def test_models_are_compared_in_a_matrix_in_markdown_and_html():
    from pytest_llmeval.report import html, markdown
    from pytest_llmeval.report.aggregate import summarize
    from pytest_llmeval.report.view import view

    records = (
        [rec(i, "pass", model="a") for i in range(30)]
        + [rec(i, "pass" if i < 10 else "fail", model="b") for i in range(30)]
        + [rec(i, "pass" if i % 2 else "fail", model="c") for i in range(30)]
    )
    report = {
        "format": "pytest-llmeval-report",
        "version": 1,
        "run": {},
        "summary": summarize(records).to_dict(),
        "tests": {},
        "results": records,
    }
    matrix = view(report).models_compared
    assert matrix.models == ("a", "c", "b")  # by pass rate
    assert (
        matrix.cells[0] == ("", "+0.500*", "+0.667*")
        and matrix.cells[2][0] == "-0.667*"
        and matrix.cells[1][2] == "+0.167"
    )
    assert "## Models compared" in markdown.render(report) and "| a |  | +0.500* | +0.667* |" in markdown.render(report)
    assert 'id="models-compared"' in html.render(report)
    assert report["summary"]["best_model"] == "a"
