"""Classification metrics over label predictions, standard library only (seed 000's Classification evaluator, seed 001).

Definitions follow scikit-learn's, and a test holds every value equal to it:

- accuracy: correct predictions / all predictions;
- per label: precision TP / (TP + FP), recall TP / (TP + FN), F1 their harmonic mean,
  support (how often the label is expected); a label never predicted has precision 0,
  a label never expected recall 0 (scikit-learn's ``zero_division=0``);
- ``macro``: the unweighted mean over labels; ``weighted``: weighted by support;
  ``micro``: from the summed counts (equal to accuracy for single-label predictions);
- ROC AUC: binary from the scores of the positive label (trapezoids over distinct
  score thresholds, so ties count half), multi-class one-vs-rest macro average; undefined
  (``None``) when the expected labels hold one class only;
- the precision-recall curve at every distinct score and average precision (the
  step-wise area, as scikit-learn computes it);
- seed 001's detailed curve: at thresholds 0.05 .. 0.95 each label's TP, FP, FN, TN,
  precision, recall and F1, with example ids of its misclassifications and of missed
  predictions (no label reached the threshold).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LabelScores",
    "Report",
    "classification_report",
    "confusion_matrix",
    "roc_curve",
    "roc_auc",
    "roc_auc_ovr",
    "label_roc_auc",
    "precision_recall_curve",
    "average_precision",
    "detailed_pr_curve",
    "curves",
]


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else 0.0


def _f1(precision: float, recall: float) -> float:
    return _ratio(2 * precision * recall, precision + recall)


@dataclass(frozen=True)
class LabelScores:
    label: str
    precision: float
    recall: float
    f1: float
    support: int
    tp: int
    fp: int
    fn: int


@dataclass(frozen=True)
class Report:
    labels: tuple[str, ...]
    accuracy: float
    per_label: tuple[LabelScores, ...]
    macro: tuple[float, float, float]  # precision, recall, F1
    weighted: tuple[float, float, float]
    micro: tuple[float, float, float]
    confusion: tuple[tuple[int, ...], ...]  # rows: expected label, columns: predicted label

    def as_dict(self) -> dict[str, Any]:
        return {
            "labels": list(self.labels),
            "accuracy": self.accuracy,
            "per_label": {
                s.label: {
                    "precision": s.precision,
                    "recall": s.recall,
                    "f1": s.f1,
                    "support": s.support,
                    "tp": s.tp,
                    "fp": s.fp,
                    "fn": s.fn,
                }
                for s in self.per_label
            },
            "macro": dict(zip(("precision", "recall", "f1"), self.macro)),
            "weighted": dict(zip(("precision", "recall", "f1"), self.weighted)),
            "micro": dict(zip(("precision", "recall", "f1"), self.micro)),
            "confusion": [list(row) for row in self.confusion],
        }


def _check(expected: Sequence[str], predicted: Sequence[str]) -> None:
    if len(expected) != len(predicted):
        raise ValueError(
            f"classification: 'expected' has {len(expected)} labels and 'predicted' {len(predicted)}; "
            "give one predicted label per expected label"
        )
    if not expected:
        raise ValueError("classification: no labels: give at least one expected and one predicted label")


def confusion_matrix(
    expected: Sequence[str], predicted: Sequence[str], labels: Sequence[str] | None = None
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The labels (sorted, or as given) and the counts: row = expected label, column = predicted label.

    >>> confusion_matrix(["a", "b", "b"], ["a", "a", "b"])
    (('a', 'b'), ((1, 0), (1, 1)))
    """
    _check(expected, predicted)
    order = tuple(labels) if labels is not None else tuple(sorted(set(expected) | set(predicted)))
    index = {label: i for i, label in enumerate(order)}
    counts = [[0] * len(order) for _ in order]
    for truth, guess in zip(expected, predicted):
        if truth in index and guess in index:
            counts[index[truth]][index[guess]] += 1
    return order, tuple(tuple(row) for row in counts)


def classification_report(
    expected: Sequence[str], predicted: Sequence[str], labels: Sequence[str] | None = None
) -> Report:
    """Accuracy, per-label and averaged precision / recall / F1, and the confusion matrix."""
    order, matrix = confusion_matrix(expected, predicted, labels)
    per_label = []
    for i, label in enumerate(order):
        tp = matrix[i][i]
        fp = sum(matrix[r][i] for r in range(len(order))) - tp
        fn = sum(matrix[i]) - tp
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        per_label.append(LabelScores(label, precision, recall, _f1(precision, recall), tp + fn, tp, fp, fn))
    count = len(order)
    macro = tuple(sum(getattr(s, k) for s in per_label) / count for k in ("precision", "recall", "f1"))
    total = sum(s.support for s in per_label)
    weighted = tuple(
        _ratio(sum(getattr(s, k) * s.support for s in per_label), total) for k in ("precision", "recall", "f1")
    )
    tp, fp, fn = (sum(getattr(s, k) for s in per_label) for k in ("tp", "fp", "fn"))
    micro_p, micro_r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    accuracy = sum(truth == guess for truth, guess in zip(expected, predicted)) / len(expected)
    return Report(
        order,
        accuracy,
        tuple(per_label),
        (macro[0], macro[1], macro[2]),
        (weighted[0], weighted[1], weighted[2]),
        (micro_p, micro_r, _f1(micro_p, micro_r)),
        matrix,
    )


def _binary_counts(truth: Sequence[bool], scores: Sequence[float]) -> list[tuple[float, int, int]]:
    """(threshold, TP, FP) at each distinct score, highest first: predictions with score >= threshold are positive."""
    if len(truth) != len(scores):
        raise ValueError(f"classification: {len(truth)} labels but {len(scores)} scores")
    pairs = sorted(zip(scores, truth), key=lambda p: -p[0])
    points: list[tuple[float, int, int]] = []
    tp = fp = 0
    for i, (score, positive) in enumerate(pairs):
        tp += bool(positive)
        fp += not positive
        if i + 1 == len(pairs) or pairs[i + 1][0] != score:
            points.append((score, tp, fp))
    return points


def roc_curve(truth: Sequence[bool], scores: Sequence[float]) -> tuple[list[float], list[float], list[float]]:
    """False and true positive rates at every distinct score (from (0, 0)), and the thresholds."""
    points = _binary_counts(truth, scores)
    positives, negatives = sum(map(bool, truth)), len(truth) - sum(map(bool, truth))
    fpr = [0.0] + [_ratio(fp, negatives) for _, _, fp in points]
    tpr = [0.0] + [_ratio(tp, positives) for _, tp, _ in points]
    return fpr, tpr, [float("inf")] + [threshold for threshold, _, _ in points]


def roc_auc(truth: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve (trapezoids); ``None`` when only one class is expected.

    >>> roc_auc([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    0.75
    """
    positives = sum(map(bool, truth))
    if positives in (0, len(truth)):
        return None
    fpr, tpr, _ = roc_curve(truth, scores)
    return sum((fpr[i] - fpr[i - 1]) * (tpr[i] + tpr[i - 1]) / 2 for i in range(1, len(fpr)))


def roc_auc_ovr(expected: Sequence[str], scores: Sequence[Mapping[str, float]], labels: Sequence[str]) -> float | None:
    """One-vs-rest ROC AUC, macro-averaged over ``labels`` (scikit-learn's ``multi_class="ovr"``)."""
    values = [
        roc_auc([truth == label for truth in expected], [float(s.get(label, 0.0)) for s in scores]) for label in labels
    ]
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def label_roc_auc(
    expected: Sequence[str], scores: Sequence[Mapping[str, float]], labels: Sequence[str]
) -> float | None:
    """ROC AUC over ``labels``: binary from the second label's scores for two, one-vs-rest macro for more."""
    if len(labels) == 2:
        return roc_auc([e == labels[1] for e in expected], [s.get(labels[1], 0.0) for s in scores])
    return roc_auc_ovr(expected, scores, labels)


def precision_recall_curve(
    truth: Sequence[bool], scores: Sequence[float]
) -> tuple[list[float], list[float], list[float]]:
    """Precision and recall at every distinct score, lowest threshold first, ending at (1, 0) as scikit-learn does."""
    points = _binary_counts(truth, scores)
    positives = sum(map(bool, truth))
    kept = points[::-1]
    precision = [_ratio(tp, tp + fp) if tp + fp else 1.0 for _, tp, fp in kept] + [1.0]
    recall = [_ratio(tp, positives) for _, tp, _ in kept] + [0.0]
    return precision, recall, [threshold for threshold, _, _ in kept]


def average_precision(truth: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Sum over thresholds of (recall step) x precision; ``None`` without a positive example."""
    if not any(truth):
        return None
    precision, recall, _ = precision_recall_curve(truth, scores)
    return -sum((recall[i + 1] - recall[i]) * precision[i] for i in range(len(recall) - 1))


def detailed_pr_curve(
    expected: Sequence[str], scores: Sequence[Mapping[str, float]], ids: Sequence[str], *, max_examples: int = 1
) -> dict[str, dict[str, dict[str, Any]]]:
    """Seed 001's detailed curve: ``{label: {threshold: counts, rates and examples}}`` at 0.05 .. 0.95.

    A false positive of a label is a misclassification (another label was expected); a false
    negative is a misclassification when another label reached the threshold, else no prediction.
    """
    labels = sorted(set(expected) | {label for s in scores for label in s})
    curve: dict[str, dict[str, dict[str, Any]]] = {}
    for label in labels:
        curve[label] = {}
        for step in range(1, 20):
            threshold = round(step * 0.05, 2)
            tp: list[str] = []
            fp_ids: list[str] = []
            fn_wrong: list[str] = []
            fn_none: list[str] = []
            tn = 0
            for truth, score, datum in zip(expected, scores, ids):
                hit = float(score.get(label, 0.0)) >= threshold
                if truth == label and hit:
                    tp.append(datum)
                elif truth != label and hit:
                    fp_ids.append(datum)
                elif truth == label:
                    other = any(float(v) >= threshold for k, v in score.items() if k != label)
                    (fn_wrong if other else fn_none).append(datum)
                else:
                    tn += 1
            fn = len(fn_wrong) + len(fn_none)
            precision, recall = _ratio(len(tp), len(tp) + len(fp_ids)), _ratio(len(tp), len(tp) + fn)
            curve[label][f"{threshold:.2f}"] = {
                "tp": len(tp),
                "fp": len(fp_ids),
                "fn": fn,
                "tn": tn,
                "precision": precision,
                "recall": recall,
                "f1": _f1(precision, recall),
                "examples": {
                    "tp": tp[:max_examples],
                    "fp_misclassification": fp_ids[:max_examples],
                    "fn_misclassification": fn_wrong[:max_examples],
                    "fn_no_prediction": fn_none[:max_examples],
                },
            }
    return curve


def curves(expected: Sequence[str], scores: Sequence[Mapping[str, float]], labels: Sequence[str]) -> dict[str, Any]:
    """ROC and precision-recall points per label (one-vs-rest), for the reports' charts."""
    out: dict[str, Any] = {}
    for label in labels:
        truth = [e == label for e in expected]
        if len(set(truth)) < 2:
            continue
        values = [s.get(label, 0.0) for s in scores]
        fpr, tpr, _ = roc_curve(truth, values)
        precision, recall, _ = precision_recall_curve(truth, values)
        out[label] = {
            "roc": [[round(x, 6), round(y, 6)] for x, y in zip(fpr, tpr)],
            "pr": [[round(r, 6), round(p, 6)] for r, p in zip(recall, precision)],
            "roc_auc": roc_auc(truth, values),
            "average_precision": average_precision(truth, values),
        }
    return out
