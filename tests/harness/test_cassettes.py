"""Cassettes for the application's own model calls: recorded once, replayed with the server stopped, a miss that fails
naming the request and the cassette, streamed and async calls, repeats and xdist, and no key in any cassette or
report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("vcr")
pytest.importorskip("openai")

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SECRET = "sk-live-cassette-secret-4242"
MUSEUM = "A guided tour of the museum costs 8 euros."


def _green(result, tests: int = 1) -> None:
    """Every test of the run passed: the example's groundedness may leave its answer unverified (support below the
    threshold, no evidence against it), which passes the test with pytest's status ``unverified``."""
    outcomes = {name: n for name, n in result.parseoutcomes().items() if name != "warnings"}
    assert outcomes.get("passed", 0) + outcomes.get("unverified", 0) == tests and set(outcomes) <= {
        "passed",
        "unverified",
    }, outcomes


def _records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["results"]


def _everything(root: Path) -> str:
    return "".join(
        p.read_text(errors="replace")
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".json", ".xml", ".md", ".html")
    )


@pytest.fixture
def app(model_stack, pytester, server, monkeypatch):
    """The docs' RAG example in a test folder, its model served by the local OpenAI-protocol server."""
    for name in ("rag_app.py", "rag_test.py"):
        shutil.copy(EXAMPLES / name, pytester.path / name)
    monkeypatch.setenv("RAG_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server.default = {"text": MUSEUM}
    return pytester


def test_record_then_replay_with_the_server_stopped(app, server):
    first = app.runpytest("-p", "no:randomly", "--llmeval-record-mode=once", "--llmeval-report=live.json")
    _green(first)
    assert len(server.requests) == 1
    cassette = app.path / "cassettes" / "rag_test" / "test_museum_prices.yaml"
    text = cassette.read_text()
    assert "How much is a guided tour of the museum?" in text and MUSEUM in text  # readable, diffable
    assert "x-stainless" not in text and "<redacted>" in text  # the client's noise left out, the key redacted
    [live] = _records(app.path / "live.json")
    assert live["tags"] == {"answers": "live", "answer_models": "gpt-4o-mini"}
    server.stop()
    second = app.runpytest("-p", "no:randomly", "--llmeval-report=replayed.json", "--junitxml=j.xml")  # none: CI's mode
    _green(second)
    [replayed] = _records(app.path / "replayed.json")
    assert replayed["tags"] == {"answers": "replayed", "answer_models": "gpt-4o-mini"}
    assert replayed["metrics"] == live["metrics"] and replayed["verdict"] == live["verdict"]
    second.stdout.fnmatch_lines(["*llmeval answers: 1 test(s) replayed from cassettes, 0 live*"])
    assert SECRET not in _everything(app.path) + first.stdout.str() + second.stdout.str()


def test_a_request_with_no_recording_fails_naming_it_and_the_cassette(app, server):
    # No cassette yet: once records one.
    unrecorded = app.runpytest("-p", "no:randomly")
    unrecorded.assert_outcomes(failed=1)
    unrecorded.stdout.fnmatch_lines(
        [
            "llmeval: no recording of POST * (record mode none); record it with "
            "--llmeval-record-mode=once (no cassette yet), then commit the cassette"
        ]
    )
    assert len(server.requests) == 0
    _green(app.runpytest("-p", "no:randomly", "--llmeval-record-mode=once"))
    source = (app.path / "rag_test.py").read_text()
    (app.path / "rag_test.py").write_text(source.replace("How much is a guided tour", "When does the museum open"))
    result = app.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "llmeval: no recording of POST http://127.0.0.1:*/v1/chat/completions (model 'gpt-4o-mini', "
            "'When does the museum open of the museum?') in the cassette *test_museum_prices.yaml (record "
            "mode none); record it with --llmeval-record-mode=new_episodes (the cassette exists: the "
            "new request is added to it), then commit the cassette"
        ]
    )
    assert len(server.requests) == 1  # the miss made no request
    _green(app.runpytest("-p", "no:randomly", "--llmeval-record-mode=new_episodes"))
    assert len(server.requests) == 2


STREAMED = """
import asyncio
import os

import openai
import pytest
from pytest_llmeval import assert_exact_match


@pytest.mark.llmeval(record=True)
def test_streamed(llmeval_cassette):
    client = openai.OpenAI(base_url=os.environ["RAG_BASE_URL"])
    stream = client.chat.completions.create(model="m-stream", messages=[{"role": "user", "content": "hi"}], stream=True)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert_exact_match(text, "Paris is the capital.")
    assert len(llmeval_cassette.data) == 1


@pytest.mark.llmeval(record=True)
def test_async():
    async def ask():
        client = openai.AsyncOpenAI(base_url=os.environ["RAG_BASE_URL"])
        reply = await client.chat.completions.create(model="m-async", messages=[{"role": "user", "content": "hi"}])
        return reply.choices[0].message.content

    assert_exact_match(asyncio.run(ask()), "Paris is the capital.")
"""


def test_streamed_and_async_calls_replay(pytester, server, monkeypatch):
    monkeypatch.setenv("RAG_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server.default = {"text": "Paris is the capital."}
    pytester.makepyfile(test_calls=STREAMED)
    pytester.runpytest("-p", "no:randomly", "--llmeval-record-mode=once").assert_outcomes(passed=2)
    assert len(server.requests) == 2 and server.requests[0].get("stream") is True
    server.stop()
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.json")
    result.assert_outcomes(passed=2)
    assert {r["tags"]["answer_models"] for r in _records(pytester.path / "r.json")} == {"m-stream", "m-async"}
    assert SECRET not in _everything(pytester.path)


REPEATED = """
import os

import openai
import pytest
from pytest_llmeval import assert_matches


@pytest.mark.llmeval(record=True, repeat=3)
def test_noisy(llmeval_draw):
    client = openai.OpenAI(base_url=os.environ["RAG_BASE_URL"])
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "pick one"}], temperature=1)
    assert_matches(reply.choices[0].message.content, '"answer"')
"""


def test_each_draw_replays_its_own_recording_under_xdist(pytester, server, monkeypatch):
    pytest.importorskip("xdist")
    monkeypatch.setenv("RAG_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    counter = iter(range(100))
    server.responder = lambda body: {"text": f"answer {next(counter)}"}
    pytester.makepyfile(test_repeat=REPEATED)
    pytester.runpytest("-p", "no:randomly", "--llmeval-record-mode=once", "-n", "2").assert_outcomes(passed=3)
    recorded = sorted((pytester.path / "cassettes" / "test_repeat").glob("*.yaml"))
    assert len(recorded) == 3
    answers = {path.name: path.read_text().split("answer ")[1][:1] for path in recorded}
    server.stop()
    result = pytester.runpytest("-p", "no:randomly", "-n", "2", "--llmeval-report=r.json")
    result.assert_outcomes(passed=3)
    excerpts = sorted(r["excerpt"] for r in _records(pytester.path / "r.json"))
    assert excerpts == sorted(f"answer {digit}" for digit in answers.values())  # each draw its own recorded answer


def test_the_judges_own_requests_are_never_recorded(app, server):
    (app.path / "pytest.ini").write_text(
        f"[pytest]\nllmeval_judge_model = judge-m\nllmeval_judge_base_url = {server.base_url}\n"
    )
    source = (app.path / "rag_test.py").read_text()
    (app.path / "rag_test.py").write_text(
        source.replace(
            "from pytest_llmeval import assert_grounded",
            "from pytest_llmeval import assert_faithful as assert_grounded",
        )
    )
    server.responder = lambda body: (
        {"text": json.dumps({"claims": ["It costs 8 euros."]})}
        if "Break the answer" in body["messages"][0]["content"]
        else {"text": json.dumps({"verdict": "yes"})}
        if body.get("model") == "judge-m"
        else {"text": MUSEUM}
    )
    app.runpytest("-p", "no:randomly", "--llmeval-record-mode=once").assert_outcomes(passed=1)
    assert len(server.requests) == 3  # the application's call and the judge's two
    text = (app.path / "cassettes" / "rag_test" / "test_museum_prices.yaml").read_text()
    assert text.count("- request:") == 1 and "judge-m" not in text


def test_a_bad_record_value_and_mode_are_named(pytester):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.llmeval(record="yes")
        def test_bad():
            pass
    """)
    pytester.runpytest("-p", "no:randomly").stdout.fnmatch_lines(
        ["*llmeval marker argument 'record' must be True or False, got 'yes'*"]
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-record-mode=sometimes")
    result.stderr.fnmatch_lines(["*--llmeval-record-mode*expected one of none, once, new_episodes, all*"])


TWO = """
import os

import openai
import pytest
from pytest_llmeval import assert_exact_match


def ask(question):
    client = openai.OpenAI(base_url=os.environ["RAG_BASE_URL"], default_headers={"X-Team-Token": \
os.environ["TEAM_TOKEN"]})
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": question + \
os.environ["TEAM_TOKEN"]}])
    return reply.choices[0].message.content


@pytest.mark.llmeval(record=True, model="m")
@pytest.mark.parametrize("question", ["first", "second"])
def test_answer(question):
    assert_exact_match(ask(question), "Paris")
"""


def test_mixed_rows_a_replayed_baseline_and_configured_secrets_are_named(pytester, server, monkeypatch, read_json):
    token = "team-token-9f8e7d6c"
    monkeypatch.setenv("RAG_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("TEAM_TOKEN", token)
    server.default = {"text": "Paris"}
    pytester.makepyfile(test_two=TWO)
    # every run redacts alike: a replay matches
    pytester.makeini("[pytest]\nllmeval_record_secrets =\n    TEAM_TOKEN\n")
    pytester.runpytest("-p", "no:randomly", "--llmeval-record-mode=once", "-k", "first").assert_outcomes(passed=1)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-record-mode=once", "--llmeval-report=mixed.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "llmeval answers: 1 test(s) replayed from cassettes, 1 live",
            "llmeval answers: exact_match m mixes 1 live and 1 replayed answer(s) in one leaderboard row",
        ]
    )
    assert read_json(pytester.path / "mixed.json")["run"]["answers"] == {"live": 1, "replayed": 1}
    server.stop()
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=replayed.json").assert_outcomes(passed=2)
    again = pytester.runpytest("-p", "no:randomly", "--llmeval-baseline=replayed.json")
    again.stdout.fnmatch_lines(["llmeval answers: the baseline's answers were replayed from cassettes (2 test(s))*"])
    assert token not in _everything(pytester.path) and SECRET not in _everything(pytester.path)
