"""Runs over time as a user meets them (issue 48, item 2): ten saved runs of a stochastic model that loses two points
a run, the drift the tenth run's terminal, reports and comment name, and ``llmeval history`` over the same folder."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_llmeval.harness.cli import main
from pytest_llmeval.harness.runs import RUNS_DIR

pytestmark = pytest.mark.subprocess

#: One test records 300 cases of a model that passes each with a chance falling two points a run (RUN, from a file).
SUITE = """
import pathlib
import random

import pytest
from pytest_llmeval import evaluate

RUN = int(pathlib.Path("run.txt").read_text())


@pytest.mark.llmeval(model="acme")
def test_the_model():
    draw = random.Random(RUN)
    for case in range(300):
        answer = "yes" if draw.random() < {start} - 0.02 * RUN * {slope} else "no"
        evaluate("exact_match", actual=answer, expected="yes", case=f"c{{case}}")
"""


def _runs(pytester, count, *, slope=1, start=0.92):
    pytester.makepyfile(test_model=SUITE.format(start=start, slope=slope))
    pytester.makepyprojecttoml("[tool.llmeval]\nsave = true\n")
    result = None
    for run in range(1, count + 1):
        (pytester.path / "run.txt").write_text(str(run))
        result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=rep")
        result.assert_outcomes(passed=1)
    return result


def test_a_model_losing_two_points_a_run_drifts_by_the_tenth_saved_run(pytester, capsys):
    result = _runs(pytester, 10)
    saved = sorted((pytester.path / RUNS_DIR).glob("*.json"))
    assert [json.loads(p.read_text())["run"]["saved"]["number"] for p in saved] == list(range(1, 11))
    assert all("history" not in json.loads(p.read_text()) for p in saved)  # the history is of runs, not in them
    result.stdout.fnmatch_lines(
        [
            "llmeval history: 10 saved runs (*), this one included: 1 of 1 row drifting (the last 5 runs against *",
            "  exact_match exact_match on acme: * last *",
            "    drift: fail rate * -> * over the last 5 runs against the 5 before, 300 cases (p <= *, level *",
        ]
    )
    report = json.loads((pytester.path / "rep" / "report.json").read_text())
    [row] = report["history"]["rows"]
    assert len(row["points"]) == 10 and row["points"][-1]["run"] == "" and row["drift"]["look"] == 10
    assert "## History" in (pytester.path / "rep" / "report.md").read_text()
    assert "### Over the saved runs" in (pytester.path / "rep" / "comment.md").read_text()
    assert 'id="history"' in (pytester.path / "rep" / "report.html").read_text()
    # the console script reads the same folder: the ten saved runs, the same drift
    capsys.readouterr()
    assert main(["history", "--root", str(pytester.path), "--fail-on-drift"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("10 saved runs (") and out[1].split() == [
        "check",
        "model",
        "runs",
        "pass",
        "rate",
        "by",
        "run",
        "last",
        "CI",
        "mean",
    ]
    assert out[3].split()[:4] == ["exact_match", "exact_match", "acme", "10"]
    assert out[-1].startswith("exact_match exact_match on acme: drift: fail rate ")
    assert main(["history", "--root", str(pytester.path)]) == 0
    capsys.readouterr()
    assert main(["history", "--root", str(pytester.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["drift"]["measure"] == "fail rate"


def test_the_console_script_says_what_is_wrong(pytester, capsys):
    assert main(["history", "--root", str(pytester.path)]) == 2
    assert "no saved run under" in capsys.readouterr().err
    assert main(["history", "--window", "1"]) == 2
    assert "--window must be 2 or more" in capsys.readouterr().err
    (pytester.path / RUNS_DIR).mkdir(parents=True)
    (pytester.path / RUNS_DIR / "2026-12-01T000000Z-deadbeef.json").write_text("{not json")
    assert main(["history", "--root", str(pytester.path)]) == 2
    assert "left out 2026-12-01T000000Z-deadbeef.json: " in capsys.readouterr().err
    done = subprocess.run(
        [sys.executable, "-m", "pytest_llmeval", "history", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "--fail-on-drift" in done.stdout
