"""How well a check's verdicts agree with a person's labels, and where its threshold would have to sit.

A labeled row is *good* (the answer is acceptable) or *bad*; the check says *pass*, *fail* or *unverified*. On
the rows the check decided, a *fail* is its call that the answer is bad, so the two raters (the person and the
check) are compared on one binary question:

- ``agreement``: the share of decided rows where the check's call matches the label;
- Cohen's kappa: that agreement beyond what two raters with the same marginal rates would reach by chance,
  ``(p_o - p_e) / (1 - p_e)`` (Cohen 1960, "A coefficient of agreement for nominal scales"), with the
  large-sample standard error ``sqrt(p_o (1 - p_o) / (n (1 - p_e)^2))`` of the same paper and a normal interval,
  clipped to [-1, 1]: 0 is chance, 1 is perfect agreement, and Landis and Koch (1977) call 0.61-0.80 substantial;
- ``good failed`` (false alarms among the good answers), ``bad caught`` (recall on the bad ones), and
  ``failure precision``: the share of the check's failures that a person labeled bad;
- the ``unverified`` share: rows the check did not decide (they are not in kappa; a check that leaves most rows
  unverified agrees only where it is easy).

`suggest_threshold()` sweeps the scores once, in order, for the threshold at which failure precision reaches a
target with the most bad answers caught; `brute_force_threshold()` tries every threshold by the check's own rule
and is what the sweep is tested against.

>>> a = agreement([("good", "pass"), ("good", "pass"), ("bad", "fail"), ("bad", "pass"), ("good", "unverified")])
>>> a.rows, a.decided, round(a.agreement, 2), round(a.kappa, 2), a.bad_caught, a.good_failed
(5, 4, 0.75, 0.5, 1, 0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

__all__ = ["Agreement", "agreement", "ThresholdSuggestion", "suggest_threshold", "brute_force_threshold", "LABELS"]


#: The labels a person gives: the answer is acceptable (``good``) or not (``bad``).
LABELS = ("good", "bad")


@dataclass(frozen=True)
class Agreement:
    """A check's verdicts against labels (see the module's text); ``None`` where a figure has no rows to rest on."""

    rows: int
    good: int
    bad: int
    good_passed: int
    good_failed: int  # good answers the check failed (false alarms)
    bad_passed: int  # bad answers the check let through
    bad_caught: int  # bad answers the check failed
    unverified: int
    agreement: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None

    @property
    def decided(self) -> int:
        return self.rows - self.unverified

    @property
    def failed(self) -> int:
        return self.good_failed + self.bad_caught

    @property
    def precision(self) -> float | None:
        """The share of the check's failures that were labeled bad."""
        return self.bad_caught / self.failed if self.failed else None

    @property
    def unverified_share(self) -> float | None:
        return self.unverified / self.rows if self.rows else None

    @property
    def good_failed_share(self) -> float | None:
        """Good answers failed, of the good ones the check decided."""
        decided = self.good_failed + self.good_passed
        return self.good_failed / decided if decided else None

    @property
    def bad_caught_share(self) -> float | None:
        """Bad answers failed, of the bad ones the check decided."""
        decided = self.bad_caught + self.bad_passed
        return self.bad_caught / decided if decided else None

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "decided": self.decided,
            "failed": self.failed,
            "precision": self.precision,
            "unverified_share": self.unverified_share,
            "good_failed_share": self.good_failed_share,
            "bad_caught_share": self.bad_caught_share,
        }


def agreement(pairs: Iterable[tuple[str, str]], *, alpha: float = 0.05) -> Agreement:
    """``(label, verdict)`` pairs (labels ``good`` / ``bad``, verdicts ``pass`` / ``fail`` / ``unverified``) summed
    up."""
    rows = good = bad = unverified = 0
    table = {("good", "pass"): 0, ("good", "fail"): 0, ("bad", "pass"): 0, ("bad", "fail"): 0}
    for label, verdict in pairs:
        if label not in LABELS:
            raise ValueError(f"a label must be one of {', '.join(LABELS)}; got {label!r:.80}")
        if verdict not in ("pass", "fail", "unverified"):
            raise ValueError(f"a verdict must be pass, fail or unverified; got {verdict!r:.80}")
        rows += 1
        good += label == "good"
        bad += label == "bad"
        if verdict == "unverified":
            unverified += 1
        else:
            table[(label, verdict)] += 1
    n = sum(table.values())
    agree = kappa = low = high = None
    if n:
        p_o = (table[("good", "pass")] + table[("bad", "fail")]) / n
        p_bad = (table[("bad", "pass")] + table[("bad", "fail")]) / n
        p_fail = (table[("good", "fail")] + table[("bad", "fail")]) / n
        p_e = p_bad * p_fail + (1 - p_bad) * (1 - p_fail)
        agree = p_o
        if p_e < 1:
            kappa = (p_o - p_e) / (1 - p_e)
            spread = math.sqrt(max(p_o * (1 - p_o), 0.0) / (n * (1 - p_e) ** 2))
            z = NormalDist().inv_cdf(1 - alpha / 2)
            low, high = max(-1.0, kappa - z * spread), min(1.0, kappa + z * spread)
    return Agreement(
        rows,
        good,
        bad,
        table[("good", "pass")],
        table[("good", "fail")],
        table[("bad", "pass")],
        table[("bad", "fail")],
        unverified,
        agree,
        kappa,
        low,
        high,
    )


@dataclass(frozen=True)
class ThresholdSuggestion:
    """Where a score-based check's threshold would reach ``target`` failure precision on the labels.

    ``threshold`` is ``None`` when no threshold reaches the target (``best_precision`` says how close one came).
    ``low`` and ``high`` bound the threshold over bootstrap resamples of the rows (``None`` when too few resamples
    found one). ``good_failed`` and ``bad_caught`` count the labeled rows the threshold fails.
    """

    metric: str
    higher_is_better: bool
    target: float
    threshold: float | None
    precision: float | None
    bad_caught: int
    good_failed: int
    bad: int
    good: int
    best_precision: float | None
    low: float | None = None
    high: float | None = None

    def describe(self) -> str:
        rule = "below" if self.higher_is_better else "above"
        if self.threshold is None:
            best = "no failure" if self.best_precision is None else f"at best {self.best_precision:.2f}"
            return f"{self.metric}: no threshold reaches failure precision {self.target:.2f} on these labels ({best})"
        interval = "" if self.low is None or self.high is None else f" (bootstrap {self.low:.4g} to {self.high:.4g})"
        return (
            f"{self.metric} threshold {self.threshold:.4g}{interval}: fails answers {rule} it, precision "
            f"{self.precision:.2f} (target {self.target:.2f}), catches {self.bad_caught} of {self.bad} bad, fails "
            f"{self.good_failed} of {self.good} good; not applied (set it with --llmeval-threshold)"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _choose(points: Sequence[tuple[float, int, int]], target: float) -> tuple[float, int, int] | None:
    """The candidate (threshold, bad failed, good failed) with precision at least ``target`` and the most bad caught
    (ties: the fewest good failed, then the threshold that fails least)."""
    best: tuple[float, int, int] | None = None
    for threshold, bad_failed, good_failed in points:
        failed = bad_failed + good_failed
        if not failed or bad_failed / failed < target:
            continue
        if best is None or (bad_failed, -good_failed) > (best[1], -best[2]):
            best = (threshold, bad_failed, good_failed)
    return best


def _sweep(scored: Sequence[tuple[float, bool]], higher_is_better: bool) -> list[tuple[float, int, int]]:
    """Every useful threshold once: (threshold, bad failed, good failed), failing the lowest scores first (the
    highest for a lower-is-better metric). A threshold equal to a score passes it (the checks' rule)."""
    ordered = sorted(scored, key=lambda item: item[0], reverse=not higher_is_better)
    points = []
    bad_failed = good_failed = 0
    for index, (value, is_bad) in enumerate(ordered):
        if index and value != ordered[index - 1][0]:
            points.append((value, bad_failed, good_failed))  # fails everything before this value
        bad_failed += is_bad
        good_failed += not is_bad
    return points


def brute_force_threshold(
    scored: Sequence[tuple[float, bool]], higher_is_better: bool, target: float
) -> tuple[float, int, int] | None:
    """Every distinct score as the threshold, each row judged by the check's rule (``value >= threshold`` passes, or
    ``<=`` for a lower-is-better metric): the same choice as `suggest_threshold()`, in quadratic time."""
    points = []
    for threshold in sorted({value for value, _ in scored}, reverse=not higher_is_better):
        failing = [
            is_bad for value, is_bad in scored if not (value >= threshold if higher_is_better else value <= threshold)
        ]
        points.append((threshold, sum(failing), len(failing) - sum(failing)))
    return _choose(points, target)


def suggest_threshold(
    scored: Sequence[tuple[float, bool]],
    *,
    metric: str,
    higher_is_better: bool = True,
    target: float = 0.9,
    resamples: int = 500,
    alpha: float = 0.05,
    seed: int = 0,
) -> ThresholdSuggestion:
    """The threshold on ``metric`` at which failing the rows beyond it has failure precision at least ``target`` on
    ``scored`` (``(score, labeled bad)`` pairs), catching the most bad answers; with a bootstrap interval."""
    if not 0 < target <= 1:
        raise ValueError(f"argument 'target' must be a failure precision in (0, 1]; got {target!r:.80}")
    scored = [(float(value), bool(is_bad)) for value, is_bad in scored if value is not None and math.isfinite(value)]
    bad = sum(is_bad for _, is_bad in scored)
    points = _sweep(scored, higher_is_better)
    chosen = _choose(points, target)
    precisions = [b / (b + g) for _, b, g in points if b + g]
    best_precision = max(precisions) if precisions else None
    if chosen is None:
        return ThresholdSuggestion(
            metric, higher_is_better, target, None, None, 0, 0, bad, len(scored) - bad, best_precision
        )
    threshold, bad_failed, good_failed = chosen
    low = high = None
    if scored and resamples:
        rng = random.Random(seed)
        found = []
        for _ in range(resamples):
            sample = [scored[rng.randrange(len(scored))] for _ in scored]
            pick = _choose(_sweep(sample, higher_is_better), target)
            if pick is not None:
                found.append(pick[0])
        if len(found) >= resamples // 2:
            found.sort()
            low = found[int(alpha / 2 * (len(found) - 1))]
            high = found[int((1 - alpha / 2) * (len(found) - 1))]
    return ThresholdSuggestion(
        metric,
        higher_is_better,
        target,
        threshold,
        bad_failed / (bad_failed + good_failed),
        bad_failed,
        good_failed,
        bad,
        len(scored) - bad,
        best_precision,
        low,
        high,
    )
