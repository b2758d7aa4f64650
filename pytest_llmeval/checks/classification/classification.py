"""The ``classification`` check: Accuracy, precision, recall, F1 and ROC AUC of a set of label predictions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import format_failure, raise_failure, run_check
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_choice, require_type
from ...kit import Result
from ...kit import classmetrics as cm
from .labels import label_scores, shown

__all__ = ["assert_classification", "Classification"]


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
    from .labels import label_cases

    # errors name this helper's arguments
    label_cases("assert_classification", expected, predicted, scores=scores, ids=ids)
    given = {"scores": scores, "ids": ids}
    params = {"average": average, "labels": None if labels is None else list(labels), "detailed_curve": detailed_curve}
    result = run_check(
        Classification,
        actual=predicted,
        expected=expected,
        metadata={k: v for k, v in given.items() if v is not None},
        params=params,
        threshold=threshold,
        thresholds=thresholds,
        model=model,
        case=case,
    )
    if not result.passed:
        raise_failure(result, format_failure(result))
    return result


AVERAGES = ("macro", "weighted", "micro")


def _shown_report(report: dict[str, Any]) -> dict[str, Any]:
    return {
        **report,
        "labels": [shown(x) for x in report["labels"]],
        "per_label": {shown(k): v for k, v in report["per_label"].items()},
    }


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
    defaults: ClassVar[Mapping[str, Any]] = {
        "average": "macro",
        "labels": None,
        "detailed_curve": False,
        "max_examples": 1,
    }
    metrics = (
        MetricSpec("accuracy", "correct predictions / all predictions", threshold=0.75, primary=True),
        MetricSpec("precision", "precision, averaged over labels as 'average' says", threshold=None),
        MetricSpec("recall", "recall, averaged over labels as 'average' says", threshold=None),
        MetricSpec("f1", "F1, averaged over labels as 'average' says", threshold=None),
        MetricSpec(
            "roc_auc",
            "area under the ROC curve (one-vs-rest macro average for several labels); needs scores",
            threshold=None,
        ),
    )

    @classmethod
    def cases_from(cls, fields: Mapping[str, Any], case_id: str | None) -> list[Case]:
        """One case, or the label lists ``assert_classification`` takes (``actual=predicted, expected=truth``, with
        ``metadata={"scores": [...], "ids": [...]}``): one case per prediction, scored as one set."""
        if isinstance(fields.get("actual"), (str, type(None))):
            return super().cases_from(fields, case_id)
        from .labels import label_set

        return label_set(cls.name, fields, case_id)

    def configure(self) -> None:
        require_choice(self.name, "average", self.params["average"], AVERAGES)
        labels = self.params["labels"]
        if labels is not None:
            if (
                isinstance(labels, str)
                or not isinstance(labels, Sequence)
                or not all(isinstance(x, str) for x in labels)
            ):
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
            details["curves"] = {shown(k): v for k, v in cm.curves(expected, given, labels).items()}
            if self.params["detailed_curve"]:
                ids = [str(c.metadata.get("id", i)) for i, c in enumerate(cases)]
                details["detailed_pr_curve"] = cm.detailed_pr_curve(
                    expected, given, ids, max_examples=self.params["max_examples"]
                )
        wrong = [(e, p) for e, p in zip(expected, predicted) if e != p]
        reason = (
            f"accuracy {report.accuracy:.3f} over {len(cases)} predictions; {self.params['average']} F1 {f1:.3f}"
            + (f"; ROC AUC {auc:.3f}" if auc is not None else "")
            + (f"; first miss: expected {shown(wrong[0][0])!r}, predicted {shown(wrong[0][1])!r}" if wrong else "")
        )
        score = Score(
            {"accuracy": report.accuracy, "precision": precision, "recall": recall, "f1": f1, "roc_auc": auc},
            reason,
            details,
        )
        return [score] * len(cases)
