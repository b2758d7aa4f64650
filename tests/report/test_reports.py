"""Aggregation and the report writers, without a pytest run."""

from __future__ import annotations

import json
import os

import pytest

from pytest_llmeval import Case
from pytest_llmeval.checks.lexical.exact_match import ExactMatch
from pytest_llmeval.checks.lexical.rouge import Rouge
from pytest_llmeval.core.result import NO_MODEL
from pytest_llmeval.report import atomic_write, markdown, write_reports
from pytest_llmeval.report.aggregate import summarize
from pytest_llmeval.report.terminal import render_summary
from pytest_llmeval.report.view import view


def records(*triples, evaluator=None):
    evaluator = evaluator or ExactMatch()
    out = []
    for model, case_id, answer in triples:
        [result] = evaluator.evaluate([Case(actual=answer, expected="yes", model=model, case_id=case_id)])
        out.append({**result.to_dict(), "nodeid": f"t::{model}-{case_id}"})
    return out


def test_summary_rows_best_model_hardest_case():
    recs = records(
        ("a", "q1", "yes"),
        ("a", "q2", "yes"),
        ("b", "q1", "no"),
        ("b", "q2", "yes"),
        ("c", "q1", "no"),
        ("c", "q2", "no"),
    )
    summary = summarize(recs)
    assert summary.checks == 6 and summary.passed == 3 and summary.models == ("a", "b", "c")
    assert [(r.model, r.passed, r.count) for r in summary.rows] == [("a", 2, 2), ("b", 1, 2), ("c", 0, 2)]
    assert summary.best_model is None  # 2 of 2 against 1 of 2: no test can tell on 2 cases
    assert [(p.first, p.second, p.verdict) for p in summary.model_pairs] == [
        ("a", "b", "within noise"),
        ("a", "c", "within noise"),
        ("b", "c", "within noise"),
    ]
    assert summary.hardest_case.case_id == "q1" and summary.hardest_case.failed_models == ("b", "c")


def test_unlike_signatures_are_never_averaged():
    strict = records(("a", "q1", "Yes"))
    lenient = records(("a", "q1", "Yes"), evaluator=ExactMatch(ignore_case=True))
    summary = summarize(strict + lenient)
    assert len(summary.rows) == 2
    assert {r.mean for r in summary.rows} == {0.0, 1.0}
    assert all(r.check.startswith("exact_match#") for r in summary.rows)


def test_lower_is_better_ranking_and_unnamed_model():
    [good] = Rouge().evaluate([Case(actual="a b c", expected="a b c")])
    rec = {**good.to_dict(), "model": None, "nodeid": "t::x"}
    summary = summarize([rec])
    assert summary.models == (NO_MODEL,) and summary.best_model is None
    lines = render_summary(view({"summary": summary.to_dict(), "results": [rec]}))
    assert lines[0] == "1 check: 1 passed (100%)"  # a test without a model is no model
    assert lines[3].split()[2] == "-"
    assert all(len(line) <= 80 for line in lines)


def test_long_model_names_lose_their_middle_and_stay_apart_on_80_columns():
    """Two models that differ only at the end of a long name: each row shows its name's head and distinguishing
    tail, never two rows that read alike."""
    one, two = "support-bot-large-finetuned-2024-05-13", "support-bot-large-finetuned-2024-06-01"
    recs = records((one, "q1", "yes"), (two, "q1", "no"))
    lines = render_summary(view({"summary": summarize(recs).to_dict(), "results": recs}), width=80)
    rows = [line for line in lines if line.lstrip().startswith("exact_match")]
    assert len(rows) == 2 and all(len(line) <= 80 for line in lines if not line.startswith("no clear best"))
    shown = [row.split()[1] for row in rows]
    assert len(set(shown)) == 2 and all("…" in name for name in shown)
    for name, whole in zip(shown, (one, two)):
        head, _, tail = name.partition("…")
        assert whole.startswith(head) and whole.endswith(tail) and tail.endswith(whole[-5:])


def test_unnamed_tests_are_no_model_in_the_json_and_report_summaries():
    from pytest_llmeval.report import html, markdown

    [good] = Rouge().evaluate([Case(actual="a b c", expected="a b c")])
    [bad] = Rouge().evaluate([Case(actual="x y z", expected="a b c")])
    records = [
        {**bad.to_dict(), "model": None, "nodeid": "t::u", "case_id": "u"},
        {**good.to_dict(), "model": "alpha", "nodeid": "t::a"},
        {**good.to_dict(), "model": "beta", "nodeid": "t::b"},
    ]
    summary = summarize(records)
    # tests without a model never compete
    assert summary.best_model is None and "(unnamed)" not in summary.no_clear_best
    data = summary.to_dict()
    assert data["models"] == ["alpha", "beta"] and set(data["model_totals"]) == {"alpha", "beta"}
    assert {row["model"] for row in data["leaderboard"]} == {"alpha", "beta", None}
    assert data["hardest_case"]["case_id"] == "u" and data["hardest_case"]["failed_models"] == []
    assert "(unnamed)" not in json.dumps(data)
    report = {
        "summary": data,
        "results": records,
        "tests": {},
        "run": {"plugin": "0", "pytest": "9", "python": "3", "finished": "now"},
    }
    assert "Most difficult case: `u` (failed)." in markdown.render(report)
    page = html.render(report)
    assert "Most difficult case: <code>u</code> (failed)" in page and "(unnamed)" not in page


def test_empty_summary():
    summary = summarize([])
    assert summary.checks == 0 and summary.hardest_case is None and summary.rows == ()


def test_markdown_escapes_table_breakers():
    recs = records(("a|b", "q1", "no"))
    report = {
        "summary": summarize(recs).to_dict(),
        "results": [{**r, "reason": "pipe | and <b>tag</b>\nnewline"} for r in recs],
        "run": {"plugin": "0", "pytest": "9", "python": "3", "finished": "now"},
    }
    text = markdown.render(report)
    assert "| a\\|b |" in text
    assert "pipe \\| and \\<b\\>tag\\</b\\> newline" in text


def test_atomic_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(str(target), "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_write_reports_rejects_unknown_extension(tmp_path):
    with pytest.raises(ValueError, match="unknown report extension '.csv'"):
        write_reports({}, str(tmp_path / "x.csv"))


def test_the_json_report_is_streamed_in_pieces_equal_to_one_dump():
    from pytest_llmeval.report.jsonfile import chunks, dumps

    report = {"results": [{"reason": f"answer {i} \ud800 " + "x" * 200} for i in range(2000)]}
    pieces = list(chunks(report))
    assert len(pieces) > 5 and max(map(len, pieces)) < 70_000  # bounded pieces, never the whole report at once
    text = "".join(pieces)
    assert text == dumps(report) and json.loads(text) == report
    text.encode("utf-8")  # lone surrogates escaped in every piece
