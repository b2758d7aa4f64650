"""Judge checks through pytest, as users run them: one ``assert_faithful`` per test, run by hand.

    python benchmarks/bench_judge_pytest.py [--tests 40] [--claims 4] [--latency 0.05]

A local OpenAI-protocol server (tests/judge_server.py) answers every request after
``--latency`` seconds, standing in for a remote judge. A generated suite of ``--tests``
tests, each checking an answer of ``--claims`` claims, runs in a pytest subprocess with
``llmeval_judge_max_concurrency`` 1 and then 8 (verdict cache off, so every verdict is
asked). Each check makes 1 + claims requests: the claim extraction, then the verdicts,
which go out together. Prints, measured in this one run, the wall time of each pytest
run (first to last test, from the report), the critical path (tests x 2 round trips at
concurrency 8, tests x (1 + claims) at 1) and the ratios.

A third run is the regression-suite shape: the same answers as rows of a JSONL file,
the test parametrized from ``cases(...)``, concurrency 8 and ``llmeval_judge_prefetch``
on (verdicts recorded into a fresh cache folder, so each is still asked once). Its
bound is requests x latency / 8 (every request in flight with 7 others). A fourth run is
the plain suite under ``--llmeval-gate=aggregate``, whose checks are deferred: the tests'
claim extractions go out together, then all their verdicts (the same bound).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.judge_server import ScriptedJudgeServer  # noqa: E402

CASES_SUITE = """
import pytest
from pytest_llmeval import assert_faithful, cases


@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_answer(case):
    assert_faithful(case.actual, case.context)
"""

SUITE = """
import pytest
from pytest_llmeval import assert_faithful


@pytest.mark.parametrize("n", range({tests}))
def test_answer(n):
    assert_faithful(f"Answer number {{n}}.", ["The context of answer {{n}}."])
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--claims", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    claims = [f"claim {i}" for i in range(args.claims)]

    def reply(body: dict) -> dict:
        prompt = body["messages"][0]["content"]
        text = json.dumps({"claims": claims}) if "Break the answer" in prompt else json.dumps({"verdict": "yes"})
        return {"text": text, "delay": args.latency}

    server = ScriptedJudgeServer(keep_alive=True)  # connections kept open between requests, as judge servers do
    server.responder = reply
    server.start()
    times = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            directory = Path(folder)
            (directory / "plain").mkdir()
            (directory / "plain" / "test_judged.py").write_text(SUITE.format(tests=args.tests), encoding="utf-8")
            (directory / "prefetch").mkdir()
            (directory / "prefetch" / "test_cases.py").write_text(CASES_SUITE, encoding="utf-8")
            (directory / "prefetch" / "rows.jsonl").write_text(
                "".join(
                    json.dumps(
                        {
                            "id": f"a{n}",
                            "actual_output": f"Answer number {n}.",
                            "retrieved_context": [f"The context of answer {n}."],
                        }
                    )
                    + "\n"
                    for n in range(args.tests)
                ),
                encoding="utf-8",
            )
            for concurrency in (1, 8, "prefetch", "deferred"):
                where = directory / ("prefetch" if concurrency == "prefetch" else "plain")
                (where / "pytest.ini").write_text(
                    f"[pytest]\nllmeval_judge_model = bench\nllmeval_judge_base_url = {server.base_url}\n"
                    f"llmeval_judge_max_concurrency = {concurrency if concurrency == 1 else 8}\n",
                    encoding="utf-8",
                )
                before = len(server.requests)
                report = directory / f"report-{concurrency}.json"
                cache = (
                    [
                        "--override-ini=llmeval_judge_prefetch=true",
                        f"--override-ini=llmeval_judge_dir={directory / 'verdicts'}",
                    ]
                    if concurrency == "prefetch"
                    else [
                        "--override-ini=llmeval_judge_cache=off",
                        *(["--llmeval-gate=aggregate"] if concurrency == "deferred" else []),
                    ]
                )
                done = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pytest",
                        "-q",
                        "-p",
                        "no:randomly",
                        "-p",
                        "no:cacheprovider",
                        str(where),
                        f"--llmeval-report={report}",
                        *cache,
                    ],
                    cwd=where,
                    capture_output=True,
                    text=True,
                    env={**os.environ, "OPENAI_API_KEY": "no-key", "PYTHONPATH": str(ROOT)},
                )
                if done.returncode != 0:
                    print(done.stdout[-3000:], done.stderr[-2000:])
                    return 1
                data = json.loads(report.read_text(encoding="utf-8"))
                times[concurrency] = (data["run"]["duration_s"], len(server.requests) - before, data["judge"]["calls"])
    finally:
        server.stop()
    requests = args.tests * (1 + args.claims)
    path_8 = args.tests * (2 if args.claims <= 8 else 1 + -(-args.claims // 8)) * args.latency
    path_1 = requests * args.latency
    (t1, sent1, metered1), (t8, sent8, metered8), (tp, sentp, meteredp) = times[1], times[8], times["prefetch"]
    td, sentd, meteredd = times["deferred"]
    bound = requests * args.latency / 8
    print(
        f"{args.tests} tests x assert_faithful ({args.claims} claims), {requests} requests of "
        f"{args.latency * 1000:.0f} ms, "
        "through pytest (first to last test):"
    )
    print(
        f"  concurrency 1: {t1:.2f} s ({sent1} requests, {metered1} metered); critical path {path_1:.2f} s: "
        f"{t1 / path_1:.2f}x"
    )
    print(
        f"  concurrency 8: {t8:.2f} s ({sent8} requests, {metered8} metered); critical path {path_8:.2f} s: "
        f"{t8 / path_8:.2f}x"
    )
    print(f"  8 vs 1: {t1 / t8:.1f}x faster")
    print(
        f"  cases() + llmeval_judge_prefetch, concurrency 8: {tp:.2f} s ({sentp} requests, {meteredp} metered); "
        f"per-test critical path {path_8:.2f} s: {tp / path_8:.2f}x; all in flight at 8: {bound:.2f} s: "
        f"{tp / bound:.2f}x"
    )
    print(
        f"  --llmeval-gate=aggregate (checks deferred, a batch every 100 tests), concurrency 8: {td:.2f} s ({sentd} "
        "requests, "
        f"{meteredd} metered); per-test critical path {path_8:.2f} s: {td / path_8:.2f}x; all in flight at 8: "
        f"{bound:.2f} s: {td / bound:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
