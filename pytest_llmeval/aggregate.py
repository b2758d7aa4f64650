"""Aggregation of result records into a leaderboard, best model and most difficult case.

Works on plain record dicts (what travels in ``user_properties``), so it serves
the terminal summary, JUnit suite properties and every report alike.

>>> recs = [
...     {"evaluator": "exact_match", "metrics": {"exact_match": 1.0}, "primary": "exact_match",
...      "passed": True, "higher_is_better": {"exact_match": True}, "model": "a", "case_id": "q1",
...      "signature": {"evaluator": "exact_match", "version": "1"}},
...     {"evaluator": "exact_match", "metrics": {"exact_match": 0.0}, "primary": "exact_match",
...      "passed": False, "higher_is_better": {"exact_match": True}, "model": "b", "case_id": "q1",
...      "signature": {"evaluator": "exact_match", "version": "1"}},
... ]
>>> summary = summarize(recs)
>>> summary.best_model, summary.hardest_case.case_id
('a', 'q1')
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["LeaderboardRow", "HardCase", "Summary", "summarize", "NO_MODEL"]

#: How results without a model name are shown.
NO_MODEL = "(unnamed)"


@dataclass(frozen=True)
class LeaderboardRow:
    """One model on one check: the mean of the primary metric, pass rate and count."""

    check: str  # evaluator name, suffixed with a signature digest when one evaluator ran with several signatures
    evaluator: str
    metric: str
    higher_is_better: bool
    model: str
    mean: float | None
    passed: int
    count: int
    signature: str

    @property
    def pass_rate(self) -> float:
        return self.passed / self.count if self.count else 0.0


@dataclass(frozen=True)
class HardCase:
    """The case most models failed."""

    case_id: str
    failed_models: tuple[str, ...]
    models: int
    failed_checks: int


@dataclass(frozen=True)
class Summary:
    checks: int
    passed: int
    models: tuple[str, ...]
    rows: tuple[LeaderboardRow, ...]
    model_totals: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # model -> (passed, count)
    best_model: str | None = None
    hardest_case: HardCase | None = None

    @property
    def pass_rate(self) -> float:
        return self.passed / self.checks if self.checks else 0.0

    def checks_in_order(self) -> list[str]:
        return list(dict.fromkeys(row.check for row in self.rows))

    def to_dict(self) -> dict[str, Any]:
        return {
            "checks": self.checks,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "models": list(self.models),
            "model_totals": {m: {"passed": p, "count": c} for m, (p, c) in self.model_totals.items()},
            "best_model": self.best_model,
            "hardest_case": None if self.hardest_case is None else {
                **asdict(self.hardest_case), "failed_models": list(self.hardest_case.failed_models)
            },
            "leaderboard": [{**asdict(row), "pass_rate": row.pass_rate} for row in self.rows],
        }


def signature_key(record: Mapping[str, Any]) -> str:
    return json.dumps(record.get("signature", {}), sort_keys=True)


def summarize(records: Iterable[Mapping[str, Any]]) -> Summary:
    """Aggregate ``records`` (``Result.to_dict()`` dicts, optionally with ``nodeid``)."""
    records = list(records)
    signatures: dict[str, set[str]] = defaultdict(set)
    for record in records:
        signatures[record["evaluator"]].add(signature_key(record))
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    labels: dict[str, tuple[str, str]] = {}
    for record in records:
        sig = signature_key(record)
        label = record["evaluator"]
        if len(signatures[label]) > 1:
            import hashlib

            label = f"{label}#{hashlib.sha256(sig.encode()).hexdigest()[:6]}"
        labels[label] = (record["evaluator"], sig)
        groups[(label, record.get("model") or NO_MODEL)].append(record)

    rows = []
    for (label, model), members in groups.items():
        primary = members[0]["primary"]
        values = [m["metrics"].get(primary) for m in members]
        values = [v for v in values if v is not None]
        rows.append(
            LeaderboardRow(
                check=label,
                evaluator=labels[label][0],
                metric=primary,
                higher_is_better=bool(members[0].get("higher_is_better", {}).get(primary, True)),
                model=model,
                mean=sum(values) / len(values) if values else None,
                passed=sum(1 for m in members if m.get("passed")),
                count=len(members),
                signature=labels[label][1],
            )
        )
    # Checks in first-seen order; within a check the best model first.
    order = {label: index for index, label in enumerate(dict.fromkeys(label for label, _ in groups))}

    def rank(row: LeaderboardRow) -> tuple[Any, ...]:
        mean = row.mean if row.mean is not None else float("-inf")
        return (order[row.check], -row.pass_rate, -mean if row.higher_is_better else mean, row.model)

    rows.sort(key=rank)

    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        entry = totals[record.get("model") or NO_MODEL]
        entry[0] += bool(record.get("passed"))
        entry[1] += 1
    models = tuple(sorted(totals))
    best = None
    if len(models) > 1:
        best = max(models, key=lambda m: (totals[m][0] / totals[m][1], totals[m][1], [-ord(c) for c in m]))

    return Summary(
        checks=len(records),
        passed=sum(1 for r in records if r.get("passed")),
        models=models,
        rows=tuple(rows),
        model_totals={m: (p, c) for m, (p, c) in totals.items()},
        best_model=best,
        hardest_case=_hardest_case(records),
    )


def _hardest_case(records: list[Mapping[str, Any]]) -> HardCase | None:
    by_case: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        case_id = record.get("case_id") or record.get("nodeid")
        if not case_id:
            continue
        by_case[case_id][record.get("model") or NO_MODEL].append(bool(record.get("passed")))
    best: tuple[tuple[Any, ...], HardCase] | None = None
    for case_id, per_model in by_case.items():
        failed_models = tuple(sorted(m for m, outcomes in per_model.items() if not all(outcomes)))
        if not failed_models:
            continue
        failed_checks = sum(outcomes.count(False) for outcomes in per_model.values())
        hard = HardCase(case_id, failed_models, len(per_model), failed_checks)
        key = (len(failed_models), len(failed_models) / len(per_model), failed_checks)
        if best is None or key > best[0]:
            best = (key, hard)
    return None if best is None else best[1]
