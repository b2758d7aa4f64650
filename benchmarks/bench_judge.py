"""Judge checks: live calls against recorded replay, and the concurrency limit, run by hand.

    python benchmarks/bench_judge.py [--cases 60] [--latency 0.02]

A local OpenAI-protocol server (tests/judge_server.py) answers every request after
``--latency`` seconds, standing in for a remote judge. Prints ratios measured in this
one run (never compared with a stored number):

- faithfulness on N cases: first run (every verdict asked and recorded) against the
  replay (every verdict from the cache, zero calls);
- N concurrent single-verdict requests through one judge with ``max_concurrency`` 1
  against 8: the semaphore bounds requests in flight, and lifting it scales;
- one faithfulness check of 8 claims with ``max_concurrency`` 1 against 8: its verdicts go out
  together (tests/judges/test_fanout.py checks they are in flight at once, not how long they take).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pytest_llmeval import Case, Registry
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner
from tests.judge_server import ScriptedJudgeServer  # noqa: E402


def reply(body):
    prompt = body["messages"][0]["content"]
    text = (
        json.dumps({"claims": ["c1", "c2", "c3"]}) if "Break the answer" in prompt else json.dumps({"verdict": "yes"})
    )
    return {"text": text}


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()

    server = ScriptedJudgeServer()
    server.responder = lambda body: {**reply(body), "delay": args.latency}
    server.start()
    cases = [Case(actual=f"Answer number {i}.", context=[f"Context {i}."]) for i in range(args.cases)]
    try:
        with tempfile.TemporaryDirectory() as directory:

            def run(mode):
                evaluator = Registry(entry_points=False).create("faithfulness")
                evaluator.bind_judge(
                    JudgeRunner(
                        OpenAIJudge("bench", base_url=server.base_url, max_retries=0), VerdictCache(directory, mode)
                    )
                )
                return evaluator.evaluate(cases)

            live, first = timed(lambda: run("record"))
            calls = len(server.requests)
            replay, second = timed(lambda: run("replay"))
            assert [r.metrics for r in first] == [r.metrics for r in second] and len(server.requests) == calls
            print(f"faithfulness on {args.cases} cases, {calls} verdicts, {args.latency * 1000:.0f} ms a call:")
            print(
                f"  live + record {live:.2f} s, replay {replay:.3f} s: replay is {live / replay:.0f}x faster, 0 calls"
            )

        def burst(concurrency):
            judge = OpenAIJudge("bench", base_url=server.base_url, max_retries=0, max_concurrency=concurrency)
            messages = [{"role": "user", "content": "Is it? Reply with JSON."}]
            with ThreadPoolExecutor(max_workers=8) as pool:
                return timed(lambda: list(pool.map(lambda _: judge.complete(messages), range(args.cases))))[0]

        one, eight = burst(1), burst(8)
        print(
            f"{args.cases} requests from 8 threads: max_concurrency 1 {one:.2f} s, 8 {eight:.2f} s: {one / eight:.1f}x"
        )

        claims = [f"claim {i}" for i in range(8)]
        server.responder = lambda body: {
            "text": json.dumps(
                {"claims": claims} if "Break the answer" in body["messages"][0]["content"] else {"verdict": "yes"}
            ),
            "delay": args.latency,
        }

        def fan_out(concurrency):
            evaluator = Registry(entry_points=False).create("faithfulness")
            judge = OpenAIJudge("bench", base_url=server.base_url, max_retries=0, max_concurrency=concurrency)
            with tempfile.TemporaryDirectory() as directory:
                evaluator.bind_judge(JudgeRunner(judge, VerdictCache(directory, "record")))
                return timed(lambda: evaluator.evaluate([Case(actual="answer", context=["ctx"])]))[0]

        fan_out(8)  # warm up: the pool's threads and connections
        one, eight = fan_out(1), fan_out(8)
        print(f"one check of 8 claims: max_concurrency 1 {one:.2f} s, 8 {eight:.2f} s: {one / eight:.1f}x")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
