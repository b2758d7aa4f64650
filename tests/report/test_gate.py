"""The noise-aware gate as a user meets it: the aggregate gate mode, repeats of a case (serial and under xdist),
intervals on every leaderboard row, and the baseline comparison read back from every report."""

from __future__ import annotations

import json

import pytest

#: Deterministic "draws": case i passes in draw d unless (i + d) % 3 == 0, so some cases are flaky, none random.
DRAWN = """
import pytest
from pytest_llmeval import assert_exact_match

@pytest.mark.parametrize("i", range(6))
def test_case(i, llmeval_draw):
    assert_exact_match("Lyon" if (i + llmeval_draw) % 3 == 0 else "Paris", "Paris")
"""


def _summary(path):
    return json.loads(path.read_text())["summary"]


def test_per_test_gate_is_the_default_and_unchanged(pytester):
    pytester.makepyfile(test_suite=DRAWN)
    result = pytester.runpytest("--llmeval-report=r.json")
    result.assert_outcomes(passed=4, failed=2)  # one draw: (i + 1) % 3 == 0 fails for i = 2 and 5
    assert result.ret == 1
    assert "llmeval gate" not in result.stdout.str()


def test_aggregate_gate_records_a_failed_check_without_failing_its_test(pytester):
    pytester.makepyfile(
        test_suite=DRAWN
        + """

def test_raises():
    raise RuntimeError("not a check: still an error of the test")
"""
    )
    result = pytester.runpytest("--llmeval-gate=aggregate", "--llmeval-report=r.json", "--junitxml=j.xml")
    result.assert_outcomes(passed=6, failed=1)  # the checks' failures are recorded; the exception still fails its test
    result.stdout.fnmatch_lines(
        [
            "llmeval gate: aggregate: 2 failed check(s) recorded without failing their tests; no gate "
            "fails the run on them*"
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert sorted(r["verdict"] for r in report["results"]) == ["fail"] * 2 + ["pass"] * 4
    assert report["tests"]["test_suite.py::test_case[2]"] == "passed"
    assert '<property name="llmeval.exact_match.verdict" value="fail"' in (pytester.path / "j.xml").read_text()


@pytest.mark.parametrize("where", ["ini", "env"])
def test_aggregate_gate_from_the_ini_file_or_the_environment(pytester, monkeypatch, where):
    pytester.makepyfile(test_suite=DRAWN)
    if where == "ini":
        pytester.makeini("[pytest]\nllmeval_gate = aggregate\n")
    else:
        monkeypatch.setenv("LLMEVAL_GATE", "aggregate")
    pytester.runpytest().assert_outcomes(passed=6)


def test_a_bad_gate_or_repeat_is_a_usage_error(pytester):
    pytester.makepyfile(
        test_suite=DRAWN
        + """

@pytest.mark.llmeval(repeat=0)
def test_bad():
    pass
"""
    )
    result = pytester.runpytest("--llmeval-gate=lenient")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected one of per-test, aggregate, strict; got 'lenient'*"])
    result = pytester.runpytest()
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        ["*@pytest.mark.llmeval(repeat=...): repeat takes an integer from 1 to 1000, or auto?:MAX? *; got 0*"]
    )


def test_repeats_are_draws_of_one_case(pytester):
    pytester.makepyfile(
        test_suite=DRAWN
        + """

@pytest.mark.llmeval(repeat=2)
def test_marked(llmeval_draw):
    assert_exact_match("Paris", "Paris")
"""
    )
    result = pytester.runpytest("--llmeval-repeat=3", "--llmeval-gate=aggregate", "--llmeval-report=out", "-v")
    result.assert_outcomes(passed=6 * 3 + 2)
    result.stdout.fnmatch_lines(["*test_case?0-draw1? PASSED*", "*test_marked?draw2? PASSED*"])
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    cases = {r["nodeid"]: (r["case_id"], r["tags"]["draw"]) for r in report["results"]}
    assert cases["test_suite.py::test_case[4-draw2]"] == ("test_suite.py::test_case[4]", 2)
    assert cases["test_suite.py::test_marked[draw2]"] == ("test_suite.py::test_marked", 2)
    summary = report["summary"]
    row = summary["leaderboard"][0]
    assert (row["count"], row["cases"], row["k"], row["flaky"]) == (20, 7, 2, 6)
    # per case: draws 1..3 of case i fail where (i + d) % 3 == 0: one failure in three draws for every case i
    draws = {c["case_id"]: (c["passed"], c["draws"]) for c in summary["repeats"]}
    assert draws["test_suite.py::test_case[0]"] == (2, 3) and draws["test_suite.py::test_marked"] == (2, 2)
    assert [c["case_id"] for c in summary["flaky"]] == [f"test_suite.py::test_case[{i}]" for i in range(6)]
    # pass@2 of a case passing 2 of 3 draws is 1, pass^2 is C(2,2)/C(3,2) = 1/3; the marked case has 1 and 1
    assert row["pass_at_k"] == pytest.approx(1.0) and row["pass_hat_k"] == pytest.approx((6 / 3 + 1) / 7)
    result.stdout.fnmatch_lines(
        [
            "repeats: exact_match: 7 cases, pass@2 1.000, pass^2 0.429, 6 flaky",
            "  flaky: exact_match: passed 2 of 3 draws: test_suite.py::test_case?0?",
        ]
    )
    markdown = (pytester.path / "out" / "report.md").read_text()
    assert "## Repeated cases" in markdown and "Flaky cases (passed in some draws, failed in others):" in markdown
    assert "Flaky cases" in (pytester.path / "out" / "report.html").read_text()


@pytest.mark.subprocess
def test_repeats_under_xdist_are_grouped_as_in_a_serial_run(pytester):
    pytester.makepyfile(test_suite=DRAWN)
    pytester.runpytest("--llmeval-repeat=3", "--llmeval-gate=aggregate", "--llmeval-report=serial.json")
    result = pytester.runpytest_subprocess(
        "-n", "2", "--llmeval-repeat=3", "--llmeval-gate=aggregate", "--llmeval-report=parallel.json"
    )
    result.assert_outcomes(passed=18)
    serial, parallel = _summary(pytester.path / "serial.json"), _summary(pytester.path / "parallel.json")
    for key in ("leaderboard", "repeats", "flaky", "hardest_case"):
        assert serial[key] == parallel[key], key


def test_every_leaderboard_row_carries_intervals(pytester):
    pytester.makepyfile(
        test_suite="""
        import pytest
        from pytest_llmeval import evaluate

        @pytest.mark.parametrize("i", range(12))
        def test_scores(i, llmeval_draw):
            evaluate("rouge", actual="the cat sat" if i % 2 else "a dog ran far away", expected="the cat sat on the \
mat")
            evaluate("exact_match", actual="Paris" if i % 4 else "Lyon", expected="Paris")
    """
    )
    pytester.runpytest("--llmeval-report=r.json", "--llmeval-repeat=2", "--override-ini=llmeval_alpha=0.1")
    summary = _summary(pytester.path / "r.json")
    assert summary["interval_level"] == pytest.approx(0.9)
    for row in summary["leaderboard"]:
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
        assert row["pass_ci_low"] <= row["pass_rate"] <= row["pass_ci_high"]
        assert row["cases"] == 12 and row["count"] == 24


def test_a_baseline_without_repeats_is_compared_case_by_case(pytester):
    """A baseline run once per case and a run repeating every case meet case by case; more draws are not 'new' tests."""
    pytester.makepyfile(test_suite=DRAWN)
    pytester.runpytest("--llmeval-gate=aggregate", "--llmeval-report=base.json")
    result = pytester.runpytest(
        "--llmeval-gate=aggregate",
        "--llmeval-repeat=3",
        "--llmeval-baseline=base.json",
        "--llmeval-report=now.json",
        "--llmeval-report=now.html",
    )
    result.stdout.fnmatch_lines(["llmeval baseline base.json: 1 row(s) compared over 6 matched result(s)"])
    baseline = json.loads((pytester.path / "now.json").read_text())["baseline"]
    assert baseline["new"] == 0 and baseline["missing"] == 0
    row = baseline["rows"][0]
    assert row["cases"] == 6 and (row["results_before"], row["results_after"]) == (6, 18)
    assert row["test"].startswith("sign-flip permutation") and row["verdict"] == "inconclusive"
    html = (pytester.path / "now.html").read_text()
    junit = pytester.runpytest("--llmeval-baseline=base.json", "--junitxml=j.xml")
    xml = (pytester.path / "j.xml").read_text()
    assert (
        '<property name="llmeval.verdict" value="' in xml
        and 'name="llmeval.exact_match.exact_match.pass_rate_ci"' in xml
    )
    assert junit.ret == 1  # per-test gate: the failing draws fail their tests
    assert "<b>Verdict:</b> inconclusive" in html and "could detect a change of about" in html


def test_an_older_baseline_without_verdicts_or_draws_is_still_compared(pytester):
    """A report written before verdicts, case ids and repeats (passed only) is read as pass or fail."""
    pytester.makepyfile(test_suite=DRAWN)
    pytester.runpytest("--llmeval-report=base.json")
    report = json.loads((pytester.path / "base.json").read_text())
    for record in report["results"]:
        record.pop("verdict", None)
        record.pop("case_id", None)
    del report["summary"], report["baseline"]
    (pytester.path / "old.json").write_text(json.dumps(report))
    result = pytester.runpytest("--llmeval-baseline=old.json", "--llmeval-report=now.json")
    baseline = json.loads((pytester.path / "now.json").read_text())["baseline"]
    assert baseline["rows"][0]["cases"] == 6 and baseline["rows"][0]["difference"] == 0.0
    result.stdout.fnmatch_lines(["llmeval verdict: inconclusive*"])
