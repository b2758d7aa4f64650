"""The report view: what the Markdown and HTML reports show, decided once from the JSON report."""

from __future__ import annotations

import json

from pytest_llmeval import Case
from pytest_llmeval.checks.lexical.exact_match import ExactMatch
from pytest_llmeval.checks.lexical.rouge import Rouge
from pytest_llmeval.report import html, markdown
from pytest_llmeval.report.aggregate import summarize
from pytest_llmeval.report.jsonfile import dumps, validate
from pytest_llmeval.report.rows import HTML_LIMITS, MARKDOWN_LIMITS, Limits
from pytest_llmeval.report.view import view

RUN = {"plugin": "0", "pytest": "9", "python": "3", "finished": "now"}


def records(*triples, evaluator=None):
    evaluator = evaluator or ExactMatch()
    out = []
    for model, case_id, answer in triples:
        [result] = evaluator.evaluate([Case(actual=answer, expected="yes", model=model, case_id=case_id)])
        out.append({**result.to_dict(), "nodeid": f"t::{model}-{case_id}"})
    return out


def report_of(recs, **extra):
    report = {
        "format": "pytest-llmeval-report",
        "version": 1,
        "run": RUN,
        "summary": summarize(recs).to_dict(),
        "results": recs,
        **extra,
    }
    assert validate(report) is None
    return json.loads(dumps(report))  # as read back from disk


def test_headline_best_model_hardest_case_and_leaderboard():
    v = view(
        report_of(
            records(("a", "q1", "yes"), ("a", "q2", "yes"), ("b", "q1", "no"), ("b", "q2", "yes"), ("c", "q1", "no")),
            tests={"t::x": "passed", "t::y": "failed"},
        )
    )
    assert (v.headline.checks, v.headline.models, v.headline.passed, v.headline.pass_rate) == (
        5,
        " on 3 models",
        3,
        "60%",
    )
    assert v.outcomes_line == "2 tests: 1 passed, 1 failed"
    assert v.best_model is None and v.no_clear_best.startswith("no clear best: a and b are within noise")  # 2 cases
    assert (
        v.hardest_case.case_id == "q1"
        and v.hardest_case.failed_by == "2/3 models"
        and v.hardest_case.failed_models == "b, c"
    )
    [board] = v.leaderboard
    assert board.direction == "higher is better" and [(r.rank, r.model, r.mean, r.pass_rate) for r in board.rows] == [
        ("1", "a", "1.000", "100%"),
        ("2", "b", "0.500", "50%"),
        ("3", "c", "0.000", "0%"),
    ]
    assert board.rows[2].spread == ""  # one result: no spread
    assert [c.arrow for c in v.heatmap.columns] == ["↑"] and [model for model, _ in v.heatmap.rows] == ["a", "b", "c"]
    assert [r.test for r in v.failures.rows] == ["t::b-q1", "t::c-q1"] and v.perturbation is None and v.baseline is None


def test_tests_without_a_model_show_a_dash_and_their_hardest_case_reads_failed():
    [good] = Rouge().evaluate([Case(actual="a b c", expected="a b c")])
    [bad] = Rouge().evaluate([Case(actual="x y z", expected="a b c")])
    recs = [
        {**bad.to_dict(), "model": None, "nodeid": "t::u", "case_id": "u"},
        {**good.to_dict(), "model": "alpha", "nodeid": "t::a"},
    ]
    v = view(report_of(recs))
    assert v.headline.models == " on 1 model"
    assert v.hardest_case.case_id == "u" and v.hardest_case.failed_by is None
    assert [model for model, _ in v.heatmap.rows] == ["alpha", "-"]  # named models first, tests without one last
    assert {r.model for board in v.leaderboard for r in board.rows} == {"alpha", "-"}
    assert [i.model for i in v.insights] == ["-"]
    assert [r.model for r in v.failures.rows] == [""]  # a result row names no model
    assert "Most difficult case: `u` (failed)." in markdown.render(report_of(recs))
    assert "Most difficult case: <code>u</code> (failed)</p>" in html.render(report_of(recs))


def test_long_lists_are_capped_and_the_rest_counted():
    recs = records(*[("m", f"q{i}", "no") for i in range(60)])
    v = view(report_of(recs), Limits(failures=50, results=7))
    assert len(v.failures.rows) == 50 and v.failures.total == 60 and v.failures.more == 10
    assert len(v.results.rows) == 7 and v.results.more == 53
    assert "10 more failed checks are in the JSON report." in markdown.render(report_of(recs))
    assert MARKDOWN_LIMITS.failures == markdown.MAX_FAILURES and HTML_LIMITS.results == html.MAX_RESULTS


def test_flips_and_baseline_changes_are_capped():
    flip = {
        "case_id": "q",
        "model": None,
        "check": "c",
        "metric": "m",
        "perturbation": "typos",
        "kind": "broke",
        "original_score": 1.0,
        "perturbed_score": None,
        "nodeid": None,
    }
    change = {
        "kind": "regression",
        "scope": "result",
        "evaluator": "c",
        "metric": "m",
        "model": "a",
        "before": 1.0,
        "after": 0.0,
    }
    report = report_of(
        [],
        baseline={
            "baseline": "base.json",
            "compared": 3,
            "new": 0,
            "missing": 1,
            "regressions": 60,
            "improvements": 0,
            "changes": [change] * 60,
            "not_comparable": [{}],
        },
    )
    report["summary"].update(perturbed_checks=9, flips=[flip] * 60)
    v = view(report, Limits(flips=5, changes=4))
    assert v.perturbation.sentence == "60 flips in 9 checks on perturbed inputs."
    assert len(v.perturbation.flips.rows) == 5 and v.perturbation.flips.more == 55
    row = v.perturbation.flips.rows[0]
    assert (row.model, row.before, row.after, row.broke, row.test) == ("-", "1.000", "n/a", True, "")
    assert len(v.baseline.changes.rows) == 4 and v.baseline.changes.total == 60 and v.baseline.not_comparable == 1
    assert v.baseline.changes.rows[0].measure == "pass/fail" and v.baseline.changes.rows[0].regression


def test_an_empty_report_and_one_without_summary_or_run():
    v = view(report_of([]))
    assert (v.headline.checks, v.headline.models, v.headline.pass_rate) == (0, "", "0%")
    assert v.leaderboard == () and v.heatmap.columns == () and v.outcomes_line is None and v.best_model is None
    assert v.hardest_case is None and v.failures.total == 0 and v.results.total == 0 and v.footer.finished == "now"
    bare = {"format": "pytest-llmeval-report", "version": 1, "results": records(("a", "q", "no")), "summary": None}
    assert validate(bare) is None
    v = view(bare)  # the schema allows a report without summary and run: the summary is computed from its results
    assert (v.headline.checks, v.headline.passed, v.footer) == (1, 0, None)
    assert "1 check on 1 model: **0 passed** (0%)." in markdown.render(bare)
    assert '<h2 id="results">All results</h2>' in html.render(bare) and "pytest-llm-verdict" not in html.render(bare)


def test_text_from_the_run_is_kept_raw_for_each_renderer_to_escape():
    recs = [{**r, "reason": "a | <b>\ud800"} for r in records(("m|<x>", "q", "no"))]
    v = view({"summary": summarize(recs).to_dict(), "results": recs, "run": RUN})
    assert v.failures.rows[0].reason == "a | <b>\ud800"
    assert v.heatmap.rows[0][0] == "m|<x>"
    assert "m|&lt;x&gt;" in html.render({"summary": summarize(recs).to_dict(), "results": recs, "run": RUN})


def test_a_failed_row_shows_the_metric_that_decided_and_an_old_record_its_primary():
    """A groundedness failure on evidence: its support (the primary) passed, so the row shows the evidence metric that
    decided; a record of version 1 (no decision) still reads, with its primary."""
    from pytest_llmeval.core.result import Signature

    record = {
        "record": 2,
        "evaluator": "groundedness",
        "metrics": {"support": 0.753, "evidence": 1.0},
        "primary": "support",
        "passed": False,
        "verdict": "fail",
        "decided_by": "rules",
        "thresholds": {"support": 0.7, "evidence": 0.0},
        "higher_is_better": {"support": True, "evidence": False},
        "nodeid": "t::tour",
        "signature": Signature("groundedness", "7").to_dict(),
        "reason": "'12 euros' is not what the context says",
        "decision": {
            "outcome": "fail",
            "decided_by": "rules",
            "evidence": ["'12 euros' is not what the context says"],
            "metrics": [{"metric": "evidence", "value": 1.0, "threshold": 0.0, "higher_is_better": False}],
            "overruled": None,
        },
    }
    old = {k: v for k, v in record.items() if k != "decision"} | {"record": 1, "nodeid": "t::old"}
    v = view(report_of([record, old]))
    new_row, old_row = v.failures.rows
    assert (new_row.score, new_row.threshold) == ("1.000 (evidence)", "0.000")
    assert (old_row.score, old_row.threshold) == ("0.753", "0.700")
    assert "| groundedness | 1.000 (evidence) | 0.000 |" in markdown.render(report_of([record, old]))
