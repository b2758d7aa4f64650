"""Cost of recording checks, run by hand: ``python benchmarks/bench_records.py [--tests N] [--rounds R]``.

Generates a suite of N trivial tests (default 30,000) and runs it through pytest in a
subprocess, in these variants:

- ``plain``: each test does ``assert a == b`` (the plugin is installed, no check is used:
  what a user would write instead);
- ``exact``: each test calls ``assert_exact_match(a, b)``;
- ``matches``: each test calls ``assert_matches(a, '"answer"')``;
- ``exact+report``: ``exact`` with ``--llmeval-report`` (JSON, Markdown and HTML).

``--before DIR`` also runs every check variant with the package found in ``DIR`` first
(``PYTHONPATH``; e.g. a copy of the package as it was before a change), interleaved
with the others, so a change is measured against its predecessor in one run.

Byte code is cached (in a temporary folder, after one untimed run per suite) as it is on a
user's machine: otherwise ``plain`` pays pytest's assertion rewriting of 30,000 asserts on every
run and looks slower than the checks. Wall time is first to last, as a user runs it; peak RSS is the child's
``ru_maxrss``, taken in a fresh wrapper process per run so the maximum is that run's.
Variants are interleaved round by round (the machine may be shared) and every ratio
is to ``plain`` measured in the same run, never to a stored number.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PER_FILE = 1000

BODIES = {
    "plain": "    assert a == b\n",
    "exact": "    assert_exact_match(a, b)\n",
    "matches": "    assert_matches(a, '\"answer\"')\n",
}

# Runs one command and prints its wall time and its peak RSS (bytes) as JSON.
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"wall": wall, "rss": peak, "rc": done.returncode, "err": done.stderr.decode()[-2000:]}))
"""


def suite_of(variant: str) -> str:
    """``exact+report@before`` -> ``exact``: the generated suite a variant runs."""
    return variant.partition("@")[0].partition("+")[0]


def write_suite(directory: str, tests: int, body: str) -> None:
    os.makedirs(directory, exist_ok=True)
    for start in range(0, tests, PER_FILE):
        lines = ["from pytest_llmeval import assert_exact_match, assert_matches\n\n"]
        for i in range(start, min(tests, start + PER_FILE)):
            lines.append(f"def test_{i}():\n    a = b = 'answer {i}'\n{body}\n")
        with open(os.path.join(directory, f"test_{start // PER_FILE:04d}.py"), "w") as handle:
            handle.writelines(lines)


def measure(directory: str, *extra: str, env: dict[str, str]) -> dict[str, float]:
    # -P: the package comes from PYTHONPATH (--before) or the installed one, never from the working directory
    command = [
        sys.executable,
        *(["-P"] if "PYTHONPATH" in env else []),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        *extra,
        directory,
    ]
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], check=True, capture_output=True, text=True, env=env
    ).stdout
    result: dict[str, float] = json.loads(out)
    if result["rc"] != 0:
        raise SystemExit(f"pytest failed ({result['rc']}): {' '.join(command)}\n{result['err']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=30_000, help="tests per suite (default 30000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median is shown (default 3)")
    parser.add_argument("--variants", default="plain,exact,matches,exact+report", help="comma-separated variants")
    parser.add_argument("--xdist", type=int, default=0, help="also pass -n N (pytest-xdist)")
    parser.add_argument(
        "--before", metavar="DIR", help="also run the check variants with the package in DIR (PYTHONPATH)"
    )
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if "plain" not in variants:
        variants.insert(0, "plain")
    if args.before:
        variants += [f"{v}@before" for v in variants]
    extra = ["-n", str(args.xdist)] if args.xdist else []
    with tempfile.TemporaryDirectory(prefix="llmeval-bench-") as root:
        for name in {suite_of(v) for v in variants}:
            write_suite(os.path.join(root, name), args.tests, BODIES[name])
        # Byte code is cached as users have it (pytest's rewritten test modules included), in a
        # folder of its own, and one untimed run per suite fills the cache.
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(root, "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs = {"": env}
        if args.before:  # both from PYTHONPATH (and -P): this checkout's package, and the one in DIR
            import pytest_llmeval

            envs[""] = {**env, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(pytest_llmeval.__file__)))}
            envs["before"] = {**env, "PYTHONPATH": os.path.abspath(args.before)}
        for name in {suite_of(v) for v in variants}:
            for each in envs.values():
                measure(os.path.join(root, name), *extra, env=each)
        runs: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
        for round_ in range(args.rounds):
            for variant in variants:
                which = variant.partition("@")[2]
                options = (
                    [*extra, f"--llmeval-report={os.path.join(root, 'report')}"] if "+report" in variant else extra
                )
                runs[variant].append(measure(os.path.join(root, suite_of(variant)), *options, env=envs[which]))
                print(
                    f"round {round_ + 1} {variant}: {runs[variant][-1]['wall']:.2f}s "
                    f"{runs[variant][-1]['rss'] / 2**20:.0f} MiB",
                    file=sys.stderr,
                )
    wall = {v: statistics.median(r["wall"] for r in runs[v]) for v in variants}
    rss = {v: statistics.median(r["rss"] for r in runs[v]) for v in variants}
    print(f"{args.tests} tests, {args.rounds} round(s), median{' , -n ' + str(args.xdist) if args.xdist else ''}")
    print(f"{'variant':<20}{'wall s':>9}{'x plain':>9}{'peak MiB':>10}{'x plain':>9}  (X@before: x plain@before)")
    for v in variants:
        plain = "plain" + v[v.find("@") :] if "@" in v else "plain"
        print(f"{v:<20}{wall[v]:>9.2f}{wall[v] / wall[plain]:>9.2f}{rss[v] / 2**20:>10.0f}{rss[v] / rss[plain]:>9.2f}")


if __name__ == "__main__":
    main()
