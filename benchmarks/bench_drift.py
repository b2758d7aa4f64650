"""How often the drift test over saved runs flags a row, measured the way users run it.

Run by hand (a few minutes; nothing is written outside a temporary folder)::

    python benchmarks/bench_drift.py
    python benchmarks/bench_drift.py --unchanged 20 --worse 10 --runs 10 --cases 300 --workers 2 --json out.json

The script writes a suite of one test that records ``--cases`` cases of a stochastic model with ``evaluate()``
(``exact_match``): case ``i`` of run ``n`` is answered right with probability ``START - SLOPE * n``, drawn from
``random.Random`` seeded with the history's seed and the run's number. A history is ``--runs`` pytest runs in a
subprocess, one after the other in one folder, each with ``save = true`` and ``--llmeval-report``: each run is saved
under ``.llmeval/runs/`` and its report's ``history`` section tests every row for drift against the runs saved before
it. Every figure comes from the JSON reports' ``history`` sections; no internals of the plugin are called. Each run
passes ``-p no:deepeval``: where deepeval is installed, its pytest plugin takes seconds to import, which would only
slow the benchmark down.

Scenarios:

- U: the model does not change (START 0.8, SLOPE 0): a history is flagged when any of its runs flags a drift, so the
  figure is the chance of a false drift over all the looks of a history (target: at most 1 of 20, the test's alpha
  being 0.05 over every look).
- W: the model loses two points a run (START 0.92, SLOPE 0.02): the run at which a drift is first flagged, and how
  many histories are flagged by their last run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

SUITE = """
import os
import random

import pytest
from pytest_llmeval import evaluate

RUN = int(os.environ["DRIFT_RUN"])
SEED = int(os.environ["DRIFT_SEED"])
START, SLOPE, CASES = float(os.environ["DRIFT_START"]), float(os.environ["DRIFT_SLOPE"]), int(os.environ["DRIFT_CASES"])


@pytest.mark.llmeval(model="acme")
def test_the_model():
    draw = random.Random(SEED * 1000 + RUN)
    for case in range(CASES):
        answer = "yes" if draw.random() < START - SLOPE * RUN else "no"
        evaluate("exact_match", actual=answer, expected="yes", case=f"c{case}")
"""


#: Each run's arguments (deepeval's plugin, where installed, takes seconds to import).
PYTEST_ARGS = ("-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:deepeval", "--llmeval-report=report.json")


def history(seed: int, start: float, slope: float, runs: int, cases: int) -> list[bool]:
    """One history in a fresh folder: for each run, whether its report flagged a drift."""
    flagged = []
    with tempfile.TemporaryDirectory(prefix="llmeval-drift-") as folder:
        with open(os.path.join(folder, "test_model.py"), "w", encoding="utf-8") as stream:
            stream.write(SUITE)
        with open(os.path.join(folder, "pyproject.toml"), "w", encoding="utf-8") as stream:
            stream.write("[tool.llmeval]\nsave = true\n")
        for run in range(1, runs + 1):
            env = {
                **os.environ,
                "DRIFT_RUN": str(run),
                "DRIFT_SEED": str(seed),
                "DRIFT_START": str(start),
                "DRIFT_SLOPE": str(slope),
                "DRIFT_CASES": str(cases),
                "PYTEST_ADDOPTS": "",
            }
            done = subprocess.run(
                [sys.executable, "-m", "pytest", *PYTEST_ARGS],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"run {run} of history {seed} exited {done.returncode}:\n{done.stdout[-2000:]}")
            with open(os.path.join(folder, "report.json"), encoding="utf-8") as stream:
                rows = json.load(stream)["history"]["rows"]
            flagged.append(any(row.get("drift") for row in rows))
    return flagged


def scenario(name: str, count: int, start: float, slope: float, args: argparse.Namespace) -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        histories = list(pool.map(lambda seed: history(seed, start, slope, args.runs, args.cases), range(1, count + 1)))
    first = [flags.index(True) + 1 for flags in histories if True in flags]
    result = {
        "scenario": name,
        "histories": count,
        "runs": args.runs,
        "cases": args.cases,
        "start": start,
        "slope": slope,
        "flagged": len(first),
        "first_flagged_run_median": statistics.median(first) if first else None,
        "first_flagged_runs": sorted(first),
    }
    print(
        f"{name}: {len(first)} of {count} histories flagged"
        + (f", first at run {sorted(first)} (median {result['first_flagged_run_median']})" if first else "")
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unchanged", type=int, default=20, help="histories of the unchanged model (U)")
    parser.add_argument("--worse", type=int, default=10, help="histories of the model losing two points a run (W)")
    parser.add_argument("--runs", type=int, default=10, help="saved runs per history")
    parser.add_argument("--cases", type=int, default=300, help="cases per run")
    parser.add_argument("--workers", type=int, default=2, help="histories run at once")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    results = [
        scenario("U unchanged", args.unchanged, 0.8, 0.0, args),
        scenario("W two points worse a run", args.worse, 0.92, 0.02, args),
    ]
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump(results, stream, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
