"""Aggregation of result records into a leaderboard, best model and most difficult case.

Works on plain record dicts (what travels in ``user_properties``), so it serves
the terminal summary, JUnit suite properties and every report alike. The flips, worst results and hardest case
come from `.findings`; the tables a check's kind picks (label predictions, generations) from `.predictions` and
`.generations`.

>>> recs = [
...     {"evaluator": "exact_match", "metrics": {"exact_match": 1.0}, "primary": "exact_match",
...      "passed": True, "higher_is_better": {"exact_match": True}, "model": "a", "case_id": "q1",
...      "signature": {"evaluator": "exact_match", "version": "1"}},
...     {"evaluator": "exact_match", "metrics": {"exact_match": 0.0}, "primary": "exact_match",
...      "passed": False, "higher_is_better": {"exact_match": True}, "model": "b", "case_id": "q1",
...      "signature": {"evaluator": "exact_match", "version": "1"}},
... ]
>>> summary = summarize(recs)
>>> summary.best_model, summary.hardest_case.case_id  # one case cannot tell the models apart
(None, 'q1')
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..core.result import NO_MODEL, Record, verdict_of
from .findings import Flip, HardCase, Insight, flips_of, hardest_case_of, insights_of, perturbation_of
from .generations import OperationsRow, operations, operations_insights
from .predictions import ClassificationRow, classification_of
from .rowstats import CaseDraws, row_stats
from .ranking import ModelPair, rank_models

__all__ = [
    "outcome_counts_line",
    "shown_model",
    "models_phrase",
    "LeaderboardRow",
    "check_labels",
    "Summary",
    "summarize",
    "signature_keys",
]


#: Order in which test outcomes are listed.
OUTCOMES = ("passed", "failed", "error", "crashed", "skipped", "xfailed", "xpassed", "unknown")


def outcome_counts_line(outcomes: Mapping[str, str]) -> str:
    """``12 tests: 9 passed, 2 failed, 1 crashed``: what pytest concluded about every test, checks or none."""
    counts: dict[str, int] = defaultdict(int)
    for outcome in outcomes.values():
        counts[outcome] += 1
    order = [*OUTCOMES, *sorted(set(counts) - set(OUTCOMES))]
    shown = ", ".join(f"{counts[o]} {o}" for o in order if counts.get(o))
    return f"{len(outcomes)} tests: {shown}" if outcomes else "0 tests"


def shown_model(model: str | None) -> str:
    """A leaderboard's model cell: the name, or "-" for checks of tests without a model."""
    return "-" if model is None or model == NO_MODEL else model


def models_phrase(models: Iterable[str | None]) -> str:
    """`` on 3 models`` for a summary line; empty when no check named a model (tests without one are no model)."""
    named = [m for m in models if m is not None and m != NO_MODEL]
    return f" on {len(named)} model{'' if len(named) == 1 else 's'}" if named else ""


@dataclass(frozen=True)
class LeaderboardRow:
    """One model on one check: the mean of the primary metric, pass rate and count.

    ``passed`` counts the results that passed on their own (verdict ``pass``); an unverified
    result is counted in ``unverified``, not as a pass, so a model whose answers cannot be
    confirmed never outranks one whose answers are confirmed.
    """

    check: str  # evaluator name, suffixed with a signature digest when one evaluator ran with several signatures
    evaluator: str
    metric: str
    higher_is_better: bool
    model: str
    mean: float | None
    passed: int
    count: int
    signature: str
    rank: int = 1  # 1 = best on this check (ties share a rank)
    spread: float | None = None  # population standard deviation of the primary metric
    threshold: float | None = None  # the primary metric's threshold, when every result had the same one
    unverified: int = 0  # results whose verdict is unverified (not counted in passed)
    expected: int = 0  # failed results of tests marked xfail that failed as expected (shown apart, not as a surprise)
    #: The interval of the mean (None: no mean, or fewer than two cases of scores other than 0 and 1) and of the pass
    #: rate, at 1 - alpha, repeats of a case clustered (see `.stats`).
    ci_low: float | None = None
    ci_high: float | None = None
    pass_ci_low: float | None = None
    pass_ci_high: float | None = None
    cases: int = 0  # distinct cases (a case run N times counts once)
    #: With repeated cases (``--llmeval-repeat``): k (the fewest draws of a case), the mean over cases of pass@k (at
    #: least one of k draws passes) and pass^k (all k pass), and the cases that both passed and failed.
    k: int | None = None
    pass_at_k: float | None = None
    pass_hat_k: float | None = None
    flaky: int = 0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.count if self.count else 0.0

    @property
    def below_threshold(self) -> bool:
        """The catalog's problem: this model's mean of the primary metric misses the threshold."""
        if self.mean is None or self.threshold is None:
            return False
        return self.mean < self.threshold if self.higher_is_better else self.mean > self.threshold


@dataclass(frozen=True)
class Summary:
    checks: int
    passed: int
    models: tuple[str, ...]
    rows: tuple[LeaderboardRow, ...]
    model_totals: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # model -> (passed, count)
    best_model: str | None = None  # the model with the highest pass rate, only when significantly above the runner-up
    model_pairs: tuple[ModelPair, ...] = ()  # every pair of models on their shared cases (report.ranking)
    no_clear_best: str = ""  # why there is no best model, when two or more models ran
    hardest_case: HardCase | None = None
    flips: tuple[Flip, ...] = ()
    perturbed_checks: int = 0
    insights: tuple[Insight, ...] = ()
    classification: tuple[ClassificationRow, ...] = ()
    operations: tuple[OperationsRow, ...] = ()
    #: Results no offline evidence could decide, by check; results sent to a judge to decide, by its verdict.
    unverified: Mapping[str, int] = field(default_factory=dict)
    escalated: Mapping[str, int] = field(default_factory=dict)
    detected: Mapping[str, int] = field(default_factory=dict)  # verdicts of the answers a detector read
    verified: Mapping[str, int] = field(default_factory=dict)  # verdicts of the answers the claim verifier read
    #: Every repeated case's draws per check and model, and the interval level of the rows (1 - alpha).
    repeats: tuple[CaseDraws, ...] = ()
    alpha: float = 0.05
    #: Failed checks of tests that failed as their xfail marker expected.
    expected_failures: int = 0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.checks if self.checks else 0.0

    @property
    def flaky(self) -> tuple[CaseDraws, ...]:
        """Repeated cases that both passed and failed, lowest pass rate first."""
        return tuple(
            sorted((c for c in self.repeats if c.flaky), key=lambda c: (c.pass_rate, c.check, c.model, c.case_id))
        )

    @property
    def unverified_count(self) -> int:
        return sum(self.unverified.values())

    @property
    def problems(self) -> tuple[LeaderboardRow, ...]:
        """Leaderboard rows whose mean misses the threshold (seed 000: a problem for that model)."""
        return tuple(row for row in self.rows if row.below_threshold)

    def checks_in_order(self) -> list[str]:
        return list(dict.fromkeys(row.check for row in self.rows))

    def to_dict(self) -> dict[str, Any]:
        """The summary for the JSON report: checks of tests without a model have ``"model": null`` and are no model."""

        def model(entry: dict[str, Any]) -> dict[str, Any]:
            return {**entry, "model": None if entry["model"] == NO_MODEL else entry["model"]}

        hard = self.hardest_case
        failed_models = [] if hard is None else [m for m in hard.failed_models if m != NO_MODEL]
        return {
            "checks": self.checks,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "unverified": self.unverified_count,
            "expected_failures": self.expected_failures,
            "unverified_by_check": dict(self.unverified),
            "escalated": sum(self.escalated.values()),
            "escalated_verdicts": dict(self.escalated),
            "detected_verdicts": dict(self.detected),
            "verifier_verdicts": dict(self.verified),
            "models": [m for m in self.models if m != NO_MODEL],
            "model_totals": {m: {"passed": p, "count": c} for m, (p, c) in self.model_totals.items() if m != NO_MODEL},
            "best_model": self.best_model,
            "no_clear_best": self.no_clear_best,
            "model_pairs": [asdict(pair) for pair in self.model_pairs],
            "hardest_case": None
            if hard is None
            else {
                **asdict(hard),
                "failed_models": failed_models,
                "models": hard.models - (NO_MODEL in hard.failed_models) if failed_models else 0,
            },
            "leaderboard": [model({**asdict(row), "pass_rate": row.pass_rate}) for row in self.rows],
            "problems": [
                model(
                    {
                        "check": row.check,
                        "metric": row.metric,
                        "model": row.model,
                        "mean": row.mean,
                        "threshold": row.threshold,
                        "higher_is_better": row.higher_is_better,
                        "count": row.count,
                    }
                )
                for row in self.problems
            ],
            "perturbed_checks": self.perturbed_checks,
            "flips": [model(asdict(flip)) for flip in self.flips],
            "insights": [model(asdict(insight)) for insight in self.insights],
            "classification": [model({**asdict(row), "labels": list(row.labels)}) for row in self.classification],
            "operations": [model(asdict(row)) for row in self.operations],
            "operations_insights": operations_insights(self.operations),
            "interval_level": 1.0 - self.alpha,
            "repeats": [model({**asdict(c), "pass_rate": c.pass_rate, "flaky": c.flaky}) for c in self.repeats],
            "flaky": [model({**asdict(c), "pass_rate": c.pass_rate}) for c in self.flaky],
        }


def signature_key(record: Record) -> str:
    return json.dumps(record.get("signature", {}), sort_keys=True)


def signature_keys(records: list[Record]) -> list[str]:
    """`signature_key()` of each record, computed once per signature object (records share one per signature)."""
    known: dict[int, str] = {}  # by id: the records keep every signature alive meanwhile
    keys = []
    for record in records:
        signature = record.get("signature")
        if type(signature) is not dict:
            keys.append(signature_key(record))
            continue
        key = known.get(id(signature))
        if key is None:
            key = known[id(signature)] = signature_key(record)
        keys.append(key)
    return keys


def check_labels(records: list[Record]) -> dict[tuple[str, str], str]:
    """The leaderboard's check label of each (evaluator, signature key) in ``records``."""
    return {pair: label for label, pair in _labels(records)[1].items()}


def _labels(records: list[Record]) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """One check label per record: the evaluator name, with a signature digest when it ran with several signatures."""
    keys = signature_keys(records)
    signatures: dict[str, set[str]] = defaultdict(set)
    for record, sig in zip(records, keys):
        signatures[record["evaluator"]].add(sig)
    out: list[str] = []
    labels: dict[str, tuple[str, str]] = {}
    for record, sig in zip(records, keys):
        label = record["evaluator"]
        if len(signatures[label]) > 1:
            import hashlib

            from ..text.basics import utf8

            label = f"{label}#{hashlib.sha256(utf8(sig)).hexdigest()[:6]}"
        labels[label] = (record["evaluator"], sig)
        out.append(label)
    return out, labels


def summarize(
    records: Iterable[Record],
    *,
    flip_delta: float | None = None,
    alpha: float = 0.05,
    expected: frozenset[str] = frozenset(),
) -> Summary:
    """Aggregate ``records`` (``Result.to_dict()`` dicts, optionally with ``nodeid`` and ``tags``).

    The leaderboard, best model and most difficult case are computed on original
    inputs; results on perturbed inputs (``tags["perturbation"]``) are compared with
    their original sibling for `Flip` s. ``flip_delta``: a score move larger
    than this is a flip too.
    """
    records = list(records)
    all_labels, labels = _labels(records)
    originals = [(r, label) for r, label in zip(records, all_labels) if perturbation_of(r) is None]
    ranked = originals or list(zip(records, all_labels))
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record, label in ranked:
        groups[(label, record.get("model") or NO_MODEL)].append(record)

    rows = []
    repeats: list[CaseDraws] = []
    for (label, model), members in groups.items():
        primary = members[0]["primary"]
        values = [v for m in members if (v := m["metrics"].get(primary)) is not None]
        mean = math.fsum(values) / len(values) if values else None
        limits = {
            (m.get("thresholds") or {}).get(primary) for m in members
        }  # numbers (resolve_thresholds floats them) or None
        figures, drawn = row_stats(members, model, label, alpha)
        repeats += drawn
        rows.append(
            LeaderboardRow(
                check=label,
                evaluator=labels[label][0],
                metric=primary,
                higher_is_better=bool(members[0].get("higher_is_better", {}).get(primary, True)),
                model=model,
                mean=mean,
                passed=sum(1 for m in members if verdict_of(m) == "pass"),
                count=len(members),
                signature=labels[label][1],
                spread=None if mean is None else (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5,
                threshold=limits.pop() if len(limits) == 1 else None,
                unverified=sum(1 for m in members if verdict_of(m) == "unverified"),
                expected=sum(1 for m in members if verdict_of(m) == "fail" and m.get("nodeid") in expected),
                **asdict(figures),
            )
        )
    # Checks in first-seen order; within a check the best model first.
    order = {label: index for index, label in enumerate(dict.fromkeys(label for label, _ in groups))}

    def merit(row: LeaderboardRow) -> tuple[Any, ...]:
        # Rounded, so means equal but for float noise (0.2 vs 0.19999999999999998) tie.
        mean = round(row.mean, 9) if row.mean is not None else float("-inf")
        return (-round(row.pass_rate, 9), -mean if row.higher_is_better else mean)

    rows.sort(key=lambda row: (order[row.check], *merit(row), row.model))
    ranked_rows: list[LeaderboardRow] = []
    for row in rows:
        previous = ranked_rows[-1] if ranked_rows else None
        if previous is not None and previous.check == row.check:
            rank = (
                previous.rank if merit(previous) == merit(row) else sum(r.check == row.check for r in ranked_rows) + 1
            )
        else:
            rank = 1
        ranked_rows.append(replace(row, rank=rank))

    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record, _ in ranked:
        entry = totals[record.get("model") or NO_MODEL]
        entry[0] += verdict_of(record) == "pass"
        entry[1] += 1
    models = tuple(sorted(totals))
    ranking = rank_models([r for r, _ in ranked], alpha=alpha)  # best only when significantly better than the runner-up

    return Summary(
        checks=len(records),
        passed=sum(1 for r in records if verdict_of(r) == "pass"),
        models=models,
        rows=tuple(ranked_rows),
        model_totals={m: (p, c) for m, (p, c) in totals.items()},
        best_model=ranking.best,
        model_pairs=ranking.pairs,
        no_clear_best=ranking.no_clear_best,
        hardest_case=hardest_case_of([r for r, _ in ranked if r.get("nodeid") not in expected]),
        flips=flips_of(records, all_labels, flip_delta),
        perturbed_checks=len(records) - len(originals),
        insights=insights_of([(r, label) for r, label in ranked if r.get("nodeid") not in expected]),
        expected_failures=sum(1 for r in records if verdict_of(r) == "fail" and r.get("nodeid") in expected),
        classification=classification_of([r for r, _ in ranked if r.get("evaluator") == "label_prediction"]),
        operations=operations([r for r, _ in ranked if r.get("evaluator") == "generation"]),
        unverified=dict(Counter(r["evaluator"] for r in records if verdict_of(r) == "unverified")),
        escalated=dict(
            Counter(
                verdict_of(r) for r in records if isinstance(r.get("details"), dict) and "escalated" in r["details"]
            )
        ),
        detected=_tier_verdicts(records, "detector"),
        verified=_tier_verdicts(records, "verifier"),
        repeats=tuple(sorted(repeats, key=lambda c: (order[c.check], c.model, c.case_id))),
        alpha=alpha,
    )


def _tier_verdicts(records: list[Record], tier: str) -> dict[str, int]:
    """The verdicts of the answers a model tier (``verifier``, ``detector``) read, counted."""
    return dict(
        Counter(
            str(r["details"][tier].get("verdict"))
            for r in records
            if isinstance(r.get("details"), dict) and isinstance(r["details"].get(tier), dict)
        )
    )
