"""Comparison with a saved baseline: like with like only, paired tests per row, significant regressions gate the run
when asked."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.report.baseline import compare

V1 = """
from pytest_llmeval import assert_exact_match, assert_rouge

def test_a():
    assert_exact_match("Paris", "Paris")

def test_b():
    assert_exact_match("Lyon", "Paris")

def test_c():
    assert_rouge("the cat sat on the mat", "the cat sat on the mat", threshold=0.5)
"""

V2 = """
from pytest_llmeval import assert_exact_match, assert_rouge

def test_a():
    assert_exact_match("Lyon", "Paris")          # regressed

def test_b():
    assert_exact_match("Paris", "Paris")         # improved

def test_c():
    assert_rouge("the cat sat on the mat", "the cat sat on the mat", threshold=0.5, use_stemmer=True)  # another \
signature

def test_new():
    assert_exact_match("x", "x")
"""


def test_flips_are_evidence_and_unlike_scores_are_not_compared(pytester):
    pytester.makepyfile(test_suite=V1)
    pytester.runpytest("--llmeval-report=base.json")
    pytester.makepyfile(test_suite=V2)
    result = pytester.runpytest(
        "--llmeval-baseline=base.json",
        "--llmeval-report=now.json",
        "--llmeval-report=now.md",
        "--llmeval-fail-on-regression",
    )
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 1  # test_a's check failed; the gate itself found no significant regression
    result.stdout.fnmatch_lines(
        [
            "llmeval verdict: inconclusive: no significant regression, but for exact_match fail rate this suite cannot "
            "detect a change under 100 points; needs about * cases*",
            "llmeval baseline base.json: 1 row(s) compared over 2 matched result(s); 1 not comparable (signature "
            "changed); 2 new, 1 gone",
            "  inconclusive: exact_match fail rate: 0.500 -> 0.500 (+0.000, CI *, p=*, 2 cases): this suite cannot "
            "detect a change under 100 points*",
            "  evidence: 1 result(s) moved to a failure, 1 from one*",
            "    worse: exact_match exact_match 1.000 -> 0.000 (passed -> failed): test_suite.py::test_a",
            "    better: exact_match exact_match 0.000 -> 1.000 (failed -> passed): test_suite.py::test_b",
        ]
    )
    assert "failing the run" not in result.stdout.str()
    report = json.loads((pytester.path / "now.json").read_text())["baseline"]
    assert report["not_comparable"] == [{"nodeid": "test_suite.py::test_c", "evaluator": "rouge", "changed": "params"}]
    assert [c["kind"] for c in report["changes"]] == ["worse", "better"]
    assert report["verdict"] == "inconclusive" and report["regressions"] == 0
    markdown = (pytester.path / "now.md").read_text()
    assert "## Compared with baseline" in markdown and "**Verdict: inconclusive" in markdown


SCALED = """
import os
import pytest
from pytest_llmeval import evaluate

FAILING = int(os.environ.get("FAILING", "0"))

@pytest.mark.parametrize("i", range(40))
def test_case(i):
    evaluate("exact_match", actual="Lyon" if i < FAILING else "Paris", expected="Paris")  # recorded, not asserted
"""


def test_fail_on_regression_gates_only_a_significant_regression(pytester, monkeypatch):
    pytester.makepyfile(test_suite=SCALED)
    pytester.runpytest("--llmeval-report=base.json")
    monkeypatch.setenv("FAILING", "1")  # one flip in 40 cases: noise until shown otherwise
    one = pytester.runpytest("--llmeval-baseline=base.json", "--llmeval-fail-on-regression")
    one.assert_outcomes(passed=40)
    assert one.ret == 0
    one.stdout.fnmatch_lines(["llmeval verdict: inconclusive*", "    worse: exact_match*test_suite.py::test_case?0?"])
    monkeypatch.setenv("FAILING", "12")
    gated = pytester.runpytest(
        "--llmeval-baseline=base.json", "--llmeval-fail-on-regression", "--llmeval-report=now.json"
    )
    gated.assert_outcomes(passed=40)
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(
        [
            "llmeval verdict: regressed: exact_match fail rate 0.000 -> 0.300*",
            "  regressed: exact_match fail rate: 0.000 -> 0.300 (+0.300, CI +*..+*, p=0.000*, 40 cases)",
            "llmeval baseline: failing the run (--llmeval-fail-on-regression)",
        ]
    )
    row = json.loads((pytester.path / "now.json").read_text())["baseline"]["rows"][0]
    assert (
        row["verdict"] == "regressed"
        and row["test"] == "McNemar exact, one-sided"
        and row["ci_low"] <= row["difference"] <= row["ci_high"]
    )
    plain = pytester.runpytest("--llmeval-baseline=base.json")  # no gate asked for: reported, not failed
    assert plain.ret == 0
    # McNemar's exact one-sided p of 12 flips one way and none back is 1 / 2**12 = 0.00024
    assert (
        pytester.runpytest(
            "--llmeval-baseline=base.json", "--llmeval-fail-on-regression", "--override-ini=llmeval_alpha=0.001"
        ).ret
        == 1
    )
    assert (
        pytester.runpytest(
            "--llmeval-baseline=base.json", "--llmeval-fail-on-regression", "--override-ini=llmeval_alpha=0.0001"
        ).ret
        == 0
    )
    tolerant = pytester.runpytest(
        "--llmeval-baseline=base.json", "--llmeval-fail-on-regression", "--override-ini=llmeval_baseline_tolerance=0.5"
    )
    # the tolerance says what counts as unchanged; it is no extra hurdle for a significant regression
    assert tolerant.ret == 1
    monkeypatch.setenv("FAILING", "0")
    same = pytester.runpytest("--llmeval-baseline=base.json", "--llmeval-fail-on-regression")
    assert same.ret == 0  # no flip in 40 cases still leaves a 5-point change possible: inconclusive, said so
    same.stdout.fnmatch_lines(
        ["llmeval verdict: inconclusive*could detect a change of about 10 points; needs about 150 cases*"]
    )
    wider = pytester.runpytest("--llmeval-baseline=base.json", "--override-ini=llmeval_baseline_tolerance=0.1")
    wider.stdout.fnmatch_lines(["llmeval verdict: unchanged within +-0.1*", "  1 row(s) unchanged within +-0.1"])


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--llmeval-baseline=missing.json"],
            "*--llmeval-baseline / llmeval_baseline: cannot read the baseline*missing.json*",
        ),
        (["--llmeval-baseline=bad.json"], "*is not a pytest-llmeval report*"),
        (["--llmeval-fail-on-regression"], "*--llmeval-fail-on-regression needs a baseline*"),
        (
            ["--llmeval-baseline=bad.json", "--override-ini=llmeval_baseline_tolerance=-1"],
            "*expected a number from 0 to 1*",
        ),
        (["--llmeval-baseline=bad.json", "--override-ini=llmeval_alpha=1.5"], "*expected a number between 0 and 1*"),
    ],
)
def test_bad_baselines_are_usage_errors(pytester, args, message):
    (pytester.path / "bad.json").write_text(json.dumps({"format": "other"}))
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def record(nodeid, value, passed, model="m", version="1"):
    return {
        "nodeid": nodeid,
        "evaluator": "e",
        "primary": "m",
        "metrics": {"m": value},
        "passed": passed,
        "higher_is_better": {"m": True},
        "model": model,
        "signature": {"evaluator": "e", "version": version},
    }


def test_a_mean_is_compared_paired_and_unlike_signatures_never():
    cases = [f"t::{i}" for i in range(30)]
    baseline = {"results": [{**record(c, 0.80 + 0.005 * (i % 5), True), "case_id": c} for i, c in enumerate(cases)]}
    lower = [{**record(c, 0.70 + 0.005 * (i % 5), True), "case_id": c} for i, c in enumerate(cases)]
    result = compare(lower, baseline, tolerance=0.05)
    assert [(r.measure, r.verdict) for r in result.rows] == [("mean", "regressed"), ("fail rate", "inconclusive")]
    mean = result.rows[0]
    assert mean.difference == pytest.approx(-0.1) and mean.ci_low <= mean.difference <= mean.ci_high
    assert mean.test == "sign-flip permutation (20000 draws), one-sided" and mean.p_adjusted < 0.001
    # the tolerance says what counts as unchanged; a significant drop is a regression whatever its size
    assert compare(lower, baseline, tolerance=0.2).rows[0].verdict == "regressed"
    assert result.changes == ()  # no result moved to or from a failure
    bumped = [record("t::0", 0.1, False, version="2")]
    other = compare(bumped, baseline)
    assert other.rows == () and other.compared == 0 and other.not_comparable[0]["changed"] == "version"
    assert other.verdict == "not compared"


def test_rows_are_corrected_together_with_holm():
    """Twenty rows of pure noise: each row's own p-value may dip below alpha; Holm's adjustment over all rows keeps
    them."""
    import random

    rng = random.Random(7)
    before, now = [], []
    for model in range(20):
        for i in range(30):
            before.append({**record(f"t::{i}", 0.0, rng.random() < 0.7, model=f"m{model}"), "case_id": f"q{i}"})
            now.append({**record(f"t::{i}", 0.0, rng.random() < 0.7, model=f"m{model}"), "case_id": f"q{i}"})
    result = compare(now, {"results": before})
    assert len(result.rows) == 20 and result.regressions == []
    assert all(r.p_adjusted >= r.p_value for r in result.rows)
    assert min(r.p_adjusted for r in result.rows) == pytest.approx(min(1.0, 20 * min(r.p_value for r in result.rows)))


@pytest.mark.parametrize("action_before, action_now", [("pass", "pass"), ("fail", "fail"), ("pass", "fail")])
def test_an_unverified_verdict_is_neither_a_regression_nor_an_improvement(action_before, action_now):
    """A result moving between pass and unverified is no change, whatever the run made of unverified; only a move
    to or from a failure on evidence is."""

    def verdict_record(nodeid, verdict, action):
        rec = record(nodeid, 0.5, verdict == "pass" or (verdict == "unverified" and action != "fail"))
        return {**rec, "verdict": verdict}

    baseline = {
        "results": [
            verdict_record("t::a", "pass", action_before),
            verdict_record("t::b", "unverified", action_before),
            verdict_record("t::c", "unverified", action_before),
            verdict_record("t::d", "fail", action_before),
        ]
    }
    now = [
        verdict_record("t::a", "unverified", action_now),
        verdict_record("t::b", "pass", action_now),
        verdict_record("t::c", "fail", action_now),
        verdict_record("t::d", "unverified", action_now),
    ]
    changes = list(compare(now, baseline).changes)
    assert [(c.nodeid, c.kind, c.was, c.now) for c in changes] == [
        ("t::c", "worse", "unverified", "fail"),
        ("t::d", "better", "fail", "unverified"),
    ]
    assert changes[0].describe().endswith("(unverified -> failed): t::c")


def test_the_headline_names_the_row_that_moved_most_and_new_failures_are_marked():
    from pytest_llmeval.report.markdown import render as markdown
    from pytest_llmeval.report.view import view

    def rec(check, i, passed):
        return {
            "nodeid": f"t::{check}{i}",
            "case_id": f"{check}{i}",
            "evaluator": check,
            "primary": "m",
            "metrics": {"m": float(passed)},
            "passed": passed,
            "verdict": "pass" if passed else "fail",
            "higher_is_better": {"m": True},
            "model": "x",
            "signature": {"evaluator": check, "version": "1"},
        }

    before = [rec("steady", i, i % 2 == 0) for i in range(6)] + [rec("moved", i, True) for i in range(6)]
    now = [rec("steady", i, i % 2 == 0) for i in range(6)] + [rec("moved", i, i >= 2) for i in range(6)]
    comparison = compare(now, {"results": before})
    assert comparison.verdict == "inconclusive"
    assert comparison.verdict_line().startswith("inconclusive: no significant regression, but for moved fail rate")
    report = {
        "format": "pytest-llmeval-report",
        "version": 1,
        "run": {},
        "summary": {},
        "tests": {},
        "baseline": comparison.to_dict(),
        "results": [{**r, "outcome": "passed"} for r in now],
    }
    failures = view(report).failures.rows
    assert {r.test: r.new for r in failures} == {
        "t::steady1": False,
        "t::steady3": False,
        "t::steady5": False,
        "t::moved0": True,
        "t::moved1": True,
    }
    assert "| **new** " in markdown(report)
