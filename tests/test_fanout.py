"""A check's independent judge requests go out together, bounded by the judge's concurrency; metering stays exact."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry  # noqa: E402
from pytest_llmeval.judges.cache import VerdictCache  # noqa: E402
from pytest_llmeval.judges.openai_judge import OpenAIJudge  # noqa: E402
from pytest_llmeval.judges.runner import JudgeRunner  # noqa: E402

CLAIMS = [f"claim {i}" for i in range(8)]


def reply(body):
    prompt = body["messages"][0]["content"]
    if "Break the answer" in prompt:
        return {"text": json.dumps({"claims": CLAIMS})}
    verdict = "no" if "claim 3" in prompt else "yes"
    return {"text": json.dumps({"verdict": verdict}), "delay": 0.15}  # a judge's latency, outside the server's lock


def run(server, tmp_path, concurrency):
    server.responder = reply
    evaluator = Registry(entry_points=False).create("faithfulness")
    runner = JudgeRunner(OpenAIJudge("fan", base_url=server.base_url, max_retries=0, max_concurrency=concurrency),
                         VerdictCache(str(tmp_path / str(concurrency)), "record"))
    evaluator.bind_judge(runner)
    start = time.perf_counter()
    [result] = evaluator.evaluate([Case(actual="answer", context=["ctx"])])
    return time.perf_counter() - start, result


def test_claim_verdicts_go_out_together_and_are_metered_exactly(server, tmp_path):
    serial, one = run(server, tmp_path, 1)
    parallel, eight = run(server, tmp_path, 8)
    assert parallel < serial / 2, (serial, parallel)  # 8 verdicts of 150 ms: about 1.35 s one by one, 0.3 s together
    for result in (one, eight):
        assert result.score == pytest.approx(7 / 8)
        assert [c["verdict"] for c in result.details["claims"]] == ["yes", "yes", "yes", "no", "yes", "yes", "yes", "yes"]
        assert result.details["judge"]["calls"] == 9  # 1 claim extraction + 8 verdicts, counted from every thread


def test_identical_requests_in_flight_together_are_asked_once(server, tmp_path):
    """Duplicate claims fanned out: one call, the others replay it, exactly as one after another."""
    server.responder = lambda body: ({"text": json.dumps({"claims": ["same", "same", "same", "other"]})}
                                     if "Break the answer" in body["messages"][0]["content"]
                                     else {"text": json.dumps({"verdict": "yes"}), "delay": 0.1})
    evaluator = Registry(entry_points=False).create("faithfulness")
    evaluator.bind_judge(JudgeRunner(OpenAIJudge("fan", base_url=server.base_url, max_retries=0, max_concurrency=4),
                                     VerdictCache(str(tmp_path), "record")))
    [result] = evaluator.evaluate([Case(actual="answer", context=["ctx"])])
    assert len(server.requests) == 3  # claims, "same" once, "other"
    assert result.details["judge"]["calls"] == 3 and result.details["judge"]["replayed"] == 2
