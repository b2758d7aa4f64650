"""The unverified verdict as a user meets it: the record, the summary, every report, the option, escalation to a
judge, and parses kept for the next run."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sentence_transformers")

MUSEUM = (
    "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. from Monday to Friday. "
    "Entry is free for children under 12."
)
SUITE = f"""
from pytest_llmeval import assert_grounded

CONTEXT = [{MUSEUM!r}]

def test_grounded():
    assert_grounded("Entry is free for children under 12.", CONTEXT)

def test_wrong_hours():
    assert_grounded("The museum closes at 7 p.m. from Monday to Friday.", CONTEXT, fail_on="time")

def test_reworded():
    assert_grounded("Kids below twelve get in without paying.", CONTEXT)
"""


def _ended(result, *, unverified, **outcomes):
    """The run's outcomes, pytest's and the tests that passed with an unverified check (their own status, ``u``)."""
    result.assert_outcomes(**outcomes)
    assert result.parseoutcomes().get("unverified", 0) == unverified


def test_an_unverified_answer_is_recorded_counted_and_shown_in_every_report(
    pytester, model_stack, junit_properties, read_json
):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-report=out", "--junitxml=junit.xml"
    )
    _ended(result, passed=1, unverified=1, failed=1)  # the unverified test passes, with a status of its own
    result.stdout.fnmatch_lines(
        [
            "*llmeval groundedness failed: evidence 1 > threshold 0*",
            "*why: '7 p.m.' (sentence 1) is not stated in the context*",
            "3 checks: 1 passed (33%), 1 unverified",
            "check*model*mean*CI*pass*CI*unv*n",
            "1 answer could not be verified offline (groundedness 1): set a detector or a judge to decide them",
            "*= unverified test summary info =*",
            "UNVERIFIED *::test_reworded*",  # its concern follows where the terminal is wide enough
        ]
    )
    report = read_json(pytester.path / "out" / "report.json")
    verdicts = {r["nodeid"].split("::")[1]: (r["verdict"], r["passed"]) for r in report["results"]}
    assert verdicts == {
        "test_grounded": ("pass", True),
        "test_wrong_hours": ("fail", False),
        "test_reworded": ("unverified", True),
    }
    summary = report["summary"]
    assert (
        summary["unverified"] == 1
        and summary["unverified_by_check"] == {"groundedness": 1}
        and summary["escalated"] == 0
    )
    assert summary["leaderboard"][0]["unverified"] == 1
    from pytest_llmeval.report.jsonfile import validate

    assert validate(report) is None
    markdown = (pytester.path / "out" / "report.md").read_text(encoding="utf-8")
    assert "**1 passed** (33%), 1 unverified." in markdown and "## Could not be verified offline" in markdown
    assert "| rank | model | mean | 95% CI | sd | pass rate | 95% CI | passed | unverified | n |" in markdown
    html = (pytester.path / "out" / "report.html").read_text(encoding="utf-8")
    assert (
        '<span class="badge unverified">unverified</span>' in html and "1 answer could not be verified offline" in html
    )
    cases, suite = junit_properties(pytester.path / "junit.xml")
    assert suite["llmeval.unverified"] == "1"
    assert ("llmeval.groundedness.verdict", "unverified") in cases["test_reworded"]
    assert ("llmeval.groundedness.verdict", "fail") in cases["test_wrong_hours"]


def test_what_unverified_does_is_chosen_by_option_ini_environment_and_argument(pytester, model_stack, monkeypatch):
    pytester.makepyfile(
        SUITE
        + """

def test_reworded_but_accepted():
    assert_grounded("Kids below twelve get in without paying.", CONTEXT, unverified="pass")
"""
    )
    failing = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-unverified=fail")
    _ended(failing, passed=1, unverified=1, failed=2)  # the check's own unverified="pass" wins over the run's
    failing.stdout.fnmatch_lines(
        [
            "*llmeval groundedness unverified: no evidence against the answer, but it could not be confirmed "
            "offline (support * < threshold 0.700)*"
        ]
    )
    pytester.makeini("[pytest]\nllmeval_unverified = skip\n")
    skipping = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-rs")
    _ended(skipping, passed=1, unverified=1, failed=1, skipped=1)
    skipping.stdout.fnmatch_lines(["SKIPPED*llmeval groundedness unverified: *"])
    monkeypatch.setenv("LLMEVAL_UNVERIFIED", "fail")  # the environment wins over the ini file
    _ended(pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off"), passed=1, unverified=1, failed=2)
    monkeypatch.setenv("LLMEVAL_UNVERIFIED", "maybe")
    bad = pytester.runpytest("-p", "no:randomly")
    bad.stderr.fnmatch_lines(["*LLMEVAL_UNVERIFIED in the environment: expected one of pass, fail, skip; got 'maybe'*"])


def test_a_bad_unverified_argument_is_named(make):
    from pytest_llmeval import assert_grounded

    with pytest.raises(
        ValueError, match="groundedness: argument 'unverified' must be one of 'pass', 'fail', 'skip'; got 'sometimes'"
    ):
        assert_grounded("Entry is free.", [MUSEUM], unverified="sometimes")


def test_verdicts_travel_from_xdist_workers(pytester, model_stack, read_json):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:randomly", "--llmeval-cache-dir=off", "--llmeval-report=r.json"
    )
    _ended(result, passed=1, unverified=1, failed=1)
    report = read_json(pytester.path / "r.json")
    assert sorted(r["verdict"] for r in report["results"]) == ["fail", "pass", "unverified"]
    result.stdout.fnmatch_lines(["3 checks: 1 passed (33%), 1 unverified"])


def _judge(server):
    """A judge that extracts one claim per answer and finds it supported."""

    def respond(body):
        prompt = body["messages"][-1]["content"]
        if '"claims"' in prompt:
            return {"text": json.dumps({"claims": ["Children under twelve enter for free."]})}
        return {"text": json.dumps({"verdict": "yes", "reason": "the context says so"})}

    server.responder = respond


def test_only_unverified_answers_go_to_the_judge_and_its_verdict_decides(pytester, model_stack, server, read_json):
    pytest.importorskip("openai")
    _judge(server)
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-cache-dir=off",
        "--override-ini=llmeval_judge_cache=off",
        "--llmeval-report=r.json",
    )
    _ended(result, passed=2, unverified=0, failed=1)  # the evidence still fails the wrong hours: no judge call for it
    asked = " ".join(message["content"] for body in server.requests for message in body["messages"])
    assert (
        "Kids below twelve" in asked
        and "7 p.m." not in asked
        and "Entry is free for children under 12." not in asked.split("Context")[0]
    )
    assert len(server.requests) == 2  # one claim list, one verdict: the decided answers cost nothing
    result.stdout.fnmatch_lines(
        ["3 checks: 2 passed (67%)", "1 answer no offline evidence could decide went to the judge: 1 passed"]
    )
    report = read_json(pytester.path / "r.json")
    [escalated] = [r for r in report["results"] if r["nodeid"].endswith("test_reworded")]
    assert escalated["verdict"] == "pass" and escalated["details"]["escalated"]["check"] == "faithfulness"
    assert escalated["decided_by"] == "judge"  # who decided: the record says so
    # the judge's verdict is a new one, over the offline verdict it overruled, each with the metric it rests on
    judged = escalated["decision"]
    assert (judged["outcome"], judged["decided_by"]) == ("pass", "judge") and judged["metrics"][0][
        "metric"
    ] == "faithfulness"
    below = judged["overruled"]
    assert (below["outcome"], below["decided_by"], below["overruled"]) == ("unverified", "embedding", None)
    assert [m["metric"] for m in below["metrics"]] == ["support"] and below["metrics"][0]["value"] < below["metrics"][
        0
    ]["threshold"]
    [wrong] = [r for r in report["results"] if r["verdict"] == "fail"]
    assert wrong["decided_by"] == "rules"  # named evidence decides without the judge
    assert escalated["reason"].startswith("the judge (faithfulness) decided pass: 1/1 claims supported; offline: ")
    assert escalated["details"]["judge"]["calls"] == 2
    # verdicts a judge may decide are not compared with offline ones: the judge is in every result's signature
    assert all("escalation" in r["signature"]["params"] for r in report["results"])
    assert report["summary"]["escalated"] == 1 and report["summary"]["escalated_verdicts"] == {"pass": 1}


@pytest.mark.parametrize("judge", ["down", "unusable reply"])
def test_a_judge_that_cannot_decide_leaves_the_answer_unverified_and_says_why(
    pytester, model_stack, server, read_json, judge
):
    pytest.importorskip("openai")
    if judge == "down":
        server.default = {"status": 500, "message": "the judge is down"}
    else:
        server.default = {"text": "I think the answer is fine."}  # no JSON: a parse failure is no verdict on the answer
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_timeout = 2\n"
    )
    pytester.makepyfile(SUITE)
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-cache-dir=off",
        "--override-ini=llmeval_judge_cache=off",
        "--llmeval-report=r.json",
    )
    _ended(result, passed=1, unverified=1, failed=1)
    [record] = [r for r in read_json(pytester.path / "r.json")["results"] if r["nodeid"].endswith("test_reworded")]
    assert record["verdict"] == "unverified" and record["passed"]
    assert "the judge (faithfulness) could not decide" in record["reason"]
    result.stdout.fnmatch_lines(
        [
            "1 answer no offline evidence could decide went to the judge: 1 still unverified",
            "1 answer could not be verified offline (groundedness 1): the judge could not decide them",
        ]
    )


WARM = (
    SUITE
    + """

def test_nothing_heavy_was_imported():
    import sys

    assert "spacy" not in sys.modules and "torch" not in sys.modules, "a warm rerun parses and encodes nothing"
"""
)


def test_a_rerun_parses_nothing_and_imports_neither_spacy_nor_torch(pytester, model_stack):
    pytest.importorskip("spacy")
    from pytest_llmeval.facts.names import spacy_model

    if spacy_model() is None:
        pytest.skip("no spaCy English model installed")
    pytester.makepyfile(SUITE)
    cold = pytester.runpytest_subprocess("-p", "no:randomly", "--llmeval-cache-dir=cache")
    _ended(cold, passed=1, unverified=1, failed=1)
    cold.stdout.fnmatch_lines(["llmeval parses: spaCy *: 4 texts parsed, * from cache"])
    pytester.makepyfile(WARM)
    warm = pytester.runpytest_subprocess("-p", "no:randomly", "--llmeval-cache-dir=cache")
    _ended(warm, passed=2, unverified=1, failed=1)
    warm.stdout.fnmatch_lines(
        [
            "llmeval models: all-MiniLM-L6-v2 not loaded (all from the disk cache): 0 texts encoded*",
            "llmeval parses: spaCy *: 0 texts parsed, * from cache",
        ]
    )
    assert (pytester.path / "cache" / "parses").is_dir()
