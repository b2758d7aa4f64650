"""Deferred scoring: a test that needs no verdict at once queues its checks, scored in batches across tests; the
records, JUnit properties, outcomes and reports are those of in-place scoring, serial and under xdist."""

from __future__ import annotations

import json

import pytest

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match, assert_grounded, assert_no_pii

CONTEXT = ["The museum opens at 9 am. A guided tour costs 8 euros and lasts 45 minutes.",
           "Children under 12 enter for free."]
ANSWERS = ["A guided tour costs 8 euros.", "A guided tour costs 15 euros.", "The tour is led by volunteers.",
           "Tours last 45 minutes; call 555-0142 to book."]

{marker}
@pytest.mark.parametrize("i", range(len(ANSWERS)))
def test_answer(i):
    assert_grounded(ANSWERS[i], CONTEXT)


{marker}
def test_pii():
    answer = "Write to anna.berg@example.com to book."
    assert_exact_match(answer, answer)
    assert_no_pii(answer)  # last: in place, a failed check ends its test under the per-test gate


{marker}
@pytest.mark.parametrize("i", range(len(ANSWERS)))
def test_exact(i):
    assert_exact_match(ANSWERS[i], ANSWERS[i % 3])


{marker}
def test_reads_its_result():
    result = assert_exact_match("Paris", "Paris")
    assert result.passed and result.verdict == "pass"
"""


def _rounded(value):
    """A record with its floats to 5 places: a sentence's embedding moves in the 8th place with the batch it is encoded
    in."""
    if isinstance(value, float):
        return round(value, 5)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    return [_rounded(item) for item in value] if isinstance(value, list) else value


def _run(pytester, junit_properties, *args: str, marker: str = ""):
    pytester.makepyfile(test_suite=SUITE.format(marker=marker))
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-cache-dir=off", "--junitxml=j.xml", "--llmeval-report=r.json", *args
    )
    report = json.loads((pytester.path / "r.json").read_text())
    records = sorted(json.dumps(_rounded(r), sort_keys=True) for r in report["results"])
    cases, _ = junit_properties(pytester.path / "j.xml")
    cases = {
        name: [(key, json.dumps(_rounded(json.loads(value))) if key == "llmeval" else value) for key, value in found]
        for name, found in cases.items()
    }
    return result, report, records, cases


@pytest.mark.parametrize("gate", ["per-test", "aggregate"])
def test_deferred_and_in_place_runs_agree(pytester, junit_properties, model_stack, gate):
    gating = [f"--llmeval-gate={gate}"]
    marker = "@pytest.mark.llmeval(defer=True)" if gate == "per-test" else ""
    in_place, report, records, cases = _run(pytester, junit_properties, *gating, "--llmeval-defer=off", marker=marker)
    deferred, report_d, records_d, cases_d = _run(
        pytester, junit_properties, *gating, "--llmeval-defer=auto,3", marker=marker
    )
    assert records_d == records and cases_d == cases and report_d["tests"] == report["tests"]
    verdicts = {(r["nodeid"], r["evaluator"]): r["verdict"] for r in report["results"]}
    assert {verdicts[f"test_suite.py::test_answer[{i}]", "groundedness"] for i in range(4)} == {
        "pass",
        "fail",
        "unverified",
    }
    assert "anna.berg@example.com" not in str(report["results"])  # the PII check masks it in every record of its test
    outcomes = deferred.parseoutcomes()
    assert outcomes == in_place.parseoutcomes()
    assert outcomes.get("failed", 0) == (4 if gate == "per-test" else 0)  # the gate decides
    if gate == "per-test":
        deferred.stdout.fnmatch_lines(
            [
                "*FAILED test_suite.py::test_answer[[]1[]] - llmeval groundedness failed*",
                "*FAILED test_suite.py::test_exact[[]3[]] - llmeval exact_match failed*",
            ]
        )


def test_deferred_under_xdist_agrees_with_serial(pytester, junit_properties, model_stack):
    pytest.importorskip("xdist")
    marker = "@pytest.mark.llmeval(defer=True)"
    _, report, records, cases = _run(pytester, junit_properties, "--llmeval-defer=off", marker=marker)
    result, report_x, records_x, cases_x = _run(pytester, junit_properties, "-n", "2", marker=marker)
    assert records_x == records and cases_x == cases and report_x["tests"] == report["tests"]
    result.assert_outcomes(passed=5, failed=4)
    assert result.parseoutcomes()["unverified"] == 1  # the reworded answer's test: its status read on the controller


BATCHES = '''
import json, os
import pytest
from pytest_llmeval import Evaluator, MetricSpec, Score, assert_check


class Counted(Evaluator):
    """Writes the size of every batch it scores; fails an answer "bad", raises on an answer "boom"."""

    name = "counted"
    metrics = (MetricSpec("ok", "1 unless the answer is bad", primary=True),)

    def score_batch(self, cases):
        with open("batches.txt", "a") as handle:
            handle.write(f"{len(cases)}\\n")
        if any(case.actual == "boom" for case in cases):
            raise ValueError("the scorer broke on this answer")
        return [Score({"ok": 0.0 if case.actual == "bad" else 1.0}) for case in cases]


def pytest_llmeval_register_evaluators(registry):
    registry.register("counted", Counted)
'''


def _batches(pytester) -> list[int]:
    path = pytester.path / "batches.txt"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def test_checks_of_many_tests_are_scored_as_one_batch_every_n_tests(pytester):
    pytester.makeconftest(BATCHES)
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_check

        @pytest.mark.parametrize("i", range(10))
        def test_answer(i, llmeval_deferred):
            assert_check("counted", actual="fine")
            llmeval_deferred.check("counted", actual="bad" if i == 4 else "fine", case=f"second-{i}")
    """)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-defer=auto,4", "--junitxml=j.xml")
    result.assert_outcomes(passed=9, failed=1)
    assert _batches(pytester) == [8, 8, 4]  # 4 tests' two checks at a time (one batch per check and thresholds)
    result.stdout.fnmatch_lines(["*_ test_answer[[]4[]] _*", "llmeval counted failed: ok 0.000 < threshold 0.500"])
    # In place: one batch a check; the same outcomes.
    (pytester.path / "batches.txt").unlink()
    pytester.runpytest("-p", "no:randomly", "--llmeval-defer=off").assert_outcomes(passed=9, failed=1)
    assert _batches(pytester) == [1] * 20


def test_a_broken_case_costs_no_other_test_its_verdict(pytester, read_json):
    pytester.makeconftest(BATCHES)
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_check

        @pytest.mark.llmeval(defer=True)
        @pytest.mark.parametrize("answer", ["fine", "boom", "bad", "fine again"])
        def test_answer(answer):
            assert_check("counted", actual=answer)
    """)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.json")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        ["*_ test_answer[[]boom[]] _*", "llmeval counted raised ValueError: the scorer broke on this answer"]
    )
    assert _batches(pytester) == [4, 1, 1, 1, 1]  # the batch broke: each case alone
    records = read_json(pytester.path / "r.json")["results"]
    assert sorted(r["excerpt"] for r in records) == ["bad", "fine", "fine again"]


def test_reading_a_deferred_result_scores_it_and_raises_as_in_place(pytester):
    pytester.makeconftest(BATCHES)
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_check

        @pytest.mark.llmeval(defer=True)
        def test_reads_a_failure():
            result = assert_check("counted", actual="bad")
            print(result.passed)
            raise RuntimeError("not reached: reading the failed result fails the test")

        @pytest.mark.llmeval(defer=True)
        def test_reads_a_pass():
            first = assert_check("counted", actual="fine")
            second = assert_check("counted", actual="fine", case="other")
            assert repr(second) == "<deferred counted result, not scored yet>"
            assert first.score == 1.0 and second.passed  # both scored, as one batch

        @pytest.mark.llmeval(defer=True)
        def test_a_wrong_argument_fails_at_the_call():
            assert_check("counted", actual="fine", thresholds=[0.5])
    """)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*LLMEvalAssertionError: llmeval counted failed: ok 0.000 < threshold 0.500*",
            "*TypeError: counted: argument 'thresholds' must be a mapping of metric to number, got list*",
        ]
    )
    result.stdout.no_fnmatch_line("*not reached*")
    assert _batches(pytester) == [1, 2]


def test_an_unverified_skip_and_an_expected_failure_stay_as_in_place(pytester, model_stack):
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_grounded, assert_exact_match

        @pytest.mark.llmeval(defer=True)
        def test_unverified_skips():
            assert_grounded("The tour is led by volunteers.", ["A guided tour costs 8 euros."], method="facts", \
unverified="skip")

        @pytest.mark.xfail(reason="known wrong answer")
        @pytest.mark.llmeval(defer=True)
        def test_expected_failure():
            assert_exact_match("Lyon", "Paris")
    """)
    for defer in ("off", "auto"):
        result = pytester.runpytest("-p", "no:randomly", "-rsx", f"--llmeval-defer={defer}")
        result.assert_outcomes(skipped=1, xfailed=1)
        result.stdout.fnmatch_lines(["*llmeval groundedness unverified*"])


def test_a_worker_that_dies_holding_tests_lists_them_as_crashed(pytester, read_json):
    pytest.importorskip("xdist")
    pytester.makepyfile(
        test_held_dies="""
        import os
        import pytest
        from pytest_llmeval import assert_exact_match

        pytestmark = pytest.mark.llmeval(defer=True)

        @pytest.mark.parametrize("i", range(3))
        def test_held(i):
            assert_exact_match("Paris", "Paris")

        def test_dies():
            os._exit(3)
    """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-n", "1", "--llmeval-report=r.json", "--max-worker-restart=1"
    )
    tests = read_json(pytester.path / "r.json")["tests"]
    assert {tests[f"test_held_dies.py::test_held[{i}]"] for i in range(3)} == {"crashed"}, tests
    assert tests["test_held_dies.py::test_dies"] == "crashed"
    result.stdout.fnmatch_lines(["*never reported, their deferred checks not scored (their worker died)*"])


def test_off_and_bad_values(pytester):
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_exact_match

        @pytest.mark.llmeval(defer="yes")
        def test_bad_marker():
            assert_exact_match("a", "a")
    """)
    result = pytester.runpytest("-p", "no:randomly")
    result.stdout.fnmatch_lines(["*llmeval marker argument 'defer' must be True or False, got 'yes'*"])
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-defer=sometimes")
    result.stderr.fnmatch_lines(
        ["*--llmeval-defer*expected auto or off, then optionally TESTS (>= 1) and SECONDS (> 0)*"]
    )


def test_deferred_judge_checks_go_out_together_and_are_metered_per_test(pytester, server, junit_properties):
    asked: list[str] = []  # what the server was asked, in order: a claim extraction or a claim's verdict

    def reply(body):
        if "Break the answer" in body["messages"][0]["content"]:
            asked.append("extract")
            return {"text": json.dumps({"claims": ["The tour costs 8 euros."]}), "delay": 0.3}
        asked.append("verdict")
        return {"text": json.dumps({"verdict": "yes"}), "delay": 0.1}

    server.responder = reply
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_max_concurrency = 8\n"
    )
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_faithful

        @pytest.mark.parametrize("i", range(6))
        def test_answer(i):
            assert_faithful(f"The tour costs 8 euros ({i}).", ["A guided tour costs 8 euros."])
    """)
    env = ["-p", "no:randomly", "--override-ini=llmeval_judge_cache=off", "--junitxml=j.xml"]
    pytester.runpytest(*env).assert_outcomes(passed=6)
    assert asked == ["extract", "verdict"] * 6  # in place: one test's check after another's
    asked.clear()
    pytester.runpytest(*env, "--llmeval-gate=aggregate").assert_outcomes(passed=6)
    # Deferred: the tests' extractions go out together, before any of them is answered and a verdict asked.
    assert sorted(asked) == ["extract"] * 6 + ["verdict"] * 6 and asked.index("verdict") >= 4
    cases, _ = junit_properties(pytester.path / "j.xml")
    assert {dict(found)["llmeval.faithfulness.judge_calls"] for found in cases.values()} == {"2"}
