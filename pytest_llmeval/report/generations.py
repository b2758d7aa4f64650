"""The measured generations of the models under test (``measure_generation``): latency, tokens and cost per model."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.result import NO_MODEL, Record

__all__ = ["OperationsRow", "operations", "operations_insights"]


@dataclass(frozen=True)
class OperationsRow:
    """One model's recorded generations (``measure_generation``): means, the 95th latency percentile, total cost."""

    model: str
    count: int
    latency_ms_mean: float | None
    latency_ms_p95: float | None
    prompt_tokens_mean: float | None
    completion_tokens_mean: float | None
    tokens_mean: float | None
    cost_mean: float | None
    cost_total: float | None


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def operations(records: list[Record]) -> tuple[OperationsRow, ...]:
    by_model: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by_model[record.get("model") or NO_MODEL].append(record)
    rows = []
    for model, members in sorted(by_model.items()):

        def values(metric: str) -> list[float]:
            return [float(v) for m in members if (v := m["metrics"].get(metric)) is not None]

        latency = sorted(values("latency_ms"))
        # the 95th percentile, nearest rank
        p95 = latency[max(0, math.ceil(0.95 * len(latency)) - 1)] if latency else None
        costs = values("cost")
        rows.append(
            OperationsRow(
                model,
                len(members),
                _mean(latency),
                p95,
                _mean(values("prompt_tokens")),
                _mean(values("completion_tokens")),
                _mean(values("total_tokens")),
                _mean(costs),
                math.fsum(costs) if costs else None,
            )
        )
    return tuple(rows)


def operations_insights(rows: Iterable[OperationsRow]) -> dict[str, str]:
    """Fastest and slowest (mean latency), cheapest and most expensive (mean cost) of two or more named models."""
    named = [r for r in rows if r.model != NO_MODEL]
    out: dict[str, str] = {}
    for key, attribute in (("latency", "latency_ms_mean"), ("cost", "cost_mean")):
        measured = [r for r in named if getattr(r, attribute) is not None]
        if len(measured) < 2:
            continue
        ordered = sorted(measured, key=lambda r: (getattr(r, attribute), r.model))
        low, high = ("fastest", "slowest") if key == "latency" else ("cheapest", "most_expensive")
        out[low], out[high] = ordered[0].model, ordered[-1].model
    return out
