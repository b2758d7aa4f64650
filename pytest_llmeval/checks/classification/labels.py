"""Classification checks (seed 000's Classification evaluator, seed 001's classification metrics).

- ``classification``: a group check. The batch is a set of predictions: each case's
  ``expected`` is the true label, ``actual`` the predicted one, and optionally
  ``metadata["scores"]`` the model's score per label (for ROC AUC and the curves).
  Every case gets the set's accuracy, precision, recall and F1 (averaged as asked),
  and ROC AUC when scores are given; the helper records one result for the set.
- ``label_prediction``: one prediction recorded by one test (``record_label``); the
  controller gathers them per model into the classification leaderboard of every report.

Values are `pytest_llmeval.stats.classmetrics`'s, equal to scikit-learn's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...kit import Case

__all__ = ["label_cases", "label_set", "label_scores", "shown"]


MAX_LABEL = 200  # characters of a label kept in records and reports (labels are compared whole)


def shown(label: str) -> str:
    """A label as records and reports keep it: whole up to 200 characters, else its start and its length."""
    return label if len(label) <= MAX_LABEL else f"{label[:MAX_LABEL]}…({len(label)} chars)"


def label_scores(case: Case, owner: str) -> dict[str, float] | None:
    """The case's ``metadata["scores"]``: {label: score}, checked; ``None`` when not given."""
    scores = case.metadata.get("scores") if case.metadata else None
    if scores is None:
        return None
    if not isinstance(scores, Mapping) or not all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in scores.items()
    ):
        raise TypeError(
            f"{owner}: 'scores' must map each label (str) to the model's score (a number); got {scores!r:.80}"
        )
    if not all(math.isfinite(v) for v in scores.values()):
        raise ValueError(f"{owner}: 'scores' must be finite numbers; got {scores!r:.80}")
    return {k: float(v) for k, v in scores.items()}


def _labels(owner: str, name: str, values: Any) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence) or not all(isinstance(v, str) for v in values):
        raise TypeError(f"{owner}: argument '{name}' must be a list of labels (str); got {values!r:.80}")
    return list(values)


def label_cases(
    owner: str,
    expected: Any,
    predicted: Any,
    *,
    scores: Any = None,
    ids: Any = None,
    names: tuple[str, str] = ("expected", "predicted"),
    **fields: Any,
) -> list[Case]:
    """The set `Classification` scores: one case per prediction (``expected`` the true label, ``actual``
    the predicted one, ``metadata`` its id and scores), checked; ``names`` are the caller's names of the two lists."""
    truth = _labels(owner, names[0], expected)
    guesses = _labels(owner, names[1], predicted)
    if len(truth) != len(guesses) or not truth:
        raise ValueError(
            f"{owner}: '{names[0]}' has {len(truth)} labels and '{names[1]}' {len(guesses)}; "
            "give one predicted label per true label, at least one"
        )
    if scores is not None and (isinstance(scores, (str, Mapping)) or len(scores) != len(truth)):
        raise TypeError(
            f"{owner}: argument 'scores' must be one {{label: score}} mapping per prediction "
            f"({len(truth)}); got {scores!r:.80}"
        )
    row_ids = [str(i) for i in ids] if ids is not None else [str(i) for i in range(len(truth))]
    if len(row_ids) != len(truth):
        raise ValueError(
            f"{owner}: 'ids' has {len(row_ids)} ids for {len(truth)} predictions; give one id per prediction"
        )
    return [
        Case(
            actual=guess,
            expected=(label,),
            metadata={"id": row_id} if scores is None else {"id": row_id, "scores": scores[i]},
            **fields,
        )
        for i, (label, guess, row_id) in enumerate(zip(truth, guesses, row_ids))
    ]


def label_set(owner: str, fields: Mapping[str, Any], case_id: str | None) -> list[Case]:
    """``evaluate(owner, actual=[...], expected=[...], metadata={"scores": [...], "ids": [...]})``'s cases:
    the lists `assert_classification()` takes, ``scores`` and ``ids`` in ``metadata``."""
    rest = dict(fields)
    metadata = rest.pop("metadata", None) or {}
    if not isinstance(metadata, Mapping) or not set(metadata) <= {"scores", "ids"}:
        raise TypeError(
            f"{owner}: argument 'metadata' may hold only 'scores' and 'ids' (one per prediction) "
            f"when 'actual' and 'expected' are label lists; got {metadata!r:.80}"
        )
    return label_cases(
        owner,
        rest.pop("expected", None),
        rest.pop("actual"),
        scores=metadata.get("scores"),
        ids=metadata.get("ids"),
        names=("expected", "actual"),
        case_id=case_id,
        **rest,
    )
