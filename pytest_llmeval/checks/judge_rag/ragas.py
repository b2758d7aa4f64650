"""The ``ragas`` check: Harmonic mean of faithfulness, answer relevancy, context precision and context recall."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE
from .answer_relevancy_judge import AnswerRelevancyJudge
from .context_precision import ContextPrecision
from .context_recall import ContextRecall
from .faithfulness import Faithfulness

__all__ = ["assert_ragas", "Ragas", "harmonic_mean", "PROMPTS"]


def assert_ragas(
    actual: str, question: str, expected: Any, context: Any, *, unknown_claims: str = "unsupported", **kwargs: Any
) -> Result:
    """Harmonic mean of faithfulness, answer relevancy, context precision and recall (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history"))
    return check(
        Ragas,
        actual=actual,
        question=question,
        expected=expected,
        context=context,
        params={"unknown_claims": unknown_claims},
        **kwargs,
    )


#: The checks RAGAS combines, in the order of its metrics.
PARTS: tuple[type[JudgeEvaluator], ...] = (Faithfulness, AnswerRelevancyJudge, ContextPrecision, ContextRecall)

#: Every prompt RAGAS asks, by name: its four parts' tables (`PARTS`). ``prompts=`` replaces one by name in whichever
#: part asks it.
PROMPTS: dict[str, str] = {name: text for part in PARTS for name, text in part.default_prompts().items()}


def _asked_by(part: type[JudgeEvaluator], prompts: Mapping[str, str] | None) -> dict[str, str] | None:
    """The replacements among ``prompts`` of the prompts ``part`` asks (``None``: none)."""
    return {k: v for k, v in (prompts or {}).items() if k in part.default_prompts()} or None


def harmonic_mean(values: Sequence[float]) -> float:
    """``n / sum(1/v)``; 0 when any value is 0.

    >>> round(harmonic_mean([1.0, 0.5, 0.75, 1.0]), 4)
    0.75
    """
    if any(v <= 0 for v in values):
        return 0.0
    return len(values) / sum(1 / v for v in values)


class Ragas(JudgeEvaluator):
    """Harmonic mean of faithfulness, answer relevancy, context precision and context recall."""

    name = "ragas"
    helper = "assert_ragas"
    extra = "judge"
    description = "RAGAS: harmonic mean of faithfulness, answer relevancy, context precision and recall (LLM judge)"
    requires = ("actual", "question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unknown_claims": "unsupported", "n": 3}
    metrics = (
        MetricSpec("ragas", "harmonic mean of the four", threshold=0.75, primary=True),
        MetricSpec("faithfulness", "share of claims supported by the context", threshold=None),
        MetricSpec("answer_relevancy", "mean similarity of generated questions to the question", threshold=None),
        MetricSpec("context_precision", "mean precision@k over the useful chunks", threshold=None),
        MetricSpec("context_recall", "share of expected-answer statements found in the context", threshold=None),
        PARSE_FAILURE,
    )
    models: Any = None

    @classmethod
    def default_prompts(cls) -> dict[str, str]:
        """Its four parts' prompts (`PROMPTS`): ``prompts=`` replaces them by name, in whichever part asks them."""
        return dict(PROMPTS)

    def configure(self) -> None:
        mine = [_asked_by(part, self.params.get("prompts")) for part in PARTS]
        self.parts = (
            Faithfulness(unknown_claims=self.params["unknown_claims"], prompts=mine[0]),
            AnswerRelevancyJudge(n=self.params["n"], prompts=mine[1]),
            ContextPrecision(prompts=mine[2]),
            ContextRecall(prompts=mine[3]),
        )

    def bind_prompts(self, prompts: Mapping[str, str] | None) -> None:
        super().bind_prompts(prompts)
        for part in self.parts:
            part.bind_prompts(_asked_by(type(part), prompts))

    def bind(self, models: Any) -> None:
        self.models = models
        self.parts[1].bind(models)
        self.__dict__.pop("_signature", None)

    def scoring_model(self) -> str | None:
        return self.parts[1].scoring_model()

    def bind_judge(self, runner: Any) -> None:
        super().bind_judge(runner)
        for part in self.parts:
            part.bind_judge(runner)

    def score(self, case: Case) -> Score:
        values: dict[str, float | None] = {}
        reasons = []
        unverified = broken = False
        for part in self.parts:
            score = part.score(case)
            metric = part.primary_metric().name
            values[metric] = score.metrics.get(metric)
            if values[metric] is None:
                unverified = unverified or score.unverified
                broken = broken or not score.unverified
            reasons.append(
                f"{metric} {values[metric]:.3f}" if values[metric] is not None else f"{metric}: {score.reason}"
            )
        if broken or unverified:
            # A part whose reply was unusable leaves the whole unscored (a parse failure), whatever the others found;
            # otherwise a part with nothing to judge leaves it unverified.
            return Score(
                {**values, "ragas": None, "parse_failure": 1.0 if broken else 0.0},
                "; ".join(reasons),
                {},
                unverified=not broken,
            )
        value = harmonic_mean([v for v in values.values() if v is not None])
        return Score({**values, "ragas": value, "parse_failure": 0.0}, "; ".join(reasons), {})
