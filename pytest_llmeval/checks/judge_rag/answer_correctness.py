"""The ``answer_correctness`` check: Statement F1 against the expected answer, ``tp / (tp + 0.5 (fp + fn))``, blended
with semantic similarity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, ask_yes_no, judge_statements

__all__ = ["assert_answer_correct", "EmbeddingJudge", "AnswerCorrectness"]


def assert_answer_correct(
    actual: str, expected: Any, *, f1_weight: float = 0.75, similarity_weight: float = 0.25, **kwargs: Any
) -> Result:
    """Statement F1 against the expected answer blended with embedding similarity (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"f1_weight": f1_weight, "similarity_weight": similarity_weight}
    return check(AnswerCorrectness, actual=actual, expected=expected, params=params, **kwargs)


SUPPORTED_PROMPT = """Is the statement supported by the reference text? Reply with JSON only: {{"verdict": "yes"}} or \
{{"verdict": "no"}}.

Reference: {reference}
Statement: {statement}
"""


class EmbeddingJudge(JudgeEvaluator):
    """A judge check that also embeds texts: the session's embedder, named in the signature when used."""

    models: Any = None

    def uses_embedder(self) -> bool:
        return True

    def bind(self, models: Any) -> None:
        self.models = models
        self.__dict__.pop("_signature", None)

    def embedder(self) -> Any:
        if self.models is None:
            from ...kit.models import ModelCache

            self.models = ModelCache()
        return self.models.embedder()

    def scoring_model(self) -> str | None:
        judge = super().scoring_model()
        return f"{judge}; embedder:{self.embedder().signature}" if self.uses_embedder() else judge


class AnswerCorrectness(EmbeddingJudge):
    """Statement F1 against the expected answer, ``tp / (tp + 0.5 (fp + fn))``, blended with semantic similarity.

    ``f1_weight`` and ``similarity_weight`` (RAGAS: 0.75 / 0.25) must sum to 1; with a
    similarity weight of 0 (Valor's choice) no embedding model is needed. Several
    expected answers: the best.
    """

    name = "answer_correctness"
    helper = "assert_answer_correct"
    extra = "judge"
    description = "The answer states what the expected answer states, and nothing else (LLM judge)"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"f1_weight": 0.75, "similarity_weight": 0.25}
    metrics = (
        MetricSpec("answer_correctness", "weighted statement F1 and semantic similarity", threshold=0.75, primary=True),
        MetricSpec("f1", "statement F1", threshold=None),
        MetricSpec("similarity", "embedding similarity to the expected answer", threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        weights = (self.params["f1_weight"], self.params["similarity_weight"])
        if (
            any(isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0 for w in weights)
            or abs(sum(weights) - 1) > 1e-6
        ):
            raise ValueError(
                f"{self.name}: parameters 'f1_weight' and 'similarity_weight' must be non-negative and sum to 1; got "
                f"{weights}"
            )

    def uses_embedder(self) -> bool:
        return bool(self.params["similarity_weight"])

    def _similarity(self, actual: str, expected: str) -> float:
        vectors = self.embedder().encode([actual, expected])
        return float(max(0.0, min(1.0, float(vectors[0] @ vectors[1]))))

    def score(self, case: Case) -> Score:
        actual = case.actual or ""
        best: tuple[float, dict[str, float | None], int] | None = None
        try:
            predicted = judge_statements(self, actual, f"{self.name} answer statements")
            for index, expected in enumerate(case.expected):
                truth = judge_statements(self, expected, f"{self.name} expected statements #{index}")
                tp = sum(
                    ask_yes_no(
                        self, SUPPORTED_PROMPT, f"{self.name} answer statement {i}", reference=expected, statement=s
                    )
                    for i, s in enumerate(predicted)
                )
                fp = len(predicted) - tp
                fn = sum(
                    not ask_yes_no(
                        self, SUPPORTED_PROMPT, f"{self.name} expected statement {i}", reference=actual, statement=s
                    )
                    for i, s in enumerate(truth)
                )
                f1 = tp / (tp + 0.5 * (fp + fn)) if tp else 0.0
                similarity = self._similarity(actual, expected) if self.params["similarity_weight"] else None
                value = self.params["f1_weight"] * f1 + self.params["similarity_weight"] * (similarity or 0.0)
                if best is None or value > best[0]:
                    best = (value, {"f1": f1, "similarity": similarity, "tp": tp, "fp": fp, "fn": fn}, index)
        except JudgeParseError as exc:
            return self.unscored(["answer_correctness", "f1", "similarity"], exc)
        assert best is not None
        value, parts, index = best
        return Score(
            {"answer_correctness": value, "f1": parts["f1"], "similarity": parts["similarity"], "parse_failure": 0.0},
            f"statement F1 {parts['f1']:.3f} (tp {parts['tp']}, fp {parts['fp']}, fn {parts['fn']}) vs expected answer "
            f"#{index}",
            {"reference": index, "tp": parts["tp"], "fp": parts["fp"], "fn": parts["fn"]},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"supported": SUPPORTED_PROMPT}
