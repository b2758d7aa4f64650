"""Which model is best: a paired test for every pair of models on the cases they share, Holm-corrected.

Two models answer the same cases, so what the cases share cancels out when each case's results are paired: the
test the baseline comparison uses (McNemar's exact test with one result per case, else a sign-flip permutation
test over the cases; `pytest_llmeval.stats.inference.paired`), on the pass indicator of each check's result per
case. Holm's adjustment over all pairs keeps the chance of calling any difference that is noise at ``alpha``.
The model with the highest pass rate is the **best model** only when it passes significantly more than the
runner-up; otherwise there is *no clear best*, and the summary says which models are within noise.

>>> rec = lambda model, case, passed: {"evaluator": "e", "primary": "m", "metrics": {"m": float(passed)},
...     "passed": passed, "verdict": "pass" if passed else "fail", "model": model, "case_id": case}
>>> even = [rec(m, f"q{i}", i % 2 == 0) for m in ("a", "b") for i in range(20)]
>>> rank_models(even).best, rank_models(even).no_clear_best[:26]
(None, 'no clear best: a and b are')
>>> apart = [rec("a", f"q{i}", True) for i in range(30)] + [rec("b", f"q{i}", i < 10) for i in range(30)]
>>> rank_models(apart).best
'a'
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.result import NO_MODEL, Record, verdict_of
from ..text.basics import counted

__all__ = ["ModelPair", "Ranking", "rank_models", "ModelMatrix", "matrix"]


@dataclass(frozen=True)
class ModelPair:
    """``first`` against ``second`` on their shared cases: pass rates, the difference (first minus second) and its
    interval, the test, its p-value and the Holm-adjusted one, and which is better (``within noise``: neither)."""

    first: str
    second: str
    cases: int
    first_rate: float
    second_rate: float
    difference: float
    low: float | None
    high: float | None
    test: str
    p_value: float
    p_adjusted: float
    verdict: str  # "<model> better" or "within noise"

    def describe(self) -> str:
        interval = "" if self.low is None or self.high is None else f" [{self.low:+.3f}, {self.high:+.3f}]"
        return (
            f"{self.first} {self.first_rate:.3f} vs {self.second} {self.second_rate:.3f} on {self.cases} shared "
            "case(s): "
            f"difference {self.difference:+.3f}{interval}, p {self.p_adjusted:.3g} (Holm): {self.verdict}"
        )


@dataclass(frozen=True)
class Ranking:
    best: str | None
    pairs: tuple[ModelPair, ...]
    no_clear_best: str  # why there is no best model ("" when there is one, or fewer than two models)


def rank_models(records: Iterable[Record], *, alpha: float = 0.05) -> Ranking:
    """The best model of ``records`` (original inputs, named models) if one passes significantly more than the
    runner-up; every pair of models compared."""
    units: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        model = record.get("model") or NO_MODEL
        if model == NO_MODEL:
            continue
        passed = verdict_of(record) == "pass"
        units[model][
            (str(record.get("evaluator", "")), str(record.get("case_id") or record.get("nodeid") or ""))
        ].append(float(passed))
        totals[model][0] += passed
        totals[model][1] += 1
    models = sorted(totals, key=lambda m: (-totals[m][0] / totals[m][1], -totals[m][1], m))
    if len(models) < 2:
        return Ranking(None, (), "")
    from ..stats import inference as stats

    pending: list[tuple[str, str, Any]] = []
    for first, second in itertools.combinations(models, 2):
        shared = sorted(set(units[first]) & set(units[second]))
        if shared:
            pending.append(
                (
                    first,
                    second,
                    stats.paired(
                        [units[second][u] for u in shared],
                        [units[first][u] for u in shared],
                        proportion=True,
                        alpha=alpha,
                    ),
                )
            )
    adjusted = stats.holm([result.p_value for _, _, result in pending])
    pairs = []
    for (first, second, result), p_adjusted in zip(pending, adjusted):
        verdict = "within noise"
        if p_adjusted <= alpha and result.difference != 0:
            verdict = f"{first if result.difference > 0 else second} better"
        pairs.append(
            ModelPair(
                first,
                second,
                result.cases,
                result.after,
                result.before,
                result.difference,
                result.low,
                result.high,
                result.test,
                result.p_value,
                p_adjusted,
                verdict,
            )
        )
    leader, runner = models[0], models[1]
    top = next((p for p in pairs if {p.first, p.second} == {leader, runner}), None)
    if top is not None and top.verdict == f"{leader} better":
        return Ranking(leader, tuple(pairs), "")
    if top is None:
        why = f"no clear best: {leader} and {runner} share no case to compare them on"
    else:
        why = (
            f"no clear best: {leader} and {runner} are within noise ({top.first_rate:.2f} vs {top.second_rate:.2f} "
            f"on {counted(top.cases, 'case')}, p {top.p_adjusted:.2g})"
        )
    return Ranking(None, tuple(pairs), why)


@dataclass(frozen=True)
class ModelMatrix:  # every pair of models on their shared cases: cell [i][j] is model i's pass rate minus model j's
    models: tuple[str, ...]
    cells: tuple[
        tuple[str, ...], ...
    ]  # "+0.200*" (* significant after Holm), "" on the diagonal, "n/a" without shared cases


def matrix(pairs: Any) -> ModelMatrix | None:
    """The summary's ``model_pairs`` as a models-by-models matrix (None with fewer than two models)."""
    if not isinstance(pairs, list) or not pairs:
        return None
    found = {(str(p["first"]), str(p["second"])): p for p in pairs if isinstance(p, Mapping)}
    models = tuple(dict.fromkeys(m for key in found for m in key))

    def cell(row: str, column: str) -> str:
        if row == column:
            return ""
        pair, sign = (found.get((row, column)), 1.0) if (row, column) in found else (found.get((column, row)), -1.0)
        if pair is None:
            return "n/a"
        mark = "*" if pair.get("verdict") != "within noise" else ""
        return f"{sign * float(pair['difference']):+.3f}{mark}"

    return ModelMatrix(models, tuple(tuple(cell(r, c) for c in models) for r in models))
