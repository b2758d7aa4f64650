"""Speed of the core, run by hand: ``python benchmarks/bench_core.py``.

Prints ratios measured in this one run (never compared with a stored number):

- pytest start-up with the plugin vs without it (``-p no:llmeval``), on a file
  with one plain test: the plugin must not make every pytest start slower;
- cases per second of each deterministic evaluator on a batch of answers;
- hostile inputs (the timings tests/test_robustness.py, test_facts.py and test_readability.py
  once asserted; the tests now check the work is bounded): how each PII / secret pattern's scan
  time grows when backtracking bait grows 10x (about 10x is linear; over 40x is flagged), and
  the seconds taken by the inputs that once hung.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

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


def _best(function: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):  # the best of three: a busy machine slows one run, not the code
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def hostile_inputs() -> None:
    from pytest_llmeval.facts.collect import extract_facts
    from pytest_llmeval.facts.extract import FactIndex
    from pytest_llmeval.text.patterns import PII_DETECTORS, SECRET_DETECTORS

    from pytest_llmeval.judges.base import JudgeParseError, extract_json

    fragments = [
        "1:",
        "a:",
        "ab:cd:",
        "1 ",
        "1-",
        "1.",
        "A1",
        "a",
        "x@",
        "a.",
        "-",
        "sk-a",
        "eyJ",
        "=",
        "AccountKey=",
        "+1 ",
    ]
    worst = []
    for detector in [*PII_DETECTORS, *SECRET_DETECTORS]:
        for fragment in fragments:
            for tail in ("g", "_final", "", "!"):
                small = _best(lambda: list(detector.pattern.finditer(fragment * 400 + tail)))
                large = _best(lambda: list(detector.pattern.finditer(fragment * 4000 + tail)))
                worst.append(
                    (
                        large,
                        large / max(small, 1e-6),
                        f"{detector.kind} {detector.description[:30]!r} on {fragment!r}x4000{tail}",
                    )
                )
    for seconds, growth, what in sorted(worst, reverse=True)[:5]:  # the slowest scans
        print(
            f"{'FLAG ' if growth > 40 and seconds > 0.02 else ''}10x input: {growth:5.1f}x time ({seconds:.4f}s)  "
            f"{what}"
        )

    def json_reply(text: str) -> None:
        try:
            extract_json(text)
        except JudgeParseError:
            pass

    registry = Registry(entry_points=False)
    cases = {
        "pii_leakage, IPv6 bait of 5,000": lambda: registry.create("pii_leakage").evaluate(
            [Case(actual="1:1:" + "a" * 5000 + "g")]
        ),
        "extract_json, 100,000 '['": lambda: json_reply("[" * 100_000),
        "extract_json, 1 MB of '{ '": lambda: json_reply("{ " * 500_000),
        "sentiment (VADER), 100 KB": lambda: registry.create("sentiment").evaluate(
            [Case(actual="This is good. I love it. " * 4000)]
        ),
        "fact layer, 20,000 '1,'": lambda: (extract_facts("1," * 20_000), FactIndex("1," * 20_000)),
        "fact layer, 10,000 dated lines": lambda: FactIndex(
            "".join(f"2024-01-05 12:{i % 60:02d} processed {i} items\n" for i in range(10_000))
        ),
        "flesch_reading_ease, 1 MB": lambda: registry.create("flesch_reading_ease").evaluate(
            [Case(actual="The cat sat on the mat. " * 42_000)]
        ),
    }
    for what, function in cases.items():
        try:
            print(f"{what:<32} {_best(function, 1):.3f}s")
        except ImportError as exc:
            print(f"{what:<32} skipped: {exc}")


if __name__ == "__main__":
    startup()
    throughput()
    hostile_inputs()
