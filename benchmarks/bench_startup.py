"""What the plugin costs a run that uses no check: 200 trivial tests with and without ``-p no:llmeval``.

Runs the two commands alternately (so a busy moment hurts both alike) through pytest in subprocesses, first to
last test, and prints the median wall time of each and their difference; then ``python -X importtime`` of a run
with the plugin: the package modules imported before any test asks for a check, and their total.

    python benchmarks/bench_startup.py [--runs 15] [--tests 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(folder: Path, extra: list[str]) -> float:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *extra,
        "test_trivial.py",
    ]
    started = time.perf_counter()
    subprocess.run(
        command, cwd=folder, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    )
    return time.perf_counter() - started


def imported_modules(folder: Path) -> list[tuple[str, int]]:
    """(module, own microseconds) of this package's modules that a plugin-only run imports."""
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "test_trivial.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "pytest_llmeval" in line:
            own, _, name = line.removeprefix("import time:").split("|")
            out.append((name.strip(), int(own)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.joinpath("test_trivial.py").write_text(
            "".join(f"def test_{i}():\n    assert True\n\n\n" for i in range(args.tests))
        )
        run(folder, [])  # warm the file cache
        with_plugin, without = [], []
        for _ in range(args.runs):
            with_plugin.append(run(folder, []))
            without.append(run(folder, ["-p", "no:llmeval"]))
        modules = imported_modules(folder)
    a, b = statistics.median(with_plugin), statistics.median(without)
    print(f"{args.tests} trivial tests, {args.runs} runs each, alternating (median wall time of the whole pytest run):")
    print(f"  with the plugin     {a * 1000:7.1f} ms")
    print(f"  -p no:llmeval       {b * 1000:7.1f} ms")
    print(f"  the plugin adds     {(a - b) * 1000:7.1f} ms")
    own = sum(micro for _, micro in modules)
    print(
        f"package modules imported by a run that uses no check: {len(modules)}, {own / 1000:.1f} ms of their own "
        "import time"
    )
    for name, micro in sorted(modules, key=lambda m: -m[1]):
        print(f"  {micro / 1000:6.2f} ms  {name}")


if __name__ == "__main__":
    main()
