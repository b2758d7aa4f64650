"""The judge layer against a real OpenAI-protocol HTTP server (the real openai client, not patched)."""

from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("openai")

from pytest_llmeval.judges.base import JudgeError, JudgeParseError, extract_json
from pytest_llmeval.judges.cache import ReplayMiss, VerdictCache, verdict_key
from pytest_llmeval.judges.openai_judge import OpenAIJudge

SECRET = "sk-test-secret-never-shown-0123456789"


@pytest.fixture
def judge(server, monkeypatch):
    monkeypatch.setenv("LLMEVAL_TEST_KEY", SECRET)
    return OpenAIJudge(
        "scripted-judge",
        base_url=server.base_url,
        api_key_env="LLMEVAL_TEST_KEY",
        timeout=2.0,
        max_retries=2,
        price_per_million=(1.0, 2.0),
    )


MESSAGES = [{"role": "user", "content": "Is the sky blue? Answer as JSON."}]


def test_reply_usage_cost_and_request(judge, server):
    server.script.append(
        {"text": 'Sure! ```json\n{"verdict": "yes"}\n```', "prompt_tokens": 100, "completion_tokens": 20}
    )
    reply = judge.complete(MESSAGES, schema={"type": "object"})
    assert reply.json() == {"verdict": "yes"}
    assert judge.stats() == {
        "model": "scripted-judge",
        "calls": 1,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "cost": 0.00014,
        "json_mode": "schema",
        "json_mode_downgrades": [],
    }
    sent = server.requests[0]
    assert sent["model"] == "scripted-judge" and sent["temperature"] == 0.0 and sent["seed"] == 0
    assert sent["messages"] == MESSAGES and set(sent) == {
        "model",
        "messages",
        "temperature",
        "max_tokens",
        "seed",
        "response_format",
    }
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": {"type": "object"}},
    }
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"  # sent to the server, and nowhere else
    assert SECRET not in json.dumps(judge.signature()) and SECRET not in json.dumps(judge.stats())


def test_truncated_reply_is_a_parse_failure_not_a_verdict(judge, server):
    server.script.append({"text": '{"verdict": "ye', "finish_reason": "length"})
    reply = judge.complete(MESSAGES)
    with pytest.raises(JudgeParseError, match="cut off at the token limit"):
        reply.json()
    with pytest.raises(JudgeParseError, match="no JSON in the judge's reply"):
        extract_json("I think the answer is yes.")


def test_429_and_500_are_retried(judge, server):
    server.script.extend([{"status": 429}, {"status": 500}, {"text": '{"verdict": "no"}'}])
    assert judge.complete(MESSAGES).json() == {"verdict": "no"}
    assert len(server.requests) == 3


def test_persistent_failure_and_timeout_are_judge_errors(judge, server):
    server.script.extend([{"status": 503}] * 3)
    with pytest.raises(JudgeError, match="judge 'scripted-judge' at http://127.0.0.1:.* failed: InternalServerError"):
        judge.complete(MESSAGES)
    assert len(server.requests) == 3  # first try + 2 retries
    slow = OpenAIJudge(
        "scripted-judge", base_url=server.base_url, api_key_env="LLMEVAL_TEST_KEY", timeout=0.2, max_retries=0
    )
    server.script.append({"text": "{}", "delay": 1.0})
    with pytest.raises(JudgeError, match="APITimeoutError"):
        slow.complete(MESSAGES)


def test_malformed_http_body_is_a_judge_error(judge, server):
    server.script.extend([{"malformed": True}] * 3)
    with pytest.raises((JudgeError, ValueError)):
        judge.complete(MESSAGES)


def test_bad_configuration():
    with pytest.raises(ValueError, match="'json_mode' must be one of auto, schema, object, none"):
        OpenAIJudge("m", json_mode="xml")
    with pytest.raises(ValueError, match="'price_per_million' must be two non-negative numbers"):
        OpenAIJudge("m", price_per_million=(1.0,))
    with pytest.raises(ValueError, match="'model' must be a non-empty model name"):
        OpenAIJudge("")


SCHEMA = {"type": "object", "properties": {"verdict": {"enum": ["yes", "no"]}}, "required": ["verdict"]}


def test_structured_output_negotiation_falls_back_and_sticks(judge, server):
    server.reject_formats = {"json_schema"}
    server.script.extend([{"text": '{"verdict": "yes"}'}] * 3)
    assert judge.complete(MESSAGES, schema=SCHEMA).json() == {"verdict": "yes"}
    assert [r.get("response_format", {}).get("type") for r in server.requests] == ["json_schema", "json_object"]
    assert judge.json_mode_in_use == "object" and "schema -> object" in judge.stats()["json_mode_downgrades"][0]
    judge.complete(MESSAGES, schema=SCHEMA)
    assert server.requests[-1]["response_format"] == {"type": "json_object"}  # no second try of the refused mode
    server.reject_formats = {"json_object"}
    assert judge.complete(MESSAGES, schema=SCHEMA).json() == {"verdict": "yes"}
    assert "response_format" not in server.requests[-1] and judge.json_mode_in_use == "none"
    server.reject_formats = set()
    server.script.extend([{"status": 400}, {"text": '{"verdict": "no"}'}])  # a 400 not about the format: no downgrade
    auto = OpenAIJudge("m", base_url=server.base_url, max_retries=0)
    assert auto.complete(MESSAGES, schema=SCHEMA).json() == {"verdict": "no"}
    assert auto.json_mode_in_use == "schema" and auto.downgrades == []
    server.script.extend([{"status": 400}] * 3)  # every mode refused: an error
    with pytest.raises(JudgeError, match="BadRequestError"):
        auto.complete(MESSAGES, schema=SCHEMA)
    server.reject_formats = {"json_object"}
    fixed = OpenAIJudge("m", base_url=server.base_url, json_mode="object", max_retries=0)
    with pytest.raises(JudgeError, match="BadRequestError"):
        fixed.complete(MESSAGES, schema=SCHEMA)  # a mode the user fixed is not negotiated away


def test_negotiation_under_concurrency_keeps_the_mode_that_works(server):
    server.reject_formats = {"json_schema"}
    server.default = {"text": '{"verdict": "yes"}'}
    judge = OpenAIJudge("m", base_url=server.base_url, max_retries=0, max_concurrency=8)
    threads = [threading.Thread(target=judge.complete, args=(MESSAGES,), kwargs={"schema": SCHEMA}) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert judge.json_mode_in_use == "object" and judge.calls == 8


def test_logprobs_and_temperature_per_request(judge, server):
    server.script.append({"text": "7", "logprobs": [("7", {"7": -0.1, "8": -2.5, "6": -3.0})]})
    reply = judge.complete(MESSAGES, logprobs=5, temperature=0.9)
    sent = server.requests[0]
    assert sent["logprobs"] is True and sent["top_logprobs"] == 5 and sent["temperature"] == 0.9
    assert reply.extra["top_logprobs"] == [{"token": "7", "logprob": -0.1, "top": {"7": -0.1, "8": -2.5, "6": -3.0}}]


def test_runner_meters_validates_and_counts_parse_failures(judge, server, tmp_path):
    from pytest_llmeval.judges.runner import JudgeRunner

    runner = JudgeRunner(judge, VerdictCache(str(tmp_path), "record"))
    server.script.extend(
        [
            {"text": '{"verdict": "yes"}', "prompt_tokens": 1000, "completion_tokens": 500},
            {"text": '{"verdict": "maybe"}'},
        ]
    )
    ask = {"evaluator": "e", "version": "1", "template": "t", "schema": SCHEMA}
    with runner.metered() as usage:
        assert runner.ask(messages=MESSAGES, **ask) == {"verdict": "yes"}
        assert runner.ask(messages=MESSAGES, **ask) == {"verdict": "yes"}  # replayed: no call, no cost
    assert usage.as_dict() == {
        "calls": 1,
        "replayed": 1,
        "prompt_tokens": 1000,
        "completion_tokens": 500,
        "cost": 0.002,
    }
    with pytest.raises(JudgeParseError, match="does not follow the schema at verdict: 'maybe' is not one of"):
        runner.ask(messages=[{"role": "user", "content": "other"}], **ask)
    assert runner.stats()["parse_failures_by_evaluator"] == {"e": 1}


REQUEST = {
    "evaluator": "faithfulness",
    "version": "1",
    "template": "abc",
    "judge": {"model": "m"},
    "inputs": {"a": 1},
    "repeat": 0,
}


def test_cache_record_then_replay(tmp_path):
    cache = VerdictCache(str(tmp_path), "record")
    assert cache.get(REQUEST, what="check") is None
    cache.put(REQUEST, {"text": '{"verdict": "yes"}'})
    replay = VerdictCache(str(tmp_path), "replay")
    assert replay.get(REQUEST, what="check") == {"text": '{"verdict": "yes"}'}
    assert replay.stats() == {"mode": "replay", "hits": 1, "misses": 0, "corrupt": []}
    with pytest.raises(ReplayMiss, match="test_x: no recorded judge verdict \\(replay-only mode"):
        replay.get({**REQUEST, "repeat": 1}, what="test_x")
    [path] = list((tmp_path / "verdicts").rglob("*.json"))
    entry = json.loads(path.read_text())
    assert entry["key"] == verdict_key(REQUEST) and path.name == f"{entry['key']}.json"
    assert VerdictCache(str(tmp_path), "off").get(REQUEST, what="x") is None


def test_corrupt_or_tampered_entries_are_not_trusted(tmp_path):
    cache = VerdictCache(str(tmp_path), "record")
    cache.put(REQUEST, {"text": "yes"})
    [path] = list((tmp_path / "verdicts").rglob("*.json"))
    entry = json.loads(path.read_text())
    entry["request"]["inputs"] = {"a": 2}  # content no longer matches its key
    path.write_text(json.dumps(entry))
    fresh = VerdictCache(str(tmp_path), "record")
    assert fresh.get(REQUEST, what="x") is None and "key does not match" in fresh.corrupt[0]
    path.write_text("{not json")
    with pytest.raises(ReplayMiss):
        VerdictCache(str(tmp_path), "replay").get(REQUEST, what="x")


def test_concurrent_writers_never_corrupt(tmp_path):
    def write(n):
        cache = VerdictCache(str(tmp_path), "record")
        for i in range(30):
            cache.put({**REQUEST, "repeat": i % 5}, {"text": f"reply {i % 5}"})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    replay = VerdictCache(str(tmp_path), "replay")
    for i in range(5):
        assert replay.get({**REQUEST, "repeat": i}, what="x") == {"text": f"reply {i}"}
    assert not list((tmp_path / "verdicts").rglob("*.tmp"))
    with pytest.raises(ValueError, match="verdict cache mode must be one of record, replay, off"):
        VerdictCache(str(tmp_path), "sometimes")
