"""Classification checks as users meet them: a set at once, and labels recorded per test gathered per model."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import LLMEvalAssertionError, assert_classification

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def test_assert_classification_scores_the_set_and_names_a_miss():
    expected = ["spam", "ham", "spam", "ham", "spam"]
    predicted = ["spam", "ham", "ham", "ham", "spam"]
    scores = [
        {"spam": 0.9, "ham": 0.1},
        {"spam": 0.2, "ham": 0.8},
        {"spam": 0.4, "ham": 0.6},
        {"spam": 0.3, "ham": 0.7},
        {"spam": 0.8, "ham": 0.2},
    ]
    result = assert_classification(expected, predicted, scores=scores)
    assert result.metrics["accuracy"] == pytest.approx(sklearn_metrics.accuracy_score(expected, predicted))
    assert result.metrics["f1"] == pytest.approx(sklearn_metrics.f1_score(expected, predicted, average="macro"))
    assert result.metrics["roc_auc"] == pytest.approx(
        sklearn_metrics.roc_auc_score([e == "spam" for e in expected], [s["spam"] for s in scores])
    )
    assert set(result.details["curves"]) == {"ham", "spam"}
    with pytest.raises(LLMEvalAssertionError, match="accuracy 0.500 .* first miss: expected 'b', predicted 'a'"):
        assert_classification(["a", "b"], ["a", "a"])
    weighted = assert_classification(expected, predicted, average="weighted", thresholds={"f1": 0.5})
    assert weighted.metrics["f1"] == pytest.approx(sklearn_metrics.f1_score(expected, predicted, average="weighted"))
    with pytest.raises(ValueError, match="'expected' has 2 labels and 'predicted' 1"):
        assert_classification(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="argument 'scores' must be one"):
        assert_classification(["a"], ["a"], scores={"a": 1.0})
    with pytest.raises(TypeError, match="argument 'expected' must be a list of labels"):
        assert_classification("ab", ["a", "b"])


SUITE = """
import pytest
from pytest_llmeval import record_label

ROWS = [("m1", "spam", "spam", 0.9), ("m1", "ham", "ham", 0.2), ("m1", "spam", "ham", 0.4), ("m1", "ham", "ham", 0.1),
        ("m2", "spam", "spam", 0.7), ("m2", "ham", "spam", 0.6), ("m2", "spam", "spam", 0.8), ("m2", "ham", "ham", 0.3)]


@pytest.mark.parametrize("model, truth, guess, p", ROWS)
def test_label(model, truth, guess, p, llmeval):
    llmeval.model = model
    record_label(truth, guess, scores={"spam": p, "ham": 1 - p}, threshold=0)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_recorded_labels_form_a_classification_leaderboard_in_every_report(pytester, workers):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", *workers)
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(
        [
            "classification (recorded labels):",
            "model*accuracy*macro F1*ROC AUC*n*labels",
            "m1*0.750*0.733*1.000*4*ham, spam",
            "m2*0.750*0.733*1.000*4*ham, spam",
        ]
    )
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    rows = {row["model"]: row for row in report["summary"]["classification"]}
    truth = ["spam", "ham", "spam", "ham"]
    assert rows["m1"]["accuracy"] == pytest.approx(sklearn_metrics.accuracy_score(truth, ["spam", "ham", "ham", "ham"]))
    assert rows["m2"]["macro_f1"] == pytest.approx(
        sklearn_metrics.f1_score(truth, ["spam", "spam", "spam", "ham"], average="macro")
    )
    assert rows["m1"]["roc_auc"] == pytest.approx(
        sklearn_metrics.roc_auc_score([t == "spam" for t in truth], [0.9, 0.2, 0.4, 0.1])
    )
    assert rows["m1"]["report"]["confusion"] == [[2, 0], [1, 1]]
    markdown = (pytester.path / "out" / "report.md").read_text()
    assert (
        "## Classification (recorded labels)" in markdown
        and "| m1 | 0.750 | 0.733 | 1.000 | 4 | ham, spam |" in markdown
    )
    html = (pytester.path / "out" / "report.html").read_text()
    assert (
        html.count('aria-label="ROC curves"') + html.count('aria-label="precision-recall curves"') == 4
        and "<polyline" in html
        and "spam: AUC 1.000" in html
    )


def test_review_findings_on_classification_inputs():
    import math

    with pytest.raises(ValueError, match="'scores' must be finite numbers"):
        assert_classification(["a", "b"], ["a", "b"], scores=[{"a": math.nan, "b": 0.1}, {"a": 0.2, "b": 0.8}])
    with pytest.raises(ValueError, match="'ids' has 1 ids for 4 predictions"):
        assert_classification(["a", "b", "b", "b"], ["a", "a", "a", "a"], ids=["x"])
    # a prediction outside the true labels is just wrong: ROC AUC stays defined, as scikit-learn computes it
    expected, predicted = ["a", "b", "a", "b"], ["a", "b", "a", "maybe"]
    scores = [{"a": 0.9, "b": 0.1}, {"a": 0.2, "b": 0.8}, {"a": 0.7, "b": 0.3}, {"a": 0.4, "b": 0.6}]
    result = assert_classification(expected, predicted, scores=scores, threshold=0.5)
    assert result.metrics["roc_auc"] == pytest.approx(
        sklearn_metrics.roc_auc_score([e == "b" for e in expected], [s["b"] for s in scores])
    )
