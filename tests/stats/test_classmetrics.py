"""Classification metrics equal scikit-learn's on the same inputs, edge cases included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.stats import classmetrics as cm

sklearn_metrics = pytest.importorskip("sklearn.metrics")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # scikit-learn on single-class inputs

LABELS = st.sampled_from(["cat", "dog", "fox"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=40))
def test_report_equals_sklearn(pairs):
    expected, predicted = [p[0] for p in pairs], [p[1] for p in pairs]
    report = cm.classification_report(expected, predicted)
    labels = list(report.labels)
    assert report.accuracy == pytest.approx(sklearn_metrics.accuracy_score(expected, predicted))
    p, r, f, s = sklearn_metrics.precision_recall_fscore_support(expected, predicted, labels=labels, zero_division=0)
    for i, scores in enumerate(report.per_label):
        assert (scores.precision, scores.recall, scores.f1, scores.support) == pytest.approx((p[i], r[i], f[i], s[i]))
    for average in ("macro", "weighted", "micro"):
        ours = getattr(report, average)
        theirs = sklearn_metrics.precision_recall_fscore_support(
            expected, predicted, labels=labels, average=average, zero_division=0
        )[:3]
        assert ours == pytest.approx(theirs), average
    assert [list(row) for row in report.confusion] == sklearn_metrics.confusion_matrix(
        expected, predicted, labels=labels
    ).tolist()


SCORES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])  # repeated values: ties


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), SCORES), min_size=2, max_size=40))
def test_binary_curves_equal_sklearn(pairs):
    truth, scores = [p[0] for p in pairs], [p[1] for p in pairs]
    if len(set(truth)) < 2:
        assert cm.roc_auc(truth, scores) is None  # scikit-learn refuses one class; we say undefined
        return
    assert cm.roc_auc(truth, scores) == pytest.approx(sklearn_metrics.roc_auc_score(truth, scores))
    assert cm.average_precision(truth, scores) == pytest.approx(sklearn_metrics.average_precision_score(truth, scores))
    precision, recall, thresholds = cm.precision_recall_curve(truth, scores)
    theirs = sklearn_metrics.precision_recall_curve(truth, scores)
    assert precision == pytest.approx(list(theirs[0])) and recall == pytest.approx(list(theirs[1]))
    assert thresholds == pytest.approx(list(theirs[2]))
    fpr, tpr, _ = cm.roc_curve(truth, scores)
    sk_fpr, sk_tpr, _ = sklearn_metrics.roc_curve(truth, scores, drop_intermediate=False)
    assert fpr == pytest.approx(list(sk_fpr)) and tpr == pytest.approx(list(sk_tpr))


def test_one_vs_rest_auc_equals_sklearn():
    expected = ["cat", "dog", "fox", "cat", "dog", "fox", "cat"]
    rows = [
        [0.7, 0.2, 0.1],
        [0.3, 0.4, 0.3],
        [0.2, 0.2, 0.6],
        [0.4, 0.4, 0.2],
        [0.5, 0.3, 0.2],
        [0.1, 0.1, 0.8],
        [0.6, 0.3, 0.1],
    ]
    scores = [dict(zip(["cat", "dog", "fox"], row)) for row in rows]
    ours = cm.roc_auc_ovr(expected, scores, ["cat", "dog", "fox"])
    assert ours == pytest.approx(
        sklearn_metrics.roc_auc_score(expected, rows, multi_class="ovr", labels=["cat", "dog", "fox"])
    )


def test_edge_cases():
    # a label never predicted: its precision is 0, not an error
    report = cm.classification_report(["a", "b"], ["a", "a"])
    assert report.per_label[1].precision == 0.0 and report.per_label[1].recall == 0.0
    # a single class everywhere: accuracy 1, AUC undefined
    assert cm.classification_report(["a"], ["a"]).accuracy == 1.0
    assert cm.roc_auc([True, True], [0.2, 0.9]) is None and cm.average_precision([False], [0.3]) is None
    with pytest.raises(ValueError, match="'expected' has 2 labels and 'predicted' 1"):
        cm.classification_report(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="no labels"):
        cm.classification_report([], [])


def test_detailed_curve_counts_and_examples():
    expected = ["cat", "dog", "cat"]
    scores = [{"cat": 0.9, "dog": 0.1}, {"cat": 0.6, "dog": 0.3}, {"cat": 0.02, "dog": 0.01}]
    curve = cm.detailed_pr_curve(expected, scores, ["d1", "d2", "d3"], max_examples=2)
    at = curve["cat"]["0.50"]
    assert (at["tp"], at["fp"], at["fn"], at["tn"]) == (1, 1, 1, 0)
    assert at["examples"] == {
        "tp": ["d1"],
        "fp_misclassification": ["d2"],
        "fn_misclassification": [],
        "fn_no_prediction": ["d3"],
    }
    dog = curve["dog"]["0.50"]
    assert dog["fn"] == 1 and dog["examples"]["fn_misclassification"] == ["d2"]  # cat reached the threshold instead
    assert list(curve["cat"]) == [f"{i * 0.05:.2f}" for i in range(1, 20)]
