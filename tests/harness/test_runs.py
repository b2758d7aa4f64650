"""Saved runs as a user meets them: ``save = true`` keeps each run's report under ``.llmeval/runs/`` with its commit,
branch, time and signatures; ``--llmeval-baseline=last`` (or a run's id, or a branch) compares with one exactly as the
file itself would; the folder stays bounded; under xdist the controller saves the run once."""

from __future__ import annotations

import json
import subprocess

import pytest

from pytest_llmeval.harness.runs import KEEP_DAYS, KEEP_LAST, RUNS_DIR, kept

pytestmark = pytest.mark.subprocess

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match

ANSWERS = {"q1": "Paris", "q2": "Paris", "q3": "Lyon"}


@pytest.mark.llmeval(model="m")
@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_capital(case):
    assert_exact_match(ANSWERS[case], "Paris")
"""


def _saved(pytester):
    return sorted((pytester.path / RUNS_DIR).glob("*.json"))


def _verdict(result) -> str:
    return next(line for line in result.outlines if line.startswith("llmeval verdict:"))


def test_three_saved_runs_and_the_last_compared_as_its_file(pytester):
    pytester.makepyfile(test_capitals=SUITE)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=pytester.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=pytester.path, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "suite"], cwd=pytester.path, check=True)
    for _ in range(3):
        result = pytester.runpytest("-p", "no:randomly", "-o", "llmeval_save=true")
        result.assert_outcomes(passed=2, failed=1)
        result.stdout.fnmatch_lines([f"llmeval report: {RUNS_DIR}/*Z-*.json"])
    runs = _saved(pytester)
    assert len(runs) == 3
    saved = [json.loads(p.read_text())["run"]["saved"] for p in runs]
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=pytester.path, capture_output=True, text=True).stdout
    assert {s["commit"] for s in saved} == {commit.strip()} and {s["branch"] for s in saved} == {"main"}
    assert len({s["id"] for s in saved}) == 3 and all(
        runs[i].name.endswith(f"-{s['id']}.json") for i, s in enumerate(saved)
    )
    assert [sig["evaluator"] for sig in saved[0]["signatures"]] == ["exact_match"]
    # a saved run is a report: compared with 'last', with its id or with its branch as with its file
    by_file = _verdict(pytester.runpytest("-p", "no:randomly", f"--llmeval-baseline={RUNS_DIR}/{runs[-1].name}"))
    for ref in ("last", saved[-1]["id"], saved[-1]["id"][:5], "main"):
        assert _verdict(pytester.runpytest("-p", "no:randomly", f"--llmeval-baseline={ref}")) == by_file, ref
    assert by_file.startswith(("llmeval verdict: unchanged", "llmeval verdict: inconclusive"))


def test_a_saved_run_that_is_not_there_is_a_usage_error_naming_it(pytester):
    pytester.makepyfile(test_capitals=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-baseline=last")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--llmeval-baseline / llmeval_baseline: 'last' names the newest saved run*holds none*"]
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-baseline=no-such-run")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'no-such-run' is neither a report file nor a saved run (last, *; 0 saved under *"])


def test_under_xdist_the_controller_saves_the_run_once(pytester):
    pytester.makepyfile(test_capitals=SUITE)
    pytester.makepyprojecttoml("[tool.llmeval]\nsave = true\n")
    result = pytester.runpytest("-p", "no:randomly", "-n", "2")
    result.assert_outcomes(passed=2, failed=1)
    [run] = _saved(pytester)
    report = json.loads(run.read_text())
    assert len(report["results"]) == 3 and report["run"]["saved"]["branch"] is None  # no git here


def test_the_folder_keeps_the_last_runs_and_one_a_day():
    names = [
        f"2026-{month:02d}-{day:02d}T{hour:02d}0000Z-{month:02d}{day:02d}{hour:02d}ab.json"
        for month in (9, 10, 11, 12)
        for day in range(1, 29)
        for hour in range(0, 24, 6)
    ]
    keep = kept(names, today="2026-12-28")
    assert len(keep) <= KEEP_LAST + KEEP_DAYS
    assert keep[-KEEP_LAST:] == sorted(names)[-KEEP_LAST:]  # the most recent, all of them
    days = {name[:10] for name in keep}
    assert min(days) > "2026-10-29" and len(days) == len({name[:10] for name in names if name[:10] > "2026-10-29"})
    assert all(name == max(n for n in names if n.startswith(name[:10])) for name in keep[:-KEEP_LAST])  # a day's last


def test_ci_shards_merged_with_save_keep_one_saved_run_of_every_shard(pytester):
    """The shards write reports; the merge step saves the run once, holding every shard's results, as a single run
    would."""
    pytester.makepyfile(test_capitals=SUITE)
    whole = pytester.runpytest("-p", "no:randomly", "--llmeval-report=whole.json")
    pytester.runpytest("-p", "no:randomly", "-k", "q1", "--llmeval-report=a.json")
    pytester.runpytest("-p", "no:randomly", "-k", "not q1", "--llmeval-report=b.json")
    assert _saved(pytester) == [] and whole.ret == 1
    merged = pytester.runpytest("-p", "no:randomly", "-o", "llmeval_save=true", "--llmeval-merge", "a.json", "b.json")
    assert merged.ret == 1
    [saved] = _saved(pytester)
    run = json.loads(saved.read_text())
    one = json.loads((pytester.path / "whole.json").read_text())
    assert run["run"]["merged"] == ["a.json", "b.json"] and run["run"]["saved"]["number"] == 1
    assert sorted(r["nodeid"] for r in run["results"]) == sorted(r["nodeid"] for r in one["results"])
    assert run["summary"] == one["summary"]
