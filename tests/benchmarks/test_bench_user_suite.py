"""The new-user groundedness suite: its data, the benchmark's scoring and rendering, and one small run through
pytest."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks import BENCHMARKS, load_bench

DATA = str(BENCHMARKS / "data" / "user_suite.jsonl")


@pytest.fixture(scope="module")
def bench():
    return load_bench("bench_user_suite")


def test_the_data_file_holds_45_well_formed_cases():
    with open(DATA, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    assert len(rows) == 45
    assert len({row["id"] for row in rows}) == 45
    assert {row["expected"] for row in rows} == {"pass", "fail"}
    assert sum(row["expected"] == "fail" for row in rows) == 28  # hallucinations; the other 17 are faithful
    for row in rows:
        assert isinstance(row["context"], list) and row["context"], row["id"]
        assert all(isinstance(passage, str) and passage.strip() for passage in row["context"]), row["id"]
        assert isinstance(row["answer"], str) and row["answer"].strip(), row["id"]
        assert isinstance(row["kind"], str) and row["kind"], row["id"]
        assert row.get("question") is None or isinstance(row["question"], str), row["id"]
    records = [row for row in rows if any(passage.lstrip().startswith("{") for passage in row["context"])]
    assert records and all(json.loads(passage) for row in records for passage in row["context"])  # JSON records parse


def test_load_reads_the_suite_and_refuses_bad_rows(bench, tmp_path):
    assert len(bench.load(DATA)) == 45
    good = {"id": "a", "kind": "k", "context": ["c"], "answer": "x", "expected": "pass"}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "b", "question": "q?"}) + "\n")
    assert [row["id"] for row in bench.load(str(path))] == ["a", "b"]
    for bad, field in (
        ({"expected": "unverified"}, "expected"),
        ({"context": []}, "context"),
        ({"context": "c"}, "context"),
        ({"context": ["c", 3]}, "context"),
        ({"answer": ""}, "answer"),
    ):
        path.write_text(json.dumps({**good, **bad}) + "\n")
        with pytest.raises(ValueError, match=field):
            bench.load(str(path))
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(ValueError, match="twice"):
        bench.load(str(path))


ROWS = [
    {"id": "h1", "kind": "wrong place", "expected": "fail"},
    {"id": "h2", "kind": "wrong place", "expected": "fail"},
    {"id": "h3", "kind": "negation", "expected": "fail"},
    {"id": "f1", "kind": "faithful", "expected": "pass"},
    {"id": "f2", "kind": "faithful", "expected": "pass"},
    {"id": "f3", "kind": "faithful", "expected": "pass"},
]


def test_verdicts_are_read_back_by_case_id(bench):
    report = {
        "results": [
            {"case_id": "h1", "verdict": "fail", "passed": False, "reason": "'Osaka' appears nowhere\nmore"},
            {"case_id": "f1", "passed": True, "reason": ""},  # a record of before verdicts: passed decides
            {"case_id": "other", "verdict": "fail", "reason": "not ours"},
        ]
    }
    assert bench.verdicts(report, ROWS) == {"h1": ("fail", "'Osaka' appears nowhere"), "f1": ("pass", "")}


def test_scoring_matches_what_a_user_expects(bench):
    found = {
        "h1": ("fail", "r1"),
        "h2": ("unverified", "r2"),
        "h3": ("pass", "r3"),
        "f1": ("pass", ""),
        "f2": ("unverified", ""),
        "f3": ("fail", "r6"),
    }
    cases = bench.score(ROWS, found)
    assert [c["as_expected"] for c in cases] == [True, False, False, True, True, False]
    assert [c["outcome"] for c in cases] == [
        "yes (caught)",
        "no (missed: unverified)",
        "no (missed: pass)",
        "yes (confirmed)",
        "yes (unverified)",
        "no (failed)",
    ]
    summary = bench.totals(cases)
    assert summary["as_expected"] == 3 and summary["cases"] == 6
    assert (summary["caught"], summary["hallucinations"], summary["missed_unverified"], summary["missed_pass"]) == (
        1,
        3,
        1,
        1,
    )
    assert (summary["faithful_failed"], summary["faithful_confirmed"], summary["faithful_unverified"]) == (1, 1, 1)
    assert summary["unverified"] == 2 and summary["no_verdict"] == 0
    assert list(summary["kinds"]) == ["wrong place", "negation", "faithful"]  # the suite's order
    assert summary["kinds"]["wrong place"]["caught"] == 1 and summary["kinds"]["negation"]["as_expected"] == 0
    missing = bench.score(ROWS[:1], {})
    assert missing[0]["verdict"] == "missing" and not missing[0]["as_expected"]
    assert bench.totals(missing)["no_verdict"] == 1


def test_render_prints_cases_totals_and_kinds(bench):
    found = {
        "h1": ("fail", "'Osaka' | nowhere " + "x" * 300),
        "h2": ("unverified", ""),
        "h3": ("fail", ""),
        "f1": ("pass", ""),
        "f2": ("unverified", ""),
        "f3": ("fail", ""),
    }
    cases = bench.score(ROWS, found)
    text = bench.render(cases, bench.totals(cases))
    lines = text.splitlines()
    assert lines[0] == "| id | kind | expected | verdict | as a user expects | reason |"
    row = next(line for line in lines if line.startswith("| h1 |"))
    assert row.startswith("| h1 | wrong place | fail | fail | yes (caught) | 'Osaka' \\| nowhere x") and row.endswith(
        "… |"
    )
    assert len(row) < 220  # the reason is cut in the table
    assert "As a user expects: 4/6" in lines
    assert "Hallucinations caught (fail): 2/3 (missed: 1 unverified, 0 pass)" in lines
    assert "Faithful answers failed: 1/3" in lines and "Faithful answers confirmed (pass): 1/3" in lines
    assert "Faithful answers unverified: 1/3" in lines and "Unverified, all cases: 2/6" in lines
    assert "| wrong place | 2 | 1/2 | 1/2 | - | - | 1/2 |" in lines
    assert "| faithful | 3 | 2/3 | - | 1/3 | 1/3 | 1/3 |" in lines


@pytest.mark.subprocess
def test_a_small_run_through_pytest_reads_the_report_back(bench, tmp_path, capsys):
    rows = bench.load(DATA)
    picked = [
        rows[0],
        next(r for r in rows if r["expected"] == "pass"),
        next(r for r in rows if r["kind"] == "record field"),
    ]
    data = tmp_path / "three.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in picked), encoding="utf-8")
    out, results = tmp_path / "out.json", tmp_path / "results"
    assert bench.main(["--data", str(data), "--workers", "1", "--json", str(out), "--results", str(results)]) == 0
    table = json.loads(out.read_text(encoding="utf-8"))
    assert [c["id"] for c in table["cases"]] == [row["id"] for row in picked]
    assert all(c["verdict"] in ("pass", "fail", "unverified") for c in table["cases"])  # every verdict read back
    assert all(c["reason"] for c in table["cases"])
    assert table["totals"]["cases"] == 3 and table["totals"]["hallucinations"] == 2 and table["totals"]["faithful"] == 1
    assert json.loads((results / "user_suite.json").read_text(encoding="utf-8"))["totals"] == table["totals"]
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "| id | kind | expected | verdict | as a user expects | reason |"
    assert f"| {picked[0]['id']} | {picked[0]['kind']} | fail | " in printed
