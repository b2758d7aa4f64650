"""The regression-gate benchmark: its tally, and one tiny run through pytest."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("bench_gate")


def outcome(exit, verdict, *detectable):
    return {"exit": exit, "verdict": verdict, "rows": [{"detectable": d} for d in detectable]}


def test_tally_counts_gate_failures_verdicts_and_the_median_detectable_difference(bench):
    figures = bench.tally(
        [
            outcome(1, "regressed", 0.1),
            outcome(0, "inconclusive", 0.3, None),
            outcome(0, "unchanged", 0.2),
            outcome(0, "improved"),
        ]
    )
    assert figures["runs"] == 4 and figures["gate_failed"] == 1 and figures["share"] == pytest.approx(0.25)
    assert figures["verdicts"] == {"regressed": 1, "inconclusive": 1, "unchanged": 1, "improved": 1}
    assert figures["median_detectable"] == pytest.approx(0.2)  # of 0.1, 0.3 and 0.2; a row without one is left out
    empty = bench.tally([])
    assert empty["runs"] == 0 and empty["median_detectable"] is None
    with pytest.raises(bench.BenchError):
        bench.tally([outcome(2, "inconclusive")])  # neither a pass nor a gate failure: a benchmark error


def test_targets(bench):
    assert bench.target_met({"share": 0.10}, ("at most", 0.10)) is True
    assert bench.target_met({"share": 0.125}, ("at most", 0.10)) is False
    assert bench.target_met({"share": 0.80}, ("at least", 0.80)) is True
    assert bench.target_met({"share": 0.75}, ("at least", 0.80)) is False
    assert bench.target_met({"share": 0.5}, None) is None


@pytest.mark.subprocess
def test_a_tiny_run_through_pytest(bench, tmp_path, capsys):
    out = tmp_path / "gate.json"
    assert bench.main(["--pairs-unchanged", "2", "--runs-worse", "2", "--workers", "2", "--json", str(out)]) == 0
    table = json.loads(out.read_text())
    assert [row["scenario"] for row in table] == ["A", "B", "C", "D", "H", "I", "J", "E", "E1", "F", "F3", "G"]
    judged = table.pop()  # the judge goes down in the new run: indeterminate and exit 1, every time
    assert judged["runs"] == 2 and judged["indeterminate_and_failed"] == 2 and judged["met"] is True
    models = table[7:]  # two models under test, one run each: is the better one named the best?
    assert [row["runs"] for row in models] == [2, 2, 2, 2]
    assert [row["met"] is None for row in models] == [False, True, False, False]  # E1 is informational
    assert all(row["best_named"] + row["wrong_best"] + row["no_clear_best"] == row["runs"] for row in models)
    auto, fixed = table[5], table[4]  # repeat=auto:5 runs no more draws than fixed 5
    assert auto["mean_draws"] <= fixed["mean_draws"] == 300
    table = table[:4]
    assert [row["runs"] for row in table] == [2, 2, 2, 2]
    for row in table:
        assert sum(row["verdicts"].values()) == row["runs"]
        assert 0 <= row["gate_failed"] <= row["runs"] and row["gate_failed"] == row["verdicts"]["regressed"]
        assert row["median_detectable"] is not None and row["median_detectable"] > 0
    assert [row["repeat"] for row in table] == [1, 3, 3, 1]
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].startswith("| scenario | runs | gate failed | regressed | inconclusive |")
    assert "| A: unchanged, repeat 1 | 2 |" in printed
