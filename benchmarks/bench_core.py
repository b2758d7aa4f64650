"""Speed of the core, run by hand: ``python benchmarks/bench_core.py``.

Prints ratios measured in this one run (never compared with a stored number):

- pytest start-up with the plugin vs without it (``-p no:llmeval``), on a file
  with one plain test: the plugin must not make every pytest start slower;
- cases per second of each deterministic evaluator on a batch of answers.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from pytest_llmeval import Case, Registry

REPEATS = 5


def _pytest_seconds(directory: str, *extra: str) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, directory],
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def startup() -> None:
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "test_plain.py"), "w") as handle:
            handle.write("def test_plain():\n    assert True\n")
        with_plugin = _pytest_seconds(directory)
        without = _pytest_seconds(directory, "-p", "no:llmeval")
    print(f"pytest start-up, plugin on / off: {with_plugin:.3f}s / {without:.3f}s = {with_plugin / without:.2f}x")


def throughput() -> None:
    answers = [
        f"Answer {i}: Brazil revenue was {15000 + i} million in 2023. Contact ops{i}@example.com for details."
        for i in range(200)
    ]
    cases = [
        Case(actual=a, expected="Brazil revenue was 15,969 million in 2023.", conditions='"revenue" AND NOT "Real"')
        for a in answers
    ]
    registry = Registry()
    rates = {}
    for name in registry.names():
        evaluator = registry.create(name)
        evaluator.evaluate(cases[:5])  # warm up: lazy imports
        start = time.perf_counter()
        evaluator.evaluate(cases)
        rates[name] = len(cases) / (time.perf_counter() - start)
    slowest = min(rates.values())
    for name, rate in sorted(rates.items(), key=lambda kv: -kv[1]):
        print(f"{name:<20} {rate:>10.0f} cases/s  ({rate / slowest:.1f}x the slowest)")


if __name__ == "__main__":
    startup()
    throughput()
