"""Seed 000's problem: a model whose mean of a check's primary metric misses the threshold, in every report."""

from __future__ import annotations

import json

from pytest_llmeval.report.aggregate import summarize

SUITE = """
import pytest
from pytest_llmeval import assert_check

ANSWERS = {"good-model": ["Paris is the capital of France."] * 3,
           "weak-model": ["Paris is the capital of France.", "Lyon, I think.", "No idea."]}

@pytest.mark.parametrize("model", sorted(ANSWERS))
@pytest.mark.parametrize("i", range(3))
def test_answer(model, i):
    assert_check("edit_distance", actual=ANSWERS[model][i], expected="Paris is the capital of France.", model=model,
                 threshold=0.8)
"""


def record(model, value, threshold=0.8, higher=True):
    return {
        "evaluator": "edit_distance",
        "metrics": {"similarity": value},
        "primary": "similarity",
        "passed": value >= threshold,
        "thresholds": {"similarity": threshold},
        "higher_is_better": {"similarity": higher},
        "model": model,
        "signature": {"evaluator": "edit_distance", "version": "1", "backend": "python", "model": None, "params": {}},
    }


def test_a_model_whose_mean_misses_the_threshold_is_a_problem():
    summary = summarize([record("a", 0.9), record("a", 0.85), record("b", 0.9), record("b", 0.5)])
    [problem] = summary.problems
    assert (problem.model, problem.mean, problem.threshold) == ("b", 0.7, 0.8)
    [entry] = summary.to_dict()["problems"]
    assert entry == {
        "check": "edit_distance",
        "metric": "similarity",
        "model": "b",
        "mean": 0.7,
        "threshold": 0.8,
        "higher_is_better": True,
        "count": 2,
    }


def test_lower_is_better_and_mixed_thresholds():
    lower = summarize([record("a", 0.3, threshold=0.25, higher=False), record("a", 0.1, threshold=0.25, higher=False)])
    assert not lower.problems  # mean 0.2 is under the 0.25 ceiling
    worse = summarize([record("a", 0.4, threshold=0.25, higher=False)])
    assert worse.problems[0].below_threshold
    mixed = summarize([record("a", 0.1, threshold=0.8), record("a", 0.1, threshold=0.5)])
    assert mixed.rows[0].threshold is None and not mixed.problems  # unlike thresholds: no one verdict on the mean


def test_problems_in_terminal_json_markdown_and_html(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(["below threshold: weak-model edit_distance mean 0.462 < threshold 0.8"])
    assert "below threshold: good-model" not in result.stdout.str() and "problem:" not in result.stdout.str()
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    [problem] = report["summary"]["problems"]
    assert problem["model"] == "weak-model" and problem["threshold"] == 0.8 and problem["mean"] < 0.8
    markdown = (pytester.path / "out" / "report.md").read_text()
    assert (
        "Problems (a model's mean misses the check's threshold):" in markdown
        and "- edit\\_distance similarity: model weak-model" in markdown
    )
    html = (pytester.path / "out" / "report.html").read_text()
    assert "<li>edit_distance similarity: model weak-model mean" in html
