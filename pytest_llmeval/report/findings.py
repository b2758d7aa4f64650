"""What stands out in a run's records besides the leaderboard: flips between an input and its perturbed sibling,
each check's worst result with the evaluator's reason, and the case most models failed.

Works on plain record dicts, as `summarize()` does; `perturbation_of()` tells an original input from a perturbed one.

>>> perturbation_of({"tags": {"perturbation": "uppercase"}}), perturbation_of({"tags": {"perturbation": ORIGINAL}})
('uppercase', None)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..core.result import NO_MODEL, Record

__all__ = ["ORIGINAL", "perturbation_of", "Flip", "Insight", "HardCase", "flips_of", "insights_of", "hardest_case_of"]


#: The tag value of an unperturbed sibling in a perturbation family.
ORIGINAL = "original"


def perturbation_of(record: Record) -> str | None:
    """The perturbation a record was scored under (``None`` for an original input)."""
    value = (record.get("tags") or {}).get("perturbation")
    return None if value in (None, "", ORIGINAL) else str(value)


@dataclass(frozen=True)
class Flip:
    """A check whose outcome changed between an input and its perturbed sibling (same case, model, check)."""

    case_id: str
    model: str
    check: str
    metric: str
    perturbation: str
    kind: (
        str  # "broke" (passed, then failed), "fixed" (failed, then passed) or "moved" (score moved more than the delta)
    )
    original_score: float | None
    perturbed_score: float | None
    original_passed: bool
    perturbed_passed: bool
    nodeid: str | None = None
    original_nodeid: str | None = None

    def describe(self) -> str:
        def num(v: float | None) -> str:
            return "n/a" if v is None else f"{v:.3f}"

        return (
            f"{self.check} {self.metric} {self.kind} under {self.perturbation}: {num(self.original_score)} -> "
            f"{num(self.perturbed_score)} ({'pass' if self.original_passed else 'fail'} -> "
            f"{'pass' if self.perturbed_passed else 'fail'})"
        )


@dataclass(frozen=True)
class Insight:
    """The worst result of a check, with the evaluator's own evidence (its reason)."""

    check: str
    metric: str
    model: str
    case_id: str | None
    score: float | None
    reason: str


@dataclass(frozen=True)
class HardCase:
    """The case most models failed."""

    case_id: str
    failed_models: tuple[str, ...]
    models: int
    failed_checks: int


def flips_of(records: list[Record], labels: list[str], delta: float | None) -> tuple[Flip, ...]:
    """Pair each perturbed result with its original sibling: same case, model, check, and n-th call of it in the
    test."""
    originals: dict[tuple[Any, ...], Record] = {}
    perturbed: list[tuple[tuple[Any, ...], Record, str]] = []
    seen: dict[tuple[Any, ...], int] = defaultdict(int)
    for record, label in zip(records, labels):
        occurrence_key = (record.get("nodeid"), label)
        occurrence = seen[occurrence_key]
        seen[occurrence_key] += 1
        test = str(record.get("nodeid") or "").partition("[")[
            0
        ]  # the test function: siblings share it, other tests do not
        draw = (record.get("tags") or {}).get("draw")  # a repeated case: each draw's siblings pair with each other
        key = (
            record.get("case_id") or record.get("nodeid"),
            record.get("model") or NO_MODEL,
            label,
            test,
            draw,
            occurrence,
        )
        name = perturbation_of(record)
        if name is None:
            originals.setdefault(key, record)
        else:
            perturbed.append((key, record, name))
    flips = []
    for key, record, name in perturbed:
        original = originals.get(key)
        if original is None:
            continue
        primary = record["primary"]
        before, after = original["metrics"].get(primary), record["metrics"].get(primary)
        was, now = bool(original.get("passed")), bool(record.get("passed"))
        if was != now:
            kind = "broke" if was else "fixed"
        elif delta is not None and before is not None and after is not None and abs(after - before) > delta:
            kind = "moved"
        else:
            continue
        flips.append(
            Flip(
                str(key[0]),
                key[1],
                key[2],
                primary,
                name,
                kind,
                before,
                after,
                was,
                now,
                record.get("nodeid"),
                original.get("nodeid"),
            )
        )
    flips.sort(
        key=lambda f: (
            {"broke": 0, "fixed": 1, "moved": 2}[f.kind],
            f.case_id,
            f.model,
            f.check,
            f.perturbation,
            f.nodeid or "",
        )
    )
    return tuple(flips)


def insights_of(ranked: list[tuple[Record, str]]) -> tuple[Insight, ...]:
    """Per check, its worst scored result and the evaluator's reason (the least grounded sentence, the leaked entity,
    ...)."""
    worst: dict[str, tuple[float, Record]] = {}
    for record, label in ranked:
        primary = record["primary"]
        value = record["metrics"].get(primary)
        if value is None or record.get("passed"):
            continue
        badness = -value if record.get("higher_is_better", {}).get(primary, True) else value
        key = (badness, record.get("nodeid") or "")
        if label not in worst or key > (worst[label][0], worst[label][1].get("nodeid") or ""):
            worst[label] = (badness, record)
    return tuple(
        Insight(
            label,
            record["primary"],
            record.get("model") or NO_MODEL,
            record.get("case_id"),
            record["metrics"].get(record["primary"]),
            str(record.get("reason") or ""),
        )
        for label, (_, record) in worst.items()
    )


def hardest_case_of(records: list[Record]) -> HardCase | None:
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
