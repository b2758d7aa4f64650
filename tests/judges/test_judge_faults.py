"""Judge-layer defects of issue 23 (items 11, 12, 13, 18a), each against the real OpenAI-protocol test server."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("openai")

from pytest_llmeval.judges.base import JudgeError, JudgeTimeout
from pytest_llmeval.judges.cache import VerdictCache, verdict_key
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner

ONE_CHECK = (
    "from pytest_llmeval import assert_no_contact_info\n\n"
    "def test_contact():\n    assert_no_contact_info('Call the front desk.')\n"
)
MESSAGES = [{"role": "user", "content": "ok?"}]


@pytest.fixture(scope="module", autouse=True)
def _http_stack_imported():
    """One real request first: pytester forgets the modules first imported inside its runs, and the HTTP stack
    imports its transport lazily, so a later run's timeout would escape as a class the client no longer knows."""
    from tests.judge_server import ScriptedJudgeServer

    warm = ScriptedJudgeServer().start()
    try:
        OpenAIJudge("warm-up", base_url=warm.base_url, max_retries=0, json_mode="none").complete(MESSAGES)
    finally:
        warm.stop()


def judge_ini(pytester, server, extra=""):
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        f"llmeval_judge_api_key_env = JUDGE_KEY\n{extra}"
    )


# -- 11: a verdict file whose reply holds a field this version does not know ----------------------


def test_a_verdict_from_another_version_is_untrusted_asked_again_and_rewritten(pytester, server):
    server.default = {"text": '{"verdict": "absent", "reason": "none"}'}
    judge_ini(pytester, server)
    pytester.makepyfile(ONE_CHECK)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    files = list((pytester.path / "llmeval_judge").rglob("*.json"))
    assert files
    for path in files:
        entry = json.loads(path.read_text(encoding="utf-8"))
        entry["reply"]["confidence"] = 0.9  # a field a newer version writes
        path.write_text(json.dumps(entry), encoding="utf-8")
    asked = len(server.requests)

    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out")
    result.assert_outcomes(passed=1)
    assert len(server.requests) == asked + len(files)  # asked again
    result.stdout.fnmatch_lines(["llmeval judge: untrusted cache file *: reply: unknown field(s) 'confidence'*"])
    report = json.loads((pytester.path / "out" / "report.json").read_text(encoding="utf-8"))
    assert len(report["results"]) == 1 and report["results"][0]["passed"]
    assert len(report["judge"]["corrupt_cache_files"]) == len(files)
    for path in files:  # rewritten: trusted again
        assert "confidence" not in json.loads(path.read_text(encoding="utf-8"))["reply"]
    third = pytester.runpytest("-p", "no:randomly", "--override-ini=llmeval_judge_cache=replay")
    third.assert_outcomes(passed=1)
    assert len(server.requests) == asked + len(files) and "untrusted cache file" not in third.stdout.str()


@pytest.mark.parametrize(
    "reply, named",
    [
        ({"text": "yes", "confidence": 0.9}, "unknown field(s) 'confidence'"),
        ({"finish_reason": "stop"}, "'text' is missing"),
        ({"text": 5}, "'text' must be a string"),
        ({"text": "yes", "prompt_tokens": "many"}, "'prompt_tokens' must be an integer"),
        ({"text": "yes", "extra": []}, "'extra' must be a JSON object"),
    ],
)
def test_a_reply_of_the_wrong_shape_is_untrusted(tmp_path, reply, named):
    cache = VerdictCache(str(tmp_path), "record")
    request = {"messages": MESSAGES}
    cache.put(request, reply)
    assert cache.get(request, what="test") is None
    assert len(cache.corrupt) == 1 and named in cache.corrupt[0]
    cache.put(request, {"text": "yes"})
    assert cache.get(request, what="test") == {"text": "yes"}
    assert verdict_key(request) in cache.corrupt[0]


def test_the_recorded_reply_fields_are_the_reply_s_own():
    from dataclasses import fields

    from pytest_llmeval.judges.base import _REPLY_TYPES, JudgeReply

    assert set(_REPLY_TYPES) == {f.name for f in fields(JudgeReply)}


# -- 12: a hung judge: retries, a budget, and a breaker ------------------------------------------


@pytest.mark.subprocess
def test_a_hung_judge_is_given_up_on_after_three_timeouts_in_a_row(pytester, server):
    server.default = {"delay": 1.0, "text": '{"verdict": "absent"}'}
    judge_ini(
        pytester, server, "llmeval_judge_timeout = 0.2\nllmeval_judge_retries = 1\nllmeval_judge_max_concurrency = 1\n"
    )
    pytester.makepyfile(
        "import pytest\nfrom pytest_llmeval import assert_no_contact_info\n\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_contact(n):\n    assert_no_contact_info(f'Answer {n}.')\n"
    )
    # In a subprocess: pytester's in-process runs forget the HTTP modules first imported inside them, and a later run's
    # timeout could then escape as an exception the client no longer recognises.
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--llmeval-report=out", "--override-ini=llmeval_judge_cache=off", "--junitxml=j.xml"
    )
    result.assert_outcomes(failed=6)
    # Three checks asked twice (a try and one retry) each; the other three never reached the server (6 x 2 before).
    assert len(server.requests) == 3 * 2
    report = json.loads((pytester.path / "out" / "report.json").read_text(encoding="utf-8"))
    reasons = [r["reason"] for r in report["results"]]
    assert len(reasons) == 6 and all(reason.startswith("judge error: ") for reason in reasons)
    assert all("APITimeoutError" in reason for reason in reasons[:3])
    for reason in reasons[3:]:
        assert "judge 'scripted' not asked: it timed out 3 times in a row" in reason
        assert all(name in reason for name in ("judge.timeout", "judge.retries", "judge.budget"))
    result.stdout.fnmatch_lines(["*JudgeError: judge 'scripted' not asked: it timed out 3 times in a row*"])


def test_the_breaker_leaves_recorded_verdicts_and_offline_alone(server, tmp_path):
    server.default = {"delay": 1.0, "text": '{"verdict": "yes"}'}
    cache = VerdictCache(str(tmp_path), "record")
    judge = OpenAIJudge("scripted", base_url=server.base_url, timeout=0.2, max_retries=0, json_mode="none")
    runner = JudgeRunner(judge, cache, trip_after=2)

    def ask(n):
        return runner.reply(evaluator="e", version="1", template="t", messages=[{"role": "user", "content": f"q{n}"}])

    request = {
        "evaluator": "e",
        "version": "1",
        "template_sha256": __import__("hashlib").sha256(b"t").hexdigest(),
        "judge": dict(judge.signature()),
        "messages": [{"role": "user", "content": "recorded"}],
        "schema": None,
        "repeat": 0,
    }
    cache.put(request, {"text": "recorded yes"})
    for n in range(2):
        with pytest.raises(JudgeTimeout):
            ask(n)
    with pytest.raises(JudgeError, match="not asked: it timed out 2 times in a row"):
        ask(3)
    assert len(server.requests) == 2
    replayed = runner.reply(
        evaluator="e", version="1", template="t", messages=[{"role": "user", "content": "recorded"}]
    )
    assert replayed.text == "recorded yes"  # a recorded verdict is still replayed
    assert "timed out 2 times in a row" in runner.stats()["breaker"]


def test_an_answer_resets_the_count_of_timeouts(server, tmp_path):
    judge = OpenAIJudge("scripted", base_url=server.base_url, timeout=0.2, max_retries=0, json_mode="none")
    runner = JudgeRunner(judge, VerdictCache(str(tmp_path), "off"), trip_after=2)
    server.script.extend([{"delay": 1.0, "text": "{}"}, {"text": "{}"}, {"delay": 1.0, "text": "{}"}, {"text": "{}"}])
    for n, outcome in enumerate([JudgeTimeout, None, JudgeTimeout, None]):
        if outcome is None:
            runner.reply(evaluator="e", version="1", template="t", messages=[{"role": "user", "content": f"q{n}"}])
        else:
            with pytest.raises(outcome):
                runner.reply(evaluator="e", version="1", template="t", messages=[{"role": "user", "content": f"q{n}"}])
    assert runner.stats()["breaker"] is None and len(server.requests) == 4


def test_the_budget_bounds_one_call_and_retries_are_counted(server):
    server.default = {"delay": 2.0, "text": "{}"}
    # Ten retries allowed, but the 0.3-s budget is spent after the first 0.2-s timeout and before the next try's wait
    # ends.
    judge = OpenAIJudge("scripted", base_url=server.base_url, timeout=0.2, max_retries=10, budget=0.3, json_mode="none")
    with pytest.raises(JudgeTimeout, match="APITimeoutError.*1 attempt.*budget of 0.3 s spent"):
        judge.complete(MESSAGES)
    assert len(server.requests) == 1
    server.default = {"status": 503, "message": "busy"}
    del server.requests[:]
    with pytest.raises(JudgeError, match="InternalServerError.*4 attempts") as info:
        OpenAIJudge("scripted", base_url=server.base_url, max_retries=3, json_mode="none").complete(MESSAGES)
    assert not isinstance(info.value, JudgeTimeout) and len(server.requests) == 4
    with pytest.raises(ValueError, match="judge: 'budget' must be a positive number of seconds; got 0"):
        OpenAIJudge("scripted", budget=0)
    with pytest.raises(ValueError, match="judge: 'max_retries' must be a non-negative integer; got -1"):
        OpenAIJudge("scripted", max_retries=-1)


def test_the_retries_option_reaches_the_judge_and_bad_values_are_named(pytester, server):
    # In subprocesses: three in-process runs back to back, two of them usage errors, once tripped CPython
    # 3.11.7's "AST constructor recursion depth mismatch" in the assertion rewriter under xdist load.
    server.default = {"status": 503, "message": "busy"}
    judge_ini(pytester, server)
    pytester.makepyfile(ONE_CHECK)
    run = pytester.runpytest_subprocess
    run(
        "-p", "no:randomly", "--override-ini=llmeval_judge_retries=0", "--override-ini=llmeval_judge_cache=off"
    ).assert_outcomes(failed=1)
    assert len(server.requests) == 1
    bad = run("--override-ini=llmeval_judge_retries=-1")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(
        ["*llmeval_judge_retries in the ini file (or -o): expected an integer from 0 to 10; got '-1'*"]
    )
    bad = run("--override-ini=llmeval_judge_budget=0")
    bad.stderr.fnmatch_lines(
        ["*llmeval_judge_budget in the ini file (or -o): expected a positive number of seconds; got '0'*"]
    )


# -- 13: a reply that echoes the API key --------------------------------------------------------------


def test_a_reply_that_echoes_the_api_key_is_written_nowhere(pytester, server, monkeypatch):
    key = "JudgeKey-NotShapedLikeAnyKnownSecret-42"
    monkeypatch.setenv("JUDGE_KEY", key)
    server.default = {"text": json.dumps({"verdict": "present", "reason": f"the header said Bearer {key}, key {key}"})}
    judge_ini(pytester, server)
    pytester.makepyfile(ONE_CHECK)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--junitxml=j.xml")
    result.assert_outcomes(failed=1)
    assert server.headers[0]["authorization"] == f"Bearer {key}"
    written = [p for p in pytester.path.rglob("*") if p.is_file() and p.suffix in (".json", ".html", ".md", ".xml")]
    names = {p.name for p in written}
    assert {"report.json", "report.html", "j.xml"} <= names and any(p.parent.parent.name == "verdicts" for p in written)
    for path in written:
        assert key not in path.read_text(encoding="utf-8"), path
    assert "[redacted]" in (pytester.path / "out" / "report.json").read_text(encoding="utf-8")
    assert key not in result.stdout.str()


# -- 18a: a judge check without the judge extra ---------------------------------------------------------


def test_a_judge_check_without_openai_names_the_extra(pytester, server, monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'pytest-llm-verdict\[judge\]'"):
        OpenAIJudge("scripted", base_url=server.base_url).complete(MESSAGES)
    judge_ini(pytester, server)
    pytester.makepyfile(ONE_CHECK)
    pytester.makeconftest("import sys\nsys.modules['openai'] = None  # as if not installed\n")
    # In a process of its own: formatting the failure's traceback in this one can meet a thread left by another test
    # (CPython 3.11's AST converter keeps its depth per interpreter, not per thread).
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    # one line, as for any check whose extra is missing
    result.stdout.fnmatch_lines(
        ["llmeval: the judge needs the openai package: pip install 'pytest-llm-verdict?judge?'"]
    )
    result.stdout.no_fnmatch_line("*During handling*")
    assert server.requests == []
