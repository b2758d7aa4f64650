"""Classification checks: a set of label predictions at once, or one prediction per test gathered per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..case import Case
from ..current import current_context
from ..result import Result
from .core import _group_defaults, _run, assert_check, format_failure, raise_failure

__all__ = ["assert_classification", "record_label"]


def _labels(helper: str, name: str, values: Any) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence) or not all(isinstance(v, str) for v in values):
        raise TypeError(f"{helper}: argument '{name}' must be a list of labels (str); got {values!r:.80}")
    return list(values)


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
    """
    __tracebackhide__ = True
    truth = _labels("assert_classification", "expected", expected)
    guesses = _labels("assert_classification", "predicted", predicted)
    if len(truth) != len(guesses) or not truth:
        raise ValueError(f"assert_classification: 'expected' has {len(truth)} labels and 'predicted' {len(guesses)}; "
                         "give one predicted label per true label, at least one")
    if scores is not None and (isinstance(scores, (str, Mapping)) or len(scores) != len(truth)):
        raise TypeError(f"assert_classification: argument 'scores' must be one {{label: score}} mapping per prediction "
                        f"({len(truth)}); got {scores!r:.80}")
    names = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(truth))]
    if len(names) != len(truth):
        raise ValueError(f"assert_classification: 'ids' has {len(names)} ids for {len(truth)} predictions; give one id per prediction")
    model, case = _group_defaults(model, case)
    cases = [Case(actual=guess, expected=(label,), model=model, case_id=case,
                  metadata={"id": name} if scores is None else {"id": name, "scores": scores[i]})
             for i, (label, guess, name) in enumerate(zip(truth, guesses, names))]
    params = {"average": average, "labels": None if labels is None else list(labels), "detailed_curve": detailed_curve}
    result = _run("classification", cases, threshold, thresholds, params, False)[0]
    context = current_context()
    if context is not None:
        context.record(result)
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
