"""The ``rouge`` check: ROUGE-1/2/L/Lsum F-measure against the expected answer(s); with several, the best per type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score, package_version
from ...kit import require_choice, require_type
from ...kit import Result
from ...kit.text import normalize, split_sentences

__all__ = ["assert_rouge", "Rouge", "Normalising"]


def assert_rouge(
    actual: str,
    expected: Any,
    *,
    use_stemmer: bool = False,
    split_summaries: bool = True,
    rouge_types: Any = ("rouge1", "rouge2", "rougeL", "rougeLsum"),
    f_measure: str = "f1",
    **kwargs: Any,
) -> Result:
    """ROUGE against the expected answer(s); primary metric ROUGE-L F1.

    ``rouge_types`` picks the types computed (it must hold ``rougeL``); ``f_measure="max_pr"``
    reports each as the larger of precision and recall (DataRobot's ROUGE-1) instead of F1.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "use_stemmer": use_stemmer,
        "split_summaries": split_summaries,
        "rouge_types": rouge_types,
        "f_measure": f_measure,
    }
    return check(Rouge, actual=actual, expected=expected, params=params, **kwargs)


ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


#: ``f1``: rouge-score's F-measure; ``max_pr``: the larger of precision and recall (DataRobot's ROUGE-1).
F_MEASURES = ("f1", "max_pr")


class Rouge(Evaluator):
    """ROUGE-1/2/L/Lsum F-measure against the expected answer(s); with several, the best per type.

    Parameters:
        use_stemmer: Porter-stem tokens (rouge-score's option).
        split_summaries: put each sentence on its own line before ROUGE-Lsum, which
            treats newlines as sentence boundaries.
        rouge_types: which of ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum`` to compute
            (default all four); the others are reported as ``None``. It must hold
            ``rougeL``, the primary metric.
        f_measure: ``"f1"`` (default): each type's F1, rouge-score's ``fmeasure``;
            ``"max_pr"``: the larger of its precision and recall, as DataRobot reports
            ROUGE-1. With several expected answers each type takes the reference where
            that number is highest.

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = Rouge().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on a mat")])
    >>> round(r.metrics["rouge1"], 4), r.primary
    (0.8333, 'rougeL')
    >>> [r] = Rouge(rouge_types=["rouge1", "rougeL"], f_measure="max_pr").evaluate(
    ...     [Case(actual="the cat sat", expected="the cat sat on the mat")])
    >>> r.metrics["rouge1"], r.metrics["rouge2"]
    (1.0, None)
    """

    name = "rouge"
    helper = "assert_rouge"
    description = "N-gram and longest-common-subsequence overlap with the expected answer"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {
        "use_stemmer": False,
        "split_summaries": True,
        "rouge_types": ROUGE_TYPES,
        "f_measure": "f1",
    }
    metrics = (
        MetricSpec("rouge1", "unigram overlap F1 (or max of precision and recall)", threshold=0.75),
        MetricSpec("rouge2", "bigram overlap F1 (or max of precision and recall)", threshold=0.75),
        MetricSpec(
            "rougeL", "longest common subsequence F1 (or max of precision and recall)", threshold=0.75, primary=True
        ),
        MetricSpec(
            "rougeLsum", "summary-level LCS F1, sentence per line (or max of precision and recall)", threshold=0.75
        ),
    )

    def configure(self) -> None:
        require_type(self.name, "use_stemmer", self.params["use_stemmer"], bool, "True or False")
        require_type(self.name, "split_summaries", self.params["split_summaries"], bool, "True or False")
        require_choice(self.name, "f_measure", self.params["f_measure"], F_MEASURES)
        kinds = self.params["rouge_types"]
        if isinstance(kinds, str) or not isinstance(kinds, (list, tuple)) or not kinds:
            raise TypeError(
                f"{self.name}: parameter 'rouge_types' must be a non-empty list of "
                f"{', '.join(map(repr, ROUGE_TYPES))}; got {kinds!r:.80}"
            )
        for kind in kinds:
            require_choice(self.name, "rouge_types", kind, ROUGE_TYPES)
        primary = self.primary_metric().name
        if primary not in kinds:
            raise ValueError(
                f"{self.name}: parameter 'rouge_types' must include {primary!r}, the primary metric; "
                f"got {list(kinds)!r}"
            )
        # one order, whatever order they were given in: the same choice has one signature
        self.params["rouge_types"] = tuple(kind for kind in ROUGE_TYPES if kind in kinds)
        from rouge_score import rouge_scorer

        self.scorer_argument = rouge_scorer.RougeScorer(
            list(self.params["rouge_types"]), use_stemmer=self.params["use_stemmer"]
        )

    def signature_params(self) -> Mapping[str, Any]:
        """The new options enter the signature only when set: default results keep their signature."""
        return {k: v for k, v in self.params.items() if k not in ("rouge_types", "f_measure") or v != self.defaults[k]}

    def resolve_thresholds(self, overrides: Mapping[str, float | None] | None = None) -> dict[str, float]:
        left_out = [
            m
            for m, v in (overrides or {}).items()
            if v is not None and m in ROUGE_TYPES and m not in self.params["rouge_types"]
        ]
        if left_out:
            raise ValueError(
                f"{self.name}: a threshold on {left_out[0]!r}, which parameter 'rouge_types' leaves out "
                f"(computed: {', '.join(self.params['rouge_types'])})"
            )
        return super().resolve_thresholds(overrides)

    def backend(self) -> str:
        return package_version("rouge-score")

    def _prepare(self, text: str) -> str:
        if self.params["split_summaries"] and "\n" not in text:
            return "\n".join(split_sentences(text))
        return text

    def _value(self, score: Any) -> float:
        if self.params["f_measure"] == "max_pr":
            return float(max(score.precision, score.recall))
        return float(score.fmeasure)

    def score(self, case: Case) -> Score:
        prediction = self._prepare(case.actual or "")
        targets = [self._prepare(t) for t in case.expected]
        per_target = [self.scorer_argument.score(target, prediction) for target in targets]
        kinds = self.params["rouge_types"]
        metrics: dict[str, float | None] = dict.fromkeys(ROUGE_TYPES)
        details: dict[str, Any] = {}
        for kind in kinds:
            best = max(range(len(per_target)), key=lambda i: self._value(per_target[i][kind]))
            chosen = per_target[best][kind]
            metrics[kind] = self._value(chosen)
            details[kind] = {"precision": chosen.precision, "recall": chosen.recall, "reference": best}
        reason = ", ".join(f"{kind} {metrics[kind]:.3f}" for kind in kinds)
        if self.params["f_measure"] == "max_pr":
            reason += " (max of precision and recall)"
        if len(targets) > 1:
            reason += f" (best of {len(targets)} references)"
        return Score(metrics, reason, details)


_NORMALISATION: Mapping[str, Any] = {"ignore_case": False, "ignore_whitespace": True, "ignore_punctuation": False}


class Normalising(Evaluator):
    requires = ("actual", "expected")
    defaults = _NORMALISATION

    def configure(self) -> None:
        for name in _NORMALISATION:
            require_type(self.name, name, self.params[name], bool, "True or False")

    def norm(self, text: str) -> str:
        return normalize(text, **{k: self.params[k] for k in _NORMALISATION})
