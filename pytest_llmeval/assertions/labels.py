"""Classification checks: a set of label predictions at once, or one prediction per test gathered per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..result import Result
from .core import assert_check, evaluate, format_failure, raise_failure

__all__ = ["assert_classification", "record_label"]


def assert_classification(
    expected: Sequence[str],
    predicted: Sequence[str],
    *,
    scores: Sequence[Mapping[str, float]] | None = None,
    ids: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    average: str = "macro",
    detailed_curve: bool = False,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    model: str | None = None,
    case: str | None = None,
) -> Result:
    """The predicted labels match the true ones (accuracy, default threshold 0.75); records one result for the set.

    ``scores``: per prediction, the model's score for each label (``{"spam": 0.9, "ham": 0.1}``), for
    ROC AUC and the ROC / precision-recall curves in the reports. ``thresholds={"f1": 0.8}`` gates F1 too.
    ``evaluate("classification", actual=predicted, expected=expected)`` gives the same result without asserting.
    """
    __tracebackhide__ = True
    from ..evaluators.labels import label_cases

    label_cases("assert_classification", expected, predicted, scores=scores, ids=ids)  # errors name this helper's arguments
    given = {"scores": scores, "ids": ids}
    params = {"average": average, "labels": None if labels is None else list(labels), "detailed_curve": detailed_curve}
    result = evaluate("classification", actual=predicted, expected=expected, metadata={k: v for k, v in given.items() if v is not None},
                      params=params, threshold=threshold, thresholds=thresholds, model=model, case=case)
    if not result.passed:
        raise_failure(result, format_failure(result))
    return result


def record_label(expected: str, predicted: str, *, scores: Mapping[str, float] | None = None, **kwargs: Any) -> Result:
    """Record this test's predicted label against the true one; the reports gather them per model.

    Fails the test when the label is wrong (pass ``threshold=0`` to only record). ``scores``:
    the model's score per label, for ROC AUC and the curves of the classification leaderboard.
    """
    __tracebackhide__ = True
    return assert_check("label_prediction", actual=predicted, expected=expected,
                        metadata={} if scores is None else {"scores": dict(scores)}, **kwargs)
