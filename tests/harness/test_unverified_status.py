"""Unverified is seen per test: a passed test with an unverified check gets pytest's status ``unverified`` (``u``,
``UNVERIFIED``, ``N unverified`` on the closing line) and a line with its concern above the short summary, serial,
deferred and under xdist; the exit status and the JUnit XML stay those of a passed test."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_llmeval.core.verdict import concerns
from pytest_llmeval.harness.unverified import shows_unverified, summary_message, trimmed, unverified_records

#: A check written with the public kit whose verdict is unverified whatever the fact layer's kinds: a weak metric that
#: misses its threshold (``concern=True``: it names a concern as groundedness does, evidence that does not fail).
SUITE = """
import pytest
from pytest_llmeval.kit import Evaluator, MetricSpec, Score, check

BERLIN = "'Berlin' (sentence 1) appears nowhere in the context"


class Hunch(Evaluator):
    name = "hunch"
    description = "confirms an answer holding 'ok'; leaves any other unverified"
    requires = ("actual",)
    metrics = (MetricSpec("confirmed", "1.0 when confirmed", threshold=1.0, primary=True, weak=True),)
    defaults = {"concern": True}

    def score(self, case):
        if "ok" in case.actual:
            return Score({"confirmed": 1.0}, reason="confirmed")
        evidence = [{"kind": "name", "sentence": 1, "text": "Berlin", "message": BERLIN, "fails": False}]
        return Score({"confirmed": 0.0}, reason="nothing confirms it offline",
                     details={"evidence": evidence} if self.params["concern"] else {})


def test_confirmed():
    check(Hunch, actual="ok")


def test_concern():
    check(Hunch, actual="The capital is Berlin.")


@pytest.mark.llmeval(defer=True)
def test_deferred():
    check(Hunch, actual="The capital is Berlin.")


def test_plain():
    check(Hunch, actual="The capital is Berlin.", params={"concern": False})


@pytest.mark.xfail(reason="expected to fail")
def test_expected_failure():
    check(Hunch, actual="The capital is Berlin.")


def test_failed():
    assert 1 + 1 == 3
"""

CONCERN_LINE = (
    "UNVERIFIED test_suite.py::test_concern - hunch: concern (name): 'Berlin' (sentence 1) appears nowhere in the "
    "context"
)


@pytest.fixture
def wide(monkeypatch):
    """A terminal wide enough for every summary line, and not a CI machine (where pytest writes them whole anyway)."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)


def _junit(path):
    """{test name: (the tags of its outcome elements, {property: value})}."""
    cases = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        properties = case.find("properties")
        values = {} if properties is None else {p.get("name"): p.get("value") for p in properties}
        cases[case.get("name")] = (sorted(child.tag for child in case if child.tag != "properties"), values)
    return cases


def test_a_passed_test_with_an_unverified_check_is_counted_lettered_and_listed_with_its_concern(pytester, wide):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "--junitxml=j.xml")
    assert result.parseoutcomes() == {"passed": 1, "unverified": 3, "xpassed": 1, "failed": 1}
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the failed test's doing
    result.stdout.fnmatch_lines(["test_suite.py .uuuXF*"])
    result.stdout.fnmatch_lines(
        [
            "*= unverified test summary info =*",
            CONCERN_LINE,
            "UNVERIFIED test_suite.py::test_deferred - hunch: concern (name): 'Berlin' (sentence 1) appears nowhere in "
            "the context",
            "UNVERIFIED test_suite.py::test_plain - hunch: not confirmed offline (confirmed 0.000 < threshold 1.000): "
            "nothing confirms it offline",
            "*= short test summary info =*",
            "FAILED test_suite.py::test_failed - *",
            "*= 1 failed, 1 passed, 1 xpassed, 3 unverified in *",
        ]
    )
    cases = _junit(pytester.path / "j.xml")
    for name in ("test_concern", "test_deferred", "test_plain"):
        outcome, properties = cases[name]
        assert outcome == [], name  # a passed test case
        assert properties["llmeval.hunch.verdict"] == "unverified" and properties["llmeval.hunch.passed"] == "True"
        assert '"verdict":"unverified"' in properties["llmeval"]
    assert cases["test_confirmed"][0] == [] and cases["test_failed"][0] == ["failure"]


def test_a_run_with_only_passed_and_unverified_tests_exits_0_and_says_unverified_under_v(pytester, wide):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-cache-dir=off", "-v", "-k", "not failed and not expected"
    )
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 1, "unverified": 3, "deselected": 2}
    result.stdout.fnmatch_lines(
        [
            "*::test_confirmed PASSED*",
            "*::test_concern UNVERIFIED*",
            "*::test_deferred UNVERIFIED*",
            "*::test_plain UNVERIFIED*",
        ]
    )


@pytest.mark.subprocess
def test_the_status_and_the_lines_come_from_xdist_workers(pytester, wide):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:randomly", "--llmeval-cache-dir=off", "--junitxml=j.xml"
    )
    assert result.parseoutcomes() == {"passed": 1, "unverified": 3, "xpassed": 1, "failed": 1}
    result.stdout.re_match_lines([r"^UNVERIFIED test_suite.py::test_deferred - hunch: concern \(name\): 'Berlin'"])
    result.stdout.fnmatch_lines([CONCERN_LINE])
    outcome, properties = _junit(pytester.path / "j.xml")["test_concern"]
    assert outcome == [] and properties["llmeval.hunch.verdict"] == "unverified"
    passing = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:randomly", "--llmeval-cache-dir=off", "-v", "-k", "not failed"
    )
    assert passing.ret == pytest.ExitCode.OK
    assert passing.parseoutcomes() == {
        "passed": 1,
        "unverified": 3,
        "xpassed": 1,
    }  # xdist's controller counts no deselected
    passing.stdout.fnmatch_lines(["*UNVERIFIED test_suite.py::test_plain*"])


def test_a_run_that_fails_or_skips_unverified_answers_has_no_unverified_test(pytester, wide):
    pytester.makepyfile(test_suite=SUITE)
    failing = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-unverified=fail")
    assert failing.parseoutcomes() == {"passed": 1, "failed": 4, "xfailed": 1}
    failing.stdout.fnmatch_lines(
        [
            "*llmeval hunch unverified: a concern the run does not fail on, and nothing confirms the answer "
            "offline (confirmed 0.000 < threshold 1.000)",
            "*why: nothing confirms it offline",
        ]
    )
    failing.stdout.fnmatch_lines(
        ["*llmeval hunch unverified: no evidence against the answer, but it could not be confirmed offline*"]
    )
    assert "unverified test summary info" not in failing.stdout.str()
    skipping = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-unverified=skip")
    assert skipping.parseoutcomes() == {"passed": 1, "skipped": 4, "failed": 1}  # a skip inside an xfail test skips it


@pytest.mark.parametrize(
    "args, shown",
    [
        ([], True),
        (["-ru"], True),
        (["-ra"], True),
        (["-rA"], True),
        (["-rf"], False),
        (["-rfEuN"], False),
        (["--no-summary"], False),
    ],
)
def test_the_list_follows_r_and_is_shown_by_default(pytester, wide, args, shown):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-k", "concern", *args)
    assert result.parseoutcomes() == {"unverified": 1, "deselected": 5}
    assert ("unverified test summary info" in result.stdout.str()) is shown
    assert (CONCERN_LINE in result.outlines) is shown


def test_a_line_is_cut_to_the_terminal_width_as_pytest_cuts_its_own(pytester, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-k", "concern")
    [line] = [line for line in result.outlines if line.startswith("UNVERIFIED ")]
    assert line == "UNVERIFIED test_suite.py::test_concern - hunch: concern (..." and len(line) == 60
    monkeypatch.setenv("CI", "true")  # in CI the line is whole, as pytest's own
    whole = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-k", "concern")
    assert CONCERN_LINE in whole.outlines


def test_the_records_that_make_a_test_unverified():
    import json

    def record(verdict, passed, details=None):
        return (
            "llmeval",
            json.dumps(
                {
                    "evaluator": "hunch",
                    "metrics": {"m": 0.0},
                    "primary": "m",
                    "passed": passed,
                    "verdict": verdict,
                    "reason": "why",
                    "details": details or {},
                }
            ),
        )

    def properties(*records):
        return [pair for r in records for pair in (r, ("llmeval.hunch.verdict", json.loads(r[1])["verdict"]))]

    assert unverified_records(properties(record("pass", True), record("fail", False))) == []
    assert [r["verdict"] for r in unverified_records(properties(record("pass", True), record("unverified", True)))] == [
        "unverified"
    ]
    assert unverified_records(properties(record("unverified", False))) == []  # --llmeval-unverified=fail: a failed test
    diagnostic = {"calibration": {"status": "diagnostic"}}
    assert unverified_records(properties(record("unverified", True, diagnostic))) == []  # gates nothing
    # as xdist sends them
    assert unverified_records([["llmeval", "not json"], ["llmeval.x.verdict", "unverified"]]) == []
    assert unverified_records([record("unverified", True)]) == []  # no verdict property: nothing is decoded


def test_what_a_summary_line_says():
    concern = {"kind": "name", "message": "'Berlin' (sentence 1) appears nowhere in the context", "fails": False}
    failing = {"kind": "number", "message": "'7 p.m.' (sentence 1) is not stated in the context", "fails": True}
    assert concerns("", {"evidence": [failing, concern]}) == [
        "concern (name): 'Berlin' (sentence 1) appears nowhere in the context"
    ]
    reason = (
        "concern (time, name: a kind that only warns, see fail_on): '7 p.m.' "
        "(sentence 1) is not stated; least supported ..."
    )
    assert concerns(reason, {}) == ["concern (time, name): '7 p.m.' (sentence 1) is not stated"]
    # the reason is masked (a PII check's findings), the details are not: the first concern is quoted from the reason
    masked = {
        "kind": "name",
        "message": "'anna.berg@example.com' (sentence 1) appears nowhere in the context",
        "fails": False,
    }
    reason = (
        "concern (name: a kind that only warns, see fail_on): 'a***@example.com' "
        "(sentence 1) appears nowhere in the context"
    )
    assert concerns(reason, {"evidence": [masked, concern]}) == [
        "concern (name): 'a***@example.com' (sentence 1) appears nowhere in the context",
        concerns("", {"evidence": [concern]})[0],
    ]
    assert concerns("least supported sentence 1 (support 0.552)", {"evidence": [failing]}) == []
    records = [
        {"evaluator": "groundedness", "reason": "r", "details": {"evidence": [concern, dict(concern, kind="date")]}},
        {
            "evaluator": "answer_accuracy",
            "reason": "the closest sentence is far\nmore",
            "details": {},
            "metrics": {"similarity": 0.6123, "fact_support": 1.0},
            "thresholds": {"similarity": 0.8, "fact_support": 1.0},
            "higher_is_better": {"similarity": True},
        },
    ]
    assert summary_message(records) == (
        "groundedness: concern (name): 'Berlin' (sentence 1) appears nowhere in the context "
        "(and 1 more concern); answer_accuracy: not confirmed offline (similarity 0.612 < "
        "threshold 0.800): the closest sentence is far"
    )
    assert summary_message([{"evaluator": "x", "metrics": "?"}]) == "x: not confirmed offline"


def test_reportchars_and_trimming():
    assert shows_unverified("fE") and shows_unverified("u") and shows_unverified("a") and shows_unverified("NA")
    assert not shows_unverified("f") and not shows_unverified("") and not shows_unverified("uN")
    assert trimmed("short", 20) == " - short"
    assert trimmed("a longer message than fits", 15) == " - a longer ..."
    assert trimmed("東京の話", 10) == " - 東京..."  # wide characters take two columns
    assert trimmed("anything", 5) is None


def test_an_unverified_message_opens_with_its_concern_when_it_names_one():
    from pytest_llmeval.core.result import Result, Signature
    from pytest_llmeval.run.check import format_failure

    def result(reason, details):
        return Result(
            "groundedness",
            {"support": 0.9, "concerns": 1.0},
            primary="support",
            passed=False,
            thresholds={"support": 0.7, "concerns": 0.0},
            higher_is_better={"support": True, "concerns": False},
            signature=Signature("groundedness", "1"),
            reason=reason,
            details=details,
            verdict="unverified",
        )

    named = result(
        "concern (name: a kind that only warns, see fail_on): 'Berlin' (sentence 1) appears nowhere in the context",
        {
            "evidence": [
                {"kind": "name", "message": "'Berlin' (sentence 1) appears nowhere in the context", "fails": False}
            ]
        },
    )
    message = format_failure(named)
    assert message.startswith(
        "llmeval groundedness unverified: a concern the run does not fail on, and nothing confirms the "
        "answer offline (concerns 1 > threshold 0)\n"
    )
    assert "no evidence against the answer" not in message and "why: concern (name" in message
    plain = format_failure(result("least supported sentence 1 (support 0.552)", {}))
    assert plain.startswith(
        "llmeval groundedness unverified: no evidence against the answer, but it could not be confirmed offline"
    )
