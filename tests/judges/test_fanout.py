"""A check's independent judge requests go out together, bounded by the judge's concurrency; metering stays exact."""

from __future__ import annotations

import json
import threading
import time

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner

CLAIMS = [f"claim {i}" for i in range(8)]


def reply(body):
    prompt = body["messages"][0]["content"]
    if "Break the answer" in prompt:
        return {"text": json.dumps({"claims": CLAIMS})}
    return {"text": json.dumps({"verdict": "no" if "claim 3" in prompt else "yes"})}


class CountingJudge(OpenAIJudge):
    """The real judge, counting the verdict requests it has in flight; with ``together`` set, each waits for
    that many to be in flight at once (a fan-out that sends them one by one breaks the barrier)."""

    def __init__(self, *args, together=0, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock, self.running, self.peak = threading.Lock(), 0, 0
        self.barrier = threading.Barrier(together, timeout=30) if together else None

    def complete(self, messages, **kwargs):
        if "Break the answer" in messages[0]["content"]:
            return super().complete(messages, **kwargs)
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            if self.barrier:
                self.barrier.wait()
            return super().complete(messages, **kwargs)
        finally:
            with self.lock:
                self.running -= 1


def run(server, tmp_path, concurrency):
    server.responder = reply
    evaluator = Registry(entry_points=False).create("faithfulness")
    judge = CountingJudge(
        "fan",
        base_url=server.base_url,
        max_retries=0,
        max_concurrency=concurrency,
        together=concurrency if concurrency > 1 else 0,
    )
    evaluator.bind_judge(JudgeRunner(judge, VerdictCache(str(tmp_path / str(concurrency)), "record")))
    [result] = evaluator.evaluate([Case(actual="answer", context=["ctx"])])
    return judge.peak, result


def test_claim_verdicts_go_out_together_and_are_metered_exactly(server, tmp_path):
    """Timings of the same fan-out: ``benchmarks/bench_judge.py``."""
    serial, one = run(server, tmp_path, 1)
    parallel, eight = run(server, tmp_path, 8)
    assert (serial, parallel) == (1, 8)  # 8 claim verdicts: one at a time, or all eight in flight at once
    for result in (one, eight):
        assert result.score == pytest.approx(7 / 8)
        assert [c["verdict"] for c in result.details["claims"]] == [
            "yes",
            "yes",
            "yes",
            "no",
            "yes",
            "yes",
            "yes",
            "yes",
        ]
        assert result.details["judge"]["calls"] == 9  # 1 claim extraction + 8 verdicts, counted from every thread


def test_identical_requests_in_flight_together_are_asked_once(server, tmp_path):
    """Duplicate claims fanned out: one call, the others replay it, exactly as one after another."""
    server.responder = lambda body: (
        {"text": json.dumps({"claims": ["same", "same", "same", "other"]})}
        if "Break the answer" in body["messages"][0]["content"]
        else {"text": json.dumps({"verdict": "yes"}), "delay": 0.1}
    )
    evaluator = Registry(entry_points=False).create("faithfulness")
    evaluator.bind_judge(
        JudgeRunner(
            OpenAIJudge("fan", base_url=server.base_url, max_retries=0, max_concurrency=4),
            VerdictCache(str(tmp_path), "record"),
        )
    )
    [result] = evaluator.evaluate([Case(actual="answer", context=["ctx"])])
    assert len(server.requests) == 3  # claims, "same" once, "other"
    assert result.details["judge"]["calls"] == 3 and result.details["judge"]["replayed"] == 2


def test_the_session_pool_is_started_once_and_kept_across_checks(server, tmp_path):
    """No threads are started per check: the runner's pool of `concurrency` threads serves every check."""
    import threading

    server.responder = reply
    evaluator = Registry(entry_points=False).create("faithfulness")
    runner = JudgeRunner(
        OpenAIJudge("fan", base_url=server.base_url, max_retries=0, max_concurrency=3),
        VerdictCache(str(tmp_path), "off"),
    )
    evaluator.bind_judge(runner)
    seen = set()
    for n in range(4):
        [result] = evaluator.evaluate([Case(actual=f"answer {n}", context=["ctx"])])
        assert result.details["judge"]["calls"] == 9
        seen |= {t.ident for t in threading.enumerate() if t.name.startswith("llmeval-judge")}
    assert 1 <= len(seen) <= 2  # the same threads every time: 2, and the test's own thread makes 3
    runner.close()
    for thread in threading.enumerate():
        if thread.ident in seen:
            thread.join(5)
    assert not [t for t in threading.enumerate() if t.ident in seen]
    caller = threading.get_ident()
    assert runner.fan_out([threading.get_ident, threading.get_ident]) == [caller, caller]  # closed: one after another


@pytest.mark.parametrize("own_pool", [True, False])
def test_no_more_than_concurrency_jobs_of_one_call_run_at_once(tmp_path, own_pool):
    import threading

    from pytest_llmeval.judges.runner import fan_out

    lock, running, peak = threading.Lock(), [0], [0]

    def job():
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return True

    judge = type("Judge", (), {"max_concurrency": 3})()
    runner = JudgeRunner(judge, VerdictCache(str(tmp_path), "off"))
    try:
        done = fan_out([job] * 9, 3) if own_pool else runner.fan_out([job] * 9)
    finally:
        runner.close()
    assert done == [True] * 9 and peak[0] == 3


def test_nested_fan_outs_on_one_busy_pool_finish_in_order():
    """Jobs that fan out again on the pool they run on: the caller runs what the pool has not started."""
    from concurrent.futures import ThreadPoolExecutor

    from pytest_llmeval.judges.runner import fan_out

    with ThreadPoolExecutor(max_workers=1) as pool:

        def outer(i):
            return fan_out([lambda j=j: (i, j) for j in range(3)], 4, pool)

        assert fan_out([lambda i=i: outer(i) for i in range(3)], 4, pool) == [
            [(i, j) for j in range(3)] for i in range(3)
        ]


def test_the_first_failure_in_order_is_raised_and_unstarted_jobs_are_not_run():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from pytest_llmeval.judges.runner import fan_out

    ran = []
    gate = threading.Event()

    def slow_fail():
        gate.wait(5)
        raise ValueError("second")

    def job(n):
        ran.append(n)
        if n == 0:
            raise KeyError("first")
        return n

    with ThreadPoolExecutor(max_workers=1) as pool:
        blocker = pool.submit(gate.wait, 5)  # the pool's one thread is busy: nothing queued starts
        with pytest.raises(KeyError, match="first"):
            fan_out([lambda: job(0), slow_fail, lambda: job(2)], 4, pool)
        gate.set()
        blocker.result()
    assert ran == [0]  # the queued jobs were cancelled, not sent


def test_a_reply_schema_is_checked_once_and_its_validator_reused(server, tmp_path):
    from jsonschema.exceptions import SchemaError

    from pytest_llmeval.judges.base import JudgeParseError

    runner = JudgeRunner(None, VerdictCache(str(tmp_path), "off"))
    schema = {"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["yes", "no"]}}}
    runner.validate({"verdict": "yes"}, schema)
    runner.validate({"verdict": "no"}, dict(schema))  # an equal schema built anew
    assert len(runner._validators) == 1
    with pytest.raises(JudgeParseError, match="at verdict: 'maybe' is not one of"):
        runner.validate({"verdict": "maybe"}, schema)
    with pytest.raises(JudgeParseError, match="at the reply: 'verdict' is a required property"):
        runner.validate({}, schema)
    with pytest.raises(SchemaError):
        runner.validate({}, {"type": "no-such-type"})  # a broken schema is still refused, as jsonschema.validate did
