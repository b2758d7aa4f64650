"""The ``questions_drift`` check: Cosine distance between the mean embeddings of the earlier and later questions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import format_failure, group_defaults, raise_failure, run_cases, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit import current_context
from ...kit import Result
from ...kit.text import excerpt
from .base import EmbeddingEvaluator

__all__ = ["assert_no_question_drift", "QuestionsDrift"]


def assert_no_question_drift(
    questions: Sequence[str],
    *,
    split_ratio: float = 0.5,
    min_test_cases: int = 10,
    threshold: float | None = None,
    scorer: str | None = None,
    embedding_model: str | None = None,
    case: str | None = None,
    min_cases: int | None = None,
) -> Result:
    """The later questions mean the same kind of thing as the earlier ones (centroid cosine distance, 0.1).

    ``questions`` must be in chronological order. Records one result for the set; with fewer than
    ``min_test_cases`` questions it is unscored (``min_cases``: the old name, deprecated).
    """
    __tracebackhide__ = True
    if isinstance(questions, str) or not isinstance(questions, Sequence) or not questions:
        raise TypeError("assert_no_question_drift: argument 'questions' must be a non-empty sequence of str")
    _, case = group_defaults(None, case)
    # None and empty questions are left out, as the catalog does; the rest must be str.
    cases = [Case(question=q, case_id=case) for q in questions if q is not None and q != ""] or [
        Case(question="", case_id=case)
    ]
    evaluator_params = {
        "model": scorer_argument("assert_no_question_drift", scorer, embedding_model=embedding_model),
        "split_ratio": split_ratio,
        "min_test_cases": min_test_cases if min_cases is None else min_cases,
    }
    if min_cases is not None:
        import warnings

        warnings.warn("assert_no_question_drift: 'min_cases' is now 'min_test_cases'", DeprecationWarning, stacklevel=2)
    # Drift is one number for the whole set: every case gets it, one result is recorded.
    result = run_cases(QuestionsDrift, cases, threshold=threshold, params=evaluator_params, record=False)[0]
    context = current_context()
    if context is not None:
        context.record(result)
    if not result.passed:
        raise_failure(result, format_failure(result))
    return result


class QuestionsDrift(EmbeddingEvaluator):
    """Cosine distance between the mean embeddings of the earlier and later questions.

    Parameters:
        split_ratio: share of the (chronologically ordered) questions in the first group, 0.1-0.9.
        min_test_cases: fewer non-empty questions than this leave the drift unscored (the catalog's
            default, 10). ``min_cases``, its old name, still works with a DeprecationWarning.
    """

    name = "questions_drift"
    helper = "assert_no_question_drift"
    extra = "embeddings"
    description = "The questions asked later mean the same kind of thing as the earlier ones"
    requires = ("question",)
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "split_ratio": 0.5, "min_test_cases": 10, "min_cases": None}
    metrics = (
        MetricSpec(
            "drift",
            "cosine distance between the centroids of the two groups",
            higher_is_better=False,
            range=(0.0, 2.0),
            threshold=0.1,
            primary=True,
        ),
    )

    def configure(self) -> None:
        super().configure()
        ratio = self.params["split_ratio"]
        require_number(self.name, "split_ratio", ratio, low=0.1, high=0.9)
        old = self.params.pop("min_cases")
        if old is not None:
            import warnings

            warnings.warn(
                f"{self.name}: parameter 'min_cases' is now 'min_test_cases'", DeprecationWarning, stacklevel=4
            )
            self.params["min_test_cases"] = old
        require_number(self.name, "min_test_cases", self.params["min_test_cases"], low=2, integer=True)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import numpy as np

        questions = [c.question for c in cases if c.question and c.question.strip()]
        if len(questions) < self.params["min_test_cases"]:
            score = Score(
                {"drift": None},
                f"drift needs at least {self.params['min_test_cases']} questions; got {len(questions)}",
                {"questions": len(questions)},
            )
            return [score] * len(cases)
        cut = min(max(1, round(len(questions) * self.params["split_ratio"])), len(questions) - 1)
        [vectors] = self.encode_all([questions])
        first, second = vectors[:cut].mean(axis=0), vectors[cut:].mean(axis=0)
        norms = float(np.linalg.norm(first) * np.linalg.norm(second))
        drift = float(min(2.0, max(0.0, 1.0 - float(first @ second) / norms))) if norms else 0.0
        details = {
            "first_group": cut,
            "second_group": len(questions) - cut,
            "first_question": excerpt(questions[0], 100),
            "last_question": excerpt(questions[-1], 100),
        }
        score = Score(
            {"drift": drift},
            f"drift {drift:.3f} between the first {cut} and the last {len(questions) - cut} questions",
            details,
        )
        return [score] * len(cases)
