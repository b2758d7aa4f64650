"""The ``label_prediction`` check: One label prediction of one test, gathered per model into the classification
leaderboard."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...kit import check
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import Result
from .labels import label_scores, shown

__all__ = ["record_label", "LabelPrediction"]


def record_label(expected: str, predicted: str, *, scores: Mapping[str, float] | None = None, **kwargs: Any) -> Result:
    """Record this test's predicted label against the true one; the reports gather them per model.

    Fails the test when the label is wrong (pass ``threshold=0`` to only record). ``scores``:
    the model's score per label, for ROC AUC and the curves of the classification leaderboard.
    """
    __tracebackhide__ = True
    return check(
        LabelPrediction,
        actual=predicted,
        expected=expected,
        metadata={} if scores is None else {"scores": dict(scores)},
        **kwargs,
    )


class LabelPrediction(Evaluator):
    """One label prediction of one test, gathered per model into the classification leaderboard."""

    name = "label_prediction"
    helper = "record_label"
    description = (
        "One predicted label against the true one; the reports aggregate them per model (accuracy, F1, ROC AUC)"
    )
    requires = ("actual", "expected")
    metrics = (MetricSpec("correct", "1 when the predicted label is the true one", threshold=0.5, primary=True),)

    def score(self, case: Case) -> Score:
        truth, guess = (case.expected[0] if case.expected else ""), case.actual or ""
        scores = label_scores(case, self.name)
        details: dict[str, Any] = {"expected": shown(truth), "predicted": shown(guess)}
        if scores is not None:
            details["scores"] = {shown(k): v for k, v in list(scores.items())[:100]}
        return Score(
            {"correct": float(truth == guess)}, f"expected {shown(truth)!r}, predicted {shown(guess)!r}", details
        )
