"""Classification checks (seed 000's Classification evaluator, seed 001's classification metrics).

- ``classification``: a group check. The batch is a set of predictions: each case's
  ``expected`` is the true label, ``actual`` the predicted one, and optionally
  ``metadata["scores"]`` the model's score per label (for ROC AUC and the curves).
  Every case gets the set's accuracy, precision, recall and F1 (averaged as asked),
  and ROC AUC when scores are given; the helper records one result for the set.
- ``label_prediction``: one prediction recorded by one test (``record_label``); the
  controller gathers them per model into the classification leaderboard of every report.

Values are :mod:`pytest_llmeval.classmetrics`'s, equal to scikit-learn's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .. import classmetrics as cm
from ..case import Case
from .base import Evaluator, MetricSpec, Score, require_choice, require_type

__all__ = ["Classification", "LabelPrediction", "label_cases", "label_set", "label_scores"]

AVERAGES = ("macro", "weighted", "micro")
MAX_LABEL = 200  # characters of a label kept in records and reports (labels are compared whole)


def shown(label: str) -> str:
    """A label as records and reports keep it: whole up to 200 characters, else its start and its length."""
    return label if len(label) <= MAX_LABEL else f"{label[:MAX_LABEL]}…({len(label)} chars)"


def _shown_report(report: dict[str, Any]) -> dict[str, Any]:
    return {**report, "labels": [shown(x) for x in report["labels"]],
            "per_label": {shown(k): v for k, v in report["per_label"].items()}}


def label_scores(case: Case, owner: str) -> dict[str, float] | None:
    """The case's ``metadata["scores"]``: {label: score}, checked; ``None`` when not given."""
    scores = case.metadata.get("scores") if case.metadata else None
    if scores is None:
        return None
    if not isinstance(scores, Mapping) or not all(isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                                                 for k, v in scores.items()):
        raise TypeError(f"{owner}: 'scores' must map each label (str) to the model's score (a number); got {scores!r:.80}")
    if not all(math.isfinite(v) for v in scores.values()):
        raise ValueError(f"{owner}: 'scores' must be finite numbers; got {scores!r:.80}")
    return {k: float(v) for k, v in scores.items()}


def _labels(owner: str, name: str, values: Any) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence) or not all(isinstance(v, str) for v in values):
        raise TypeError(f"{owner}: argument '{name}' must be a list of labels (str); got {values!r:.80}")
    return list(values)


def label_cases(
    owner: str, expected: Any, predicted: Any, *, scores: Any = None, ids: Any = None,
    names: tuple[str, str] = ("expected", "predicted"), **fields: Any,
) -> list[Case]:
    """The set :class:`Classification` scores: one case per prediction (``expected`` the true label, ``actual``
    the predicted one, ``metadata`` its id and scores), checked; ``names`` are the caller's names of the two lists."""
    truth = _labels(owner, names[0], expected)
    guesses = _labels(owner, names[1], predicted)
    if len(truth) != len(guesses) or not truth:
        raise ValueError(f"{owner}: '{names[0]}' has {len(truth)} labels and '{names[1]}' {len(guesses)}; "
                         "give one predicted label per true label, at least one")
    if scores is not None and (isinstance(scores, (str, Mapping)) or len(scores) != len(truth)):
        raise TypeError(f"{owner}: argument 'scores' must be one {{label: score}} mapping per prediction "
                        f"({len(truth)}); got {scores!r:.80}")
    row_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(truth))]
    if len(row_ids) != len(truth):
        raise ValueError(f"{owner}: 'ids' has {len(row_ids)} ids for {len(truth)} predictions; give one id per prediction")
    return [Case(actual=guess, expected=(label,), metadata={"id": row_id} if scores is None else {"id": row_id, "scores": scores[i]},
                 **fields)
            for i, (label, guess, row_id) in enumerate(zip(truth, guesses, row_ids))]


def label_set(owner: str, fields: Mapping[str, Any], case_id: str | None) -> list[Case]:
    """``evaluate(owner, actual=[...], expected=[...], metadata={"scores": [...], "ids": [...]})``'s cases:
    the lists :func:`~pytest_llmeval.assert_classification` takes, ``scores`` and ``ids`` in ``metadata``."""
    rest = dict(fields)
    metadata = rest.pop("metadata", None) or {}
    if not isinstance(metadata, Mapping) or not set(metadata) <= {"scores", "ids"}:
        raise TypeError(f"{owner}: argument 'metadata' may hold only 'scores' and 'ids' (one per prediction) "
                        f"when 'actual' and 'expected' are label lists; got {metadata!r:.80}")
    return label_cases(owner, rest.pop("expected", None), rest.pop("actual"), scores=metadata.get("scores"),
                       ids=metadata.get("ids"), names=("expected", "actual"), case_id=case_id, **rest)


class Classification(Evaluator):
    """Accuracy, precision, recall, F1 and ROC AUC of a set of label predictions.

    Parameters:
        average: how precision, recall and F1 are averaged over labels: ``macro``, ``weighted`` or ``micro``.
        labels: the label set and its order (default: every label seen, sorted).
        detailed_curve: also compute seed 001's detailed precision-recall curve (needs scores).
        max_examples: example ids kept per kind of error in the detailed curve.
    """

    name = "classification"
    helper = "assert_classification"
    description = "Label predictions against the true labels: accuracy, precision, recall, F1, ROC AUC"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"average": "macro", "labels": None, "detailed_curve": False, "max_examples": 1}
    metrics = (
        MetricSpec("accuracy", "correct predictions / all predictions", threshold=0.75, primary=True),
        MetricSpec("precision", "precision, averaged over labels as 'average' says", threshold=None),
        MetricSpec("recall", "recall, averaged over labels as 'average' says", threshold=None),
        MetricSpec("f1", "F1, averaged over labels as 'average' says", threshold=None),
        MetricSpec("roc_auc", "area under the ROC curve (one-vs-rest macro average for several labels); needs scores",
                   threshold=None),
    )

    def configure(self) -> None:
        require_choice(self.name, "average", self.params["average"], AVERAGES)
        labels = self.params["labels"]
        if labels is not None:
            if isinstance(labels, str) or not isinstance(labels, Sequence) or not all(isinstance(x, str) for x in labels):
                raise TypeError(f"{self.name}: parameter 'labels' must be a list of str; got {labels!r:.80}")
            self.params["labels"] = list(labels)
        require_type(self.name, "detailed_curve", self.params["detailed_curve"], bool, "True or False")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        expected = [c.expected[0] if c.expected else "" for c in cases]
        predicted = [c.actual or "" for c in cases]
        report = cm.classification_report(expected, predicted, self.params["labels"])
        precision, recall, f1 = getattr(report, self.params["average"])
        scores = [label_scores(c, self.name) for c in cases]
        details: dict[str, Any] = {"report": _shown_report(report.as_dict()), "count": len(cases)}
        auc = None
        if all(s is not None for s in scores):
            given = [s for s in scores if s is not None]
            # ROC AUC is over the true labels (a prediction outside them is just wrong, as scikit-learn counts it)
            labels = list(self.params["labels"] or sorted(set(expected)))
            auc = cm.label_roc_auc(expected, given, labels)
            details["curves"] = {shown(k): v for k, v in curves(expected, given, labels).items()}
            if self.params["detailed_curve"]:
                ids = [str(c.metadata.get("id", i)) for i, c in enumerate(cases)]
                details["detailed_pr_curve"] = cm.detailed_pr_curve(expected, given, ids, max_examples=self.params["max_examples"])
        wrong = [(e, p) for e, p in zip(expected, predicted) if e != p]
        reason = (f"accuracy {report.accuracy:.3f} over {len(cases)} predictions; {self.params['average']} F1 {f1:.3f}"
                  + (f"; ROC AUC {auc:.3f}" if auc is not None else "")
                  + (f"; first miss: expected {shown(wrong[0][0])!r}, predicted {shown(wrong[0][1])!r}" if wrong else ""))
        score = Score({"accuracy": report.accuracy, "precision": precision, "recall": recall, "f1": f1, "roc_auc": auc},
                      reason, details)
        return [score] * len(cases)


def curves(expected: Sequence[str], scores: Sequence[Mapping[str, float]], labels: Sequence[str]) -> dict[str, Any]:
    """ROC and precision-recall points per label (one-vs-rest), for the reports' charts."""
    out: dict[str, Any] = {}
    for label in labels:
        truth = [e == label for e in expected]
        if len(set(truth)) < 2:
            continue
        values = [s.get(label, 0.0) for s in scores]
        fpr, tpr, _ = cm.roc_curve(truth, values)
        precision, recall, _ = cm.precision_recall_curve(truth, values)
        out[label] = {"roc": [[round(x, 6), round(y, 6)] for x, y in zip(fpr, tpr)],
                      "pr": [[round(r, 6), round(p, 6)] for r, p in zip(recall, precision)],
                      "roc_auc": cm.roc_auc(truth, values), "average_precision": cm.average_precision(truth, values)}
    return out


class LabelPrediction(Evaluator):
    """One label prediction of one test, gathered per model into the classification leaderboard."""

    name = "label_prediction"
    helper = "record_label"
    description = "One predicted label against the true one; the reports aggregate them per model (accuracy, F1, ROC AUC)"
    requires = ("actual", "expected")
    metrics = (MetricSpec("correct", "1 when the predicted label is the true one", threshold=0.5, primary=True),)

    def score(self, case: Case) -> Score:
        truth, guess = (case.expected[0] if case.expected else ""), case.actual or ""
        scores = label_scores(case, self.name)
        details: dict[str, Any] = {"expected": shown(truth), "predicted": shown(guess)}
        if scores is not None:
            details["scores"] = {shown(k): v for k, v in list(scores.items())[:100]}
        return Score({"correct": float(truth == guess)}, f"expected {shown(truth)!r}, predicted {shown(guess)!r}", details)
