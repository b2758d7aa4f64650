"""Comparison with a saved baseline: like with like only, regressions gate the run when asked."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.baseline import compare

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
    assert_rouge("the cat sat on the mat", "the cat sat on the mat", threshold=0.5, use_stemmer=True)  # another signature

def test_new():
    assert_exact_match("x", "x")
"""


def test_regressions_improvements_and_unlike_scores(pytester):
    pytester.makepyfile(test_suite=V1)
    pytester.runpytest("--llmeval-report=base.json")
    pytester.makepyfile(test_suite=V2)
    result = pytester.runpytest("--llmeval-baseline=base.json", "--llmeval-report=now.json", "--llmeval-report=now.md")
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "llmeval baseline base.json: 1 regression(s), 1 improvement(s) in 2 comparable result(s); 1 not comparable "
        "(signature changed); 2 new, 1 gone",
        "  regression: exact_match exact_match 1.000 -> 0.000 (passed -> failed): test_suite.py::test_a",
        "  improvement: exact_match exact_match 0.000 -> 1.000 (failed -> passed): test_suite.py::test_b",
    ])
    report = json.loads((pytester.path / "now.json").read_text())["baseline"]
    assert report["not_comparable"] == [{"nodeid": "test_suite.py::test_c", "evaluator": "rouge", "changed": "params"}]
    assert [c["scope"] for c in report["changes"]] == ["result", "result"]  # over the shared tests the mean is 0.5 both times
    assert "## Compared with baseline" in (pytester.path / "now.md").read_text()


def test_fail_on_regression_gates_an_otherwise_green_run(pytester):
    pytester.makepyfile(test_suite="""
        from pytest_llmeval import evaluate

        def test_a():
            evaluate("exact_match", actual="Paris", expected="Paris")
    """)
    pytester.runpytest("--llmeval-report=base.json")
    pytester.makepyfile(test_suite="""
        from pytest_llmeval import evaluate

        def test_a():
            evaluate("exact_match", actual="Lyon", expected="Paris")   # recorded, not asserted: the test passes
    """)
    plain = pytester.runpytest("--llmeval-baseline=base.json")
    assert plain.ret == 0
    gated = pytester.runpytest("--llmeval-baseline=base.json", "--llmeval-fail-on-regression")
    gated.assert_outcomes(passed=1)
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(["llmeval baseline: failing the run (--llmeval-fail-on-regression)"])
    tolerant = pytester.runpytest("--llmeval-baseline=base.json", "--llmeval-baseline-tolerance=1")
    tolerant.stdout.fnmatch_lines(["llmeval baseline base.json: 1 regression(s), 0 improvement(s)*"])  # the pass/fail change still counts


@pytest.mark.parametrize("args, message", [
    (["--llmeval-baseline=missing.json"], "*--llmeval-baseline / llmeval_baseline: cannot read the baseline*missing.json*"),
    (["--llmeval-baseline=bad.json"], "*is not a pytest-llmeval report*"),
    (["--llmeval-fail-on-regression"], "*--llmeval-fail-on-regression needs a baseline*"),
    (["--llmeval-baseline=bad.json", "--llmeval-baseline-tolerance=-1"], "*expected a non-negative number*"),
])
def test_bad_baselines_are_usage_errors(pytester, args, message):
    (pytester.path / "bad.json").write_text(json.dumps({"format": "other"}))
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def record(nodeid, value, passed, model="m", version="1"):
    return {"nodeid": nodeid, "evaluator": "e", "primary": "m", "metrics": {"m": value}, "passed": passed,
            "higher_is_better": {"m": True}, "model": model, "signature": {"evaluator": "e", "version": version}}


def test_mean_moves_beyond_the_tolerance_only():
    baseline = {"results": [record("t::a", 0.80, True), record("t::b", 0.80, True)]}
    now = [record("t::a", 0.70, True), record("t::b", 0.76, True)]
    assert [(c.kind, c.scope) for c in compare(now, baseline, tolerance=0.05).changes] == [("regression", "mean")]
    assert compare(now, baseline, tolerance=0.1).changes == ()
    bumped = [record("t::a", 0.1, False, version="2")]
    result = compare(bumped, baseline)
    assert result.changes == () and result.compared == 0 and result.not_comparable[0]["changed"] == "version"


@pytest.mark.parametrize("action_before, action_now", [("pass", "pass"), ("fail", "fail"), ("pass", "fail")])
def test_an_unverified_verdict_is_neither_a_regression_nor_an_improvement(action_before, action_now):
    """A result moving between pass and unverified is no change, whatever the run made of unverified; only a move
    to or from a failure on evidence is."""
    def verdict_record(nodeid, verdict, action):
        rec = record(nodeid, 0.5, verdict == "pass" or (verdict == "unverified" and action != "fail"))
        return {**rec, "verdict": verdict}

    baseline = {"results": [verdict_record("t::a", "pass", action_before), verdict_record("t::b", "unverified", action_before),
                            verdict_record("t::c", "unverified", action_before), verdict_record("t::d", "fail", action_before)]}
    now = [verdict_record("t::a", "unverified", action_now), verdict_record("t::b", "pass", action_now),
           verdict_record("t::c", "fail", action_now), verdict_record("t::d", "unverified", action_now)]
    changes = [c for c in compare(now, baseline).changes if c.scope == "result"]
    assert [(c.nodeid, c.kind, c.was, c.now) for c in changes] == [
        ("t::c", "regression", "unverified", "fail"), ("t::d", "improvement", "fail", "unverified")]
    assert changes[0].describe().endswith("(unverified -> failed): t::c")
