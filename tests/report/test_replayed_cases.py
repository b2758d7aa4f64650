"""Replayed answers gate case by case, as a user meets it: a suite whose answers come from cassettes, a baseline run, a
pull request that re-records one answer wrongly; under the aggregate gate with ``--llmeval-fail-on-regression`` the
one new failure fails the run and is named in the terminal, the JSON, the HTML and the comment. Live answers keep the
paired test's verdict (within noise), and ``--llmeval-gate=strict`` fails on any case that passed and fails now."""

from __future__ import annotations

import pytest

pytest.importorskip("vcr")
pytest.importorskip("openai")

pytestmark = pytest.mark.subprocess

SUITE = """
import os

import openai
import pytest
from pytest_llmeval import assert_exact_match


def ask(question):
    client = openai.OpenAI(base_url=os.environ["APP_BASE_URL"], api_key="sk-test")
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}])
    return reply.choices[0].message.content


@pytest.mark.llmeval(RECORD model="m")
@pytest.mark.parametrize("question", ["first", "second", "third", "fourth", "fifth", "sixth"])
def test_capital(question):
    assert_exact_match(ask(question), "Paris")
"""

GATE = ("-p", "no:randomly", "--llmeval-gate=aggregate", "--llmeval-fail-on-regression")


def _answers(wrong: set[str]):
    """The app's model: 'Paris', except for the questions in ``wrong``."""

    def respond(body):
        question = body["messages"][-1]["content"]
        return {"text": "Lyon" if question in wrong else "Paris"}

    return respond


@pytest.fixture
def suite(pytester, server, monkeypatch):
    monkeypatch.setenv("APP_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.responder = _answers(set())
    return pytester


def test_a_replayed_case_that_passed_and_fails_now_fails_the_run_and_is_named(suite, server, read_json):
    suite.makepyfile(test_answers=SUITE.replace("RECORD", "record=True,"))
    suite.runpytest("-p", "no:randomly", "--llmeval-record-mode=once").assert_outcomes(passed=6)
    suite.runpytest("-p", "no:randomly", "--llmeval-report=main.json").assert_outcomes(passed=6)  # replayed
    # the pull request re-records one answer, now wrong, and CI replays every answer
    (suite.path / "cassettes" / "test_answers" / "test_capital_second.yaml").unlink()
    server.responder = _answers({"second"})
    suite.runpytest("-p", "no:randomly", "--llmeval-record-mode=once", "-k", "second")
    server.stop()
    result = suite.runpytest(*GATE, "--llmeval-baseline=main.json", "--llmeval-report=out")
    result.assert_outcomes(passed=6)  # the aggregate gate: a failing check does not fail its test
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    named = "regressed: 1 replayed case(s) that passed in the baseline fail now: test_answers.py::test_capital[second]"
    assert f"llmeval verdict: {named} (exact_match)" in result.stdout.str()
    report = read_json(suite.path / "out" / "report.json")
    assert report["baseline"]["verdict"] == "regressed" and report["baseline"]["fixed_failures"] == 1
    assert [c["fixed"] for c in report["baseline"]["changes"]] == [True]
    for page in ("report.html", "comment.md", "report.md"):
        text = (suite.path / "out" / page).read_text()
        assert "1 replayed case(s) that passed in the baseline fail now" in text, page
        assert "new" in text, page


def test_live_answers_keep_the_paired_verdict_and_strict_fails_on_any_new_failure(suite, server):
    suite.makepyfile(test_answers=SUITE.replace("RECORD", ""))
    suite.runpytest("-p", "no:randomly", "--llmeval-report=main.json").assert_outcomes(passed=6)
    server.responder = _answers({"second"})
    result = suite.runpytest(*GATE, "--llmeval-baseline=main.json")
    assert result.ret == pytest.ExitCode.OK  # one flip in six live answers is within noise
    result.stdout.fnmatch_lines(["llmeval verdict: inconclusive*"])
    strict = suite.runpytest("-p", "no:randomly", "--llmeval-gate=strict", "--llmeval-baseline=main.json")
    strict.assert_outcomes(passed=6)
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(
        [
            "llmeval gate: strict: 1 failed check(s) recorded without failing their tests; any case that passed in the "
            "baseline and fails now fails the run"
        ]
    )
