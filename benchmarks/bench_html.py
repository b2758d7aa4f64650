"""How large the HTML report of a 30,000-check run is, and how long headless Chromium takes to open it.

A suite of ``--checks`` exact-match checks over three models (every tenth answer wrong) runs through pytest in a
subprocess with ``--llmeval-report``; then Chromium (Debian's chromium and chromium-driver, through selenium) opens
``report.html`` from the file ``--loads`` times, and the page's own navigation timing gives the time to the load
event. Prints the file's size, the median load time, and how many rows the page holds.

    python benchmarks/bench_html.py [--checks 30000] [--loads 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = """
import pytest
from pytest_llmeval import evaluate

MODELS = ("alpha", "beta", "gamma")

@pytest.mark.parametrize("case", range({cases}))
def test_answer(case):
    for model in MODELS:
        answer = "wrong" if (case + len(model)) % 10 == 0 else "paris"
        evaluate("exact_match", actual=answer, expected="paris", model=model, case=f"q{{case:05d}}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=30_000)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.joinpath("test_big.py").write_text(SUITE.format(cases=args.checks // 3))
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "--llmeval-report=out",
                "--override-ini=llmeval_summary=false",
            ],
            cwd=folder,
            check=True,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        run_s = time.perf_counter() - started
        page = folder / "out" / "report.html"
        size = page.stat().st_size
        options = Options()
        for argument in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1400,1000",
        ):
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium") or "chromium"
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)
        try:
            loads = []
            for _ in range(args.loads):
                driver.get("about:blank")
                driver.get(page.as_uri())
                loads.append(
                    driver.execute_script(
                        "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime;"
                    )
                )
            rows = driver.execute_script("return document.querySelectorAll('tr').length")
            requests = driver.execute_script("return performance.getEntriesByType('resource').length")
        finally:
            driver.quit()
    print(f"{args.checks} checks through pytest in {run_s:.1f} s (the report included)")
    print(f"report.html: {size / 1e6:.2f} MB, {rows} table rows, {requests} requests")
    print(
        f"Chromium, time to the load event over {args.loads} loads: median {statistics.median(loads):.0f} ms "
        f"(min {min(loads):.0f}, max {max(loads):.0f})"
    )


if __name__ == "__main__":
    main()
