"""Checks over a group of cases rather than one: self-consistency and questions drift.

Both still follow the batch contract (one result per case): the group is the batch.

- Self-consistency (catalog: Self-Consistency Evaluator): the batch is the answers
  one model gave to the same question. Each answer gets the mean, over the other
  answers, of the pairwise ROUGE-1 and ROUGE-L F-measures. Above
  ``max_group_size`` answers, a stratified sample (10 answer-length buckets,
  seeded) serves as the comparison set, which keeps the pairs near 100·99/2.
- Questions drift (catalog: Questions Drift Evaluator): the batch is the questions
  in chronological order. They are split at ``split_ratio``; the drift is the
  cosine distance between the two groups' mean embeddings. It is a property of
  the question set, so every case of the batch gets the same value.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..text import excerpt
from .base import Evaluator, MetricSpec, Score, package_version, require_number, require_type
from .embedding import EmbeddingEvaluator

__all__ = ["SelfConsistency", "QuestionsDrift", "stratified_sample"]


def stratified_sample(lengths: Sequence[int], size: int, *, buckets: int = 10, seed: int = 0) -> list[int]:
    """Indices of ``size`` items drawn across length-percentile buckets, in index order.

    >>> sorted(i // 2 for i in stratified_sample([5, 50, 500, 5000], 2, buckets=2))  # one short, one long
    [0, 1]
    """
    if size >= len(lengths):
        return list(range(len(lengths)))
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups = [order[b * len(order) // buckets:(b + 1) * len(order) // buckets] for b in range(buckets)]
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
    defaults: ClassVar[Mapping[str, Any]] = {"max_group_size": 100, "use_stemmer": False, "seed": 0, "min_test_cases": 2}
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

        self._scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=self.params["use_stemmer"])

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
            return [self._warned(Score({"rouge1": 1.0, "rougeL": 1.0}, "only answer to its question: consistent with itself",
                                       {"compared": 0}), warning)]
        pool = stratified_sample([len(a) for a in answers], self.params["max_group_size"], seed=self.params["seed"])
        pairs: dict[tuple[int, int], tuple[float, float]] = {}
        out = []
        for i, answer in enumerate(answers):
            others = [j for j in pool if j != i]
            sums = [0.0, 0.0]
            for j in others:
                key = (min(i, j), max(i, j))
                if key not in pairs:
                    score = self._scorer.score(answers[key[0]], answers[key[1]])
                    pairs[key] = (score["rouge1"].fmeasure, score["rougeL"].fmeasure)
                sums[0] += pairs[key][0]
                sums[1] += pairs[key][1]
            r1, rl = sums[0] / len(others), sums[1] / len(others)
            out.append(self._warned(Score({"rouge1": r1, "rougeL": rl}, f"mean ROUGE-L {rl:.3f} against {len(others)} other answer(s)",
                                          {"compared": len(others), "sampled": len(pool) < len(answers)}), warning))
        return out

    @staticmethod
    def _warned(score: Score, warning: str) -> Score:
        """``score`` with ``warning`` leading its reason and kept in its details."""
        if not warning:
            return score
        return Score(score.metrics, f"warning: {warning}; {score.reason}", {**score.details, "warning": warning})


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
        MetricSpec("drift", "cosine distance between the centroids of the two groups", higher_is_better=False,
                   range=(0.0, 2.0), threshold=0.1, primary=True),
    )

    def configure(self) -> None:
        super().configure()
        ratio = self.params["split_ratio"]
        require_number(self.name, "split_ratio", ratio, low=0.1, high=0.9)
        old = self.params.pop("min_cases")
        if old is not None:
            import warnings

            warnings.warn(f"{self.name}: parameter 'min_cases' is now 'min_test_cases'", DeprecationWarning, stacklevel=4)
            self.params["min_test_cases"] = old
        require_number(self.name, "min_test_cases", self.params["min_test_cases"], low=2, integer=True)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import numpy as np

        questions = [c.question for c in cases if c.question and c.question.strip()]
        if len(questions) < self.params["min_test_cases"]:
            score = Score({"drift": None}, f"drift needs at least {self.params['min_test_cases']} questions; got {len(questions)}",
                          {"questions": len(questions)})
            return [score] * len(cases)
        cut = min(max(1, round(len(questions) * self.params["split_ratio"])), len(questions) - 1)
        [vectors] = self.encode_all([questions])
        first, second = vectors[:cut].mean(axis=0), vectors[cut:].mean(axis=0)
        norms = float(np.linalg.norm(first) * np.linalg.norm(second))
        drift = float(min(2.0, max(0.0, 1.0 - float(first @ second) / norms))) if norms else 0.0
        details = {"first_group": cut, "second_group": len(questions) - cut,
                   "first_question": excerpt(questions[0], 100), "last_question": excerpt(questions[-1], 100)}
        score = Score({"drift": drift}, f"drift {drift:.3f} between the first {cut} and the last {len(questions) - cut} questions", details)
        return [score] * len(cases)
