"""The ``self_consistency`` check: How much each answer agrees with the other answers to the same question (ROUGE-1,
ROUGE-L)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import format_failure, group_defaults, raise_failure, run_cases
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score, package_version
from ...kit import require_number, require_type
from ...kit import Result

__all__ = ["assert_self_consistent", "SelfConsistency", "stratified_sample"]


def assert_self_consistent(
    answers: Sequence[str],
    *,
    question: str | None = None,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    max_group_size: int = 100,
    use_stemmer: bool = False,
    model: str | None = None,
    case: str | None = None,
    min_test_cases: int = 2,
) -> list[Result]:
    """Answers one model gave to the same question agree with each other (mean pairwise ROUGE-L, 0.75).

    Records one result per answer; fails naming the least consistent answer. Fewer than
    ``min_test_cases`` answers (default 2) are scored all the same, with a warning; one answer
    scores 1.0 (consistent with itself, as seed 000 says).
    """
    __tracebackhide__ = True
    if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence) or not answers:
        raise TypeError(
            f"assert_self_consistent: argument 'answers' must be a non-empty list of str; got {type(answers).__name__}"
        )
    bad = next((i for i, a in enumerate(answers) if not isinstance(a, str)), None)
    if bad is not None:
        raise TypeError(
            f"assert_self_consistent: argument 'answers' must hold str; answers[{bad}] is {type(answers[bad]).__name__}"
        )
    model, case = group_defaults(model, case)
    cases = [Case(actual=a, question=question, model=model, case_id=case) for a in answers]
    params = {"max_group_size": max_group_size, "use_stemmer": use_stemmer, "min_test_cases": min_test_cases}
    results = run_cases(SelfConsistency, cases, threshold=threshold, thresholds=thresholds, params=params)
    failed = [i for i, r in enumerate(results) if not r.passed]
    if failed:
        worst = min(failed, key=lambda i: score if (score := results[i].score) is not None else -1.0)
        message = format_failure(results[worst], len(answers[worst]))
        raise_failure(
            results[worst],
            f"{message}\n  {len(failed)} of {len(answers)} answers below the threshold; least consistent: #{worst}",
        )
    return results


def stratified_sample(lengths: Sequence[int], size: int, *, buckets: int = 10, seed: int = 0) -> list[int]:
    """Indices of ``size`` items drawn across length-percentile buckets, in index order.

    >>> sorted(i // 2 for i in stratified_sample([5, 50, 500, 5000], 2, buckets=2))  # one short, one long
    [0, 1]
    """
    if size >= len(lengths):
        return list(range(len(lengths)))
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups = [order[b * len(order) // buckets : (b + 1) * len(order) // buckets] for b in range(buckets)]
    groups = [g for g in groups if g]
    rng = random.Random(seed)
    chosen: list[int] = []
    share, extra = divmod(size, len(groups))
    for index, group in enumerate(groups):
        take = min(len(group), share + (1 if index < extra else 0))
        chosen.extend(rng.sample(group, take))
    leftovers = [i for i in order if i not in set(chosen)]
    chosen.extend(rng.sample(leftovers, size - len(chosen)))
    return sorted(chosen)


class SelfConsistency(Evaluator):
    """How much each answer agrees with the other answers to the same question (ROUGE-1, ROUGE-L).

    Parameters:
        max_group_size: answers compared pairwise at most; larger groups are sampled.
        use_stemmer: Porter-stem tokens before ROUGE.
        seed: seed of the sampling.
        min_test_cases: fewer answers than this are still scored, with a warning in the reason and
            a ``UserWarning`` (default 2). A question answered once scores 1.0: it is consistent
            with itself, as the catalog says.
    """

    name = "self_consistency"
    helper = "assert_self_consistent"
    description = "Answers to the same question agree with each other"
    version = "3"  # 3: a group smaller than min_test_cases is scored, with a warning (2: unscored)
    defaults: ClassVar[Mapping[str, Any]] = {
        "max_group_size": 100,
        "use_stemmer": False,
        "seed": 0,
        "min_test_cases": 2,
    }
    metrics = (
        MetricSpec("rouge1", "mean ROUGE-1 F1 against the other answers", threshold=0.75),
        MetricSpec("rougeL", "mean ROUGE-L F1 against the other answers", threshold=0.75, primary=True),
    )

    def configure(self) -> None:
        size = self.params["max_group_size"]
        require_number(self.name, "max_group_size", size, low=2, integer=True)
        require_type(self.name, "use_stemmer", self.params["use_stemmer"], bool, "True or False")
        require_type(self.name, "seed", self.params["seed"], int, "an integer")
        require_number(self.name, "min_test_cases", self.params["min_test_cases"], low=1, integer=True)
        from rouge_score import rouge_scorer

        self.scorer_argument = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=self.params["use_stemmer"])

    def backend(self) -> str:
        return package_version("rouge-score")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        answers = [c.actual or "" for c in cases]
        least = self.params["min_test_cases"]
        warning = ""
        if len(answers) < least:
            warning = f"{len(answers)} answer(s) to the question, fewer than min_test_cases={least}"
            import warnings

            warnings.warn(f"{self.name}: {warning}; scored anyway", UserWarning, stacklevel=3)
        if len(answers) == 1:
            return [
                self._warned(
                    Score(
                        {"rouge1": 1.0, "rougeL": 1.0},
                        "only answer to its question: consistent with itself",
                        {"compared": 0},
                    ),
                    warning,
                )
            ]
        pool = stratified_sample([len(a) for a in answers], self.params["max_group_size"], seed=self.params["seed"])
        pairs: dict[tuple[int, int], tuple[float, float]] = {}
        out = []
        for i in range(len(answers)):
            others = [j for j in pool if j != i]
            sums = [0.0, 0.0]
            for j in others:
                key = (min(i, j), max(i, j))
                if key not in pairs:
                    score = self.scorer_argument.score(answers[key[0]], answers[key[1]])
                    pairs[key] = (score["rouge1"].fmeasure, score["rougeL"].fmeasure)
                sums[0] += pairs[key][0]
                sums[1] += pairs[key][1]
            r1, rl = sums[0] / len(others), sums[1] / len(others)
            out.append(
                self._warned(
                    Score(
                        {"rouge1": r1, "rougeL": rl},
                        f"mean ROUGE-L {rl:.3f} against {len(others)} other answer(s)",
                        {"compared": len(others), "sampled": len(pool) < len(answers)},
                    ),
                    warning,
                )
            )
        return out

    @staticmethod
    def _warned(score: Score, warning: str) -> Score:
        """``score`` with ``warning`` leading its reason and kept in its details."""
        if not warning:
            return score
        return Score(score.metrics, f"warning: {warning}; {score.reason}", {**score.details, "warning": warning})
