"""Deferred scoring through pytest: a plain parametrized suite scored per test, deferred, and by hand-written work.

    python benchmarks/bench_deferred.py [--cases 300] [--repeat 3] [--workers 0]

The suite is what most users write: ``@pytest.mark.parametrize("i", range(N))``, each test computing its answer (here
read from a table the test module builds) and calling ``assert_grounded(answer, context)`` with the defaults (the fact
layer, spaCy). Nothing is known before a test runs, so the plugin's look-ahead over ``cases()`` cannot help. It runs
in a pytest subprocess, over a fresh cache folder, timed by a conftest from the first test's set-up to the last test's
end (`pytest_runtest_setup` / `pytest_runtest_logfinish`: a deferred test's reports are logged when its batch is
scored, so its start is taken at its set-up), in these ways:

- **per test**: the default; each check scores where it is called;
- **aggregate, in place**: ``--llmeval-gate=aggregate --llmeval-defer=off``;
- **aggregate, deferred**: ``--llmeval-gate=aggregate`` (checks queue; batches of 100 tests);
- **marker, deferred**: the same suite with ``@pytest.mark.llmeval(defer=True)`` under the per-test gate.

The reference is benchmarks/bench_groundedness_pytest.py's hand-written script in a fresh process: it imports and
loads the embedding model and spaCy, encodes the unique sentences the checks look up in one batched call and parses the
texts the fact layer reads in one ``nlp.pipe``, timed from its first import. Printed: each run's seconds, what it
encoded and parsed, its verdicts, and reference / run (the share of the raw work's speed the run reaches), median of
``--repeat`` rounds taken side by side, with the range. The deferred runs must give the verdicts of the per-test run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_embeddings_pytest import rows  # noqa: E402
from bench_groundedness_pytest import REFERENCE, user_env  # noqa: E402

CONFTEST = """
import json, os, time
import pytest

SPAN = {}

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    SPAN.setdefault("first", time.perf_counter())

def pytest_runtest_logfinish(nodeid, location):
    SPAN["last"] = time.perf_counter()

def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["BENCH_OUT"], f"span-{worker}.json"), "w") as handle:
        json.dump(SPAN, handle)
"""

SUITE = '''
import json
import pytest
from pytest_llmeval import assert_grounded

ROWS = [json.loads(line) for line in open("rows.jsonl")]


def application(i):
    """Stands in for the application under test: the answer exists only when the test runs."""
    return ROWS[i]["actual_output"], ROWS[i]["retrieved_context"]

{marker}
@pytest.mark.parametrize("i", range(len(ROWS)))
def test_grounded(i):
    answer, context = application(i)
    assert_grounded(answer, context, unverified="pass")
'''

WAYS = {  # name -> (test file, options)
    "per test": ("test_plain.py", []),
    "aggregate, in place": ("test_plain.py", ["--llmeval-gate=aggregate", "--llmeval-defer=off"]),
    "aggregate, deferred": ("test_plain.py", ["--llmeval-gate=aggregate"]),
    "marker, deferred": ("test_marked.py", []),
}


def run_suite(folder: Path, test_file: str, options: list[str], workers: int, name: str) -> dict[str, object]:
    out = folder / name
    out.mkdir()
    cache = folder / f"cache-{name}"
    command = [
        sys.executable,
        "-m",
        "pytest",
        test_file,
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--llmeval-cache-dir={cache}",
        f"--llmeval-report={out / 'report.json'}",
        *options,
        *(["-n", str(workers)] if workers else []),
    ]
    done = subprocess.run(command, cwd=folder, env=user_env(BENCH_OUT=str(out)), capture_output=True, text=True)
    shutil.rmtree(cache, ignore_errors=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    spans = [json.loads(p.read_text()) for p in out.glob("span-*.json")]
    spans = [s for s in spans if "first" in s]
    report = json.loads((out / "report.json").read_text())
    stats = [report["models"]["controller"], *report["models"]["workers"].values()]
    return {
        "seconds": max(s["last"] for s in spans) - min(s["first"] for s in spans),
        "encoded": sum(e["encoded"] for s in stats for e in s.get("embedders", [])),
        "parsed": sum(p["parsed"] for s in stats for p in s.get("parsers", [])),
        "verdicts": {r["nodeid"].partition("::")[2]: r["verdict"] for r in report["results"]},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers (0: none)")
    parser.add_argument("--ways", default=";".join(WAYS), help="which runs, separated by ';'")
    args = parser.parse_args(argv)
    ways = [way.strip() for way in args.ways.split(";")]
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "rows.jsonl").write_text("\n".join(rows(args.cases)) + "\n")
        (folder / "conftest.py").write_text(CONFTEST)
        (folder / "test_plain.py").write_text(SUITE.format(marker=""))
        (folder / "test_marked.py").write_text(SUITE.format(marker="@pytest.mark.llmeval(defer=True)"))
        (folder / "reference.py").write_text(REFERENCE)
        rounds: list[tuple[dict[str, object], dict[str, dict[str, object]]]] = []
        for attempt in range(args.repeat):  # every way side by side: a slow spell of the machine hits all
            done = subprocess.run(
                [sys.executable, str(folder / "reference.py"), str(folder / "rows.jsonl")],
                capture_output=True,
                text=True,
                check=True,
                cwd=HERE.parent,
                env=user_env(),
            )
            runs = {
                way: run_suite(
                    folder, *WAYS[way], args.workers, f"{way.replace(', ', '-').replace(' ', '_')}-{attempt}"
                )
                for way in ways
            }
            rounds.append((json.loads(done.stdout), runs))
        first = rounds[0][1][ways[0]]["verdicts"]
        for _, runs in rounds:
            for way, run in runs.items():
                assert run["verdicts"] == first, f"{way}: verdicts differ from {ways[0]}'s"
        reference = sorted(float(r["seconds"]) for r, _ in rounds)  # type: ignore[arg-type]
        print(
            f"{args.cases} tests of @pytest.mark.parametrize('i', range(N)), one assert_grounded (defaults) each, "
            f"{'-n ' + str(args.workers) if args.workers else 'no xdist'}; median of {args.repeat} round(s)"
        )
        print("| run | seconds, first to last test | encoded | parsed | reference / run |")
        print("|---|---|---|---|---|")
        median = reference[len(reference) // 2]
        ref = rounds[0][0]
        print(
            f"| hand-written: load, one encode, one nlp.pipe | {median:.2f} | {ref['sentences']} | {ref['texts']} | |"
        )
        for way in ways:
            seconds = sorted(float(runs[way]["seconds"]) for _, runs in rounds)  # type: ignore[arg-type]
            ratios = sorted(
                float(r["seconds"]) / float(runs[way]["seconds"])  # type: ignore[arg-type]
                for r, runs in rounds
            )
            run = rounds[0][1][way]
            spread = f" ({ratios[0]:.2f}-{ratios[-1]:.2f})" if len(ratios) > 1 else ""
            print(
                f"| {way} | {seconds[len(seconds) // 2]:.2f} | {run['encoded']} | {run['parsed']} | "
                f"**{ratios[len(ratios) // 2]:.2f}**{spread} |"
            )
        verdicts = list(first.values())
        print(
            f"\nverdicts, the same in every run: {verdicts.count('pass')} pass, {verdicts.count('fail')} fail, "
            f"{verdicts.count('unverified')} unverified"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
