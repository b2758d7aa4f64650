"""The recorded label predictions of the models under test (``record_label``): accuracy, macro F1 and ROC AUC per
model, from the ``label_prediction`` results of a run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.result import NO_MODEL, Record

__all__ = ["ClassificationRow", "classification_of"]


@dataclass(frozen=True)
class ClassificationRow:
    """One model's label predictions (``record_label``), gathered over the run."""

    model: str
    count: int
    accuracy: float
    macro_f1: float
    roc_auc: float | None
    labels: tuple[str, ...]
    report: Mapping[str, Any]
    curves: Mapping[str, Any]


def classification_of(records: list[Record]) -> tuple[ClassificationRow, ...]:
    """Accuracy, macro F1 and ROC AUC per model from ``label_prediction`` records, best accuracy first."""
    from ..stats import classmetrics as cm

    by_model: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by_model[record.get("model") or NO_MODEL].append(record)
    rows = []
    for model, members in by_model.items():
        details = [m.get("details") or {} for m in members]
        expected = [str(d.get("expected", "")) for d in details]
        predicted = [str(d.get("predicted", "")) for d in details]
        report = cm.classification_report(expected, predicted)
        scores = [d.get("scores") for d in details]
        auc, drawn = None, {}
        if all(isinstance(s, Mapping) for s in scores):
            given = [dict(s) for s in scores if isinstance(s, Mapping)]
            labels = sorted(set(expected))  # ROC AUC is over the true labels
            auc = cm.label_roc_auc(expected, given, labels)
            drawn = cm.curves(expected, given, labels)
        rows.append(
            ClassificationRow(
                model, len(members), report.accuracy, report.macro[2], auc, report.labels, report.as_dict(), drawn
            )
        )
    return tuple(sorted(rows, key=lambda r: (-r.accuracy, -r.macro_f1, r.model)))
