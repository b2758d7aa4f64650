"""Scoring a set of answers outside pytest (a notebook, a script): one `evaluate()` per answer, `evaluate_many()`, and
the
check's own batch (the check class's ``evaluate(cases)``, what the session runs), run by hand::

    python benchmarks/bench_evaluate_many.py [--answers 200] [--data ../shared/data]

The answers are HaluEval QA's right answers with their knowledge as the context (../shared/data, read by path), scored
by ``groundedness`` with its defaults. Each way runs in a process of its own, with no embedding or parse cache on disk;
the models are loaded by a first, unrelated answer before the clock starts. It prints the seconds of each way and the
ratios to the check's own batch (1.00 = as fast as it): ``evaluate_many`` should be at least 0.9.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "data")

WAY = r"""
import json, sys, time
from pytest_llmeval import Case, evaluate, evaluate_many
from pytest_llmeval.checks.embedding.groundedness import Groundedness
from pytest_llmeval.run.check import standalone

way, rows = sys.argv[1], json.loads(sys.stdin.read())
evaluate("groundedness", actual="Warm-up: the models load now.", context=["Nothing to do with the set."])
start = time.perf_counter()
if way == "loop":
    verdicts = [
        evaluate("groundedness", actual=r["actual"], context=r["context"], question=r["question"]).verdict
        for r in rows
    ]
elif way == "many":
    verdicts = [r.verdict for r in evaluate_many("groundedness", rows)]
else:
    cases = [Case(actual=r["actual"], context=tuple(r["context"]), question=r["question"]) for r in rows]
    verdicts = [r.verdict for r in standalone().evaluator(Groundedness, {}).evaluate(cases)]
print("RESULT=" + json.dumps({"seconds": time.perf_counter() - start, "verdicts": verdicts}))
"""


def rows(data: str, count: int) -> list[dict[str, object]]:
    with open(os.path.join(data, "halueval_qa_dev.jsonl"), encoding="utf-8") as handle:
        found = [json.loads(line) for line in handle if line.strip()]
    return [
        {"actual": r["right_answer"], "context": [r["knowledge"]], "question": r["question"]} for r in found[:count]
    ]


def run(way: str, answers: list[dict[str, object]]) -> dict[str, object]:
    # Outside pytest the process's model cache keeps embeddings and parses in memory only: no disk cache to warm.
    done = subprocess.run([sys.executable, "-c", WAY, way], input=json.dumps(answers), capture_output=True, text=True)
    if "RESULT=" not in done.stdout:
        sys.exit(f"{way}: no result:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.rpartition("RESULT=")[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--data", default=DEFAULT_DATA)
    args = parser.parse_args()
    answers = rows(args.data, args.answers)
    found = {way: run(way, answers) for way in ("batch", "many", "loop")}
    if not found["batch"]["verdicts"] == found["many"]["verdicts"] == found["loop"]["verdicts"]:
        print("PROBLEM: the three ways gave different verdicts")
        return 1
    batch = float(found["batch"]["seconds"])  # type: ignore[arg-type]
    print(f"{len(answers)} HaluEval QA answers, groundedness, no disk cache, models loaded first:")
    for way, label in (
        ("batch", "the check's own batch"),
        ("many", "evaluate_many()"),
        ("loop", "one evaluate() per answer"),
    ):
        seconds = float(found[way]["seconds"])  # type: ignore[arg-type]
        print(f"  {label}: {seconds:.2f} s, {batch / seconds:.2f} of the batch's speed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
