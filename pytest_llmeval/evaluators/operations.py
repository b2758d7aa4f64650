"""Operational metrics of the model under test (seed 003: latency, tokens, cost; seed 000: fastest ... cheapest).

A test records one generation of the model under test (``measure_generation`` times
the call and reads the usage off an OpenAI-style response; ``record_generation``
takes the numbers). The case's ``metadata`` carries the measurement:
``latency_ms``, ``prompt_tokens``, ``completion_tokens``, ``cost``. Budgets
(``max_latency_ms``, ``max_cost``, ``max_tokens``) gate the primary ``within_budget``;
without a budget the generation is recorded and passes. The reports gather the
measurements per model: means, the 95th latency percentile, total cost, and the
fastest, slowest, cheapest and most expensive model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from ..case import Case
from .base import Evaluator, MetricSpec, Score, require_number

__all__ = ["Generation", "MEASURES"]

MEASURES = ("latency_ms", "prompt_tokens", "completion_tokens", "cost")
_BUDGETS = {"max_latency_ms": "latency_ms", "max_cost": "cost", "max_tokens": "total_tokens"}


def _measure(case: Case, name: str) -> float | None:
    value = case.metadata.get(name) if case.metadata else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"generation: '{name}' must be a non-negative number; got {value!r}")
    return float(value)


class Generation(Evaluator):
    """One generation of the model under test: latency, tokens and cost, against optional budgets.

    Parameters:
        max_latency_ms: the longest acceptable latency, in milliseconds.
        max_cost: the highest acceptable cost of the generation (in the currency of the prices).
        max_tokens: the most prompt plus completion tokens acceptable.
    """

    name = "generation"
    helper = "measure_generation"
    description = "Latency, tokens and cost of one generation of the model under test, against optional budgets"
    requires = ()
    uses = ("actual",)
    defaults: ClassVar[Mapping[str, Any]] = {"max_latency_ms": None, "max_cost": None, "max_tokens": None}
    metrics = (
        MetricSpec("within_budget", "1 when every budget given holds (1 without budgets)", threshold=0.5, primary=True),
        MetricSpec("latency_ms", "time to the whole reply, in milliseconds", higher_is_better=False, range=(0.0, math.inf),
                   threshold=None),
        MetricSpec("prompt_tokens", "tokens of the prompt (and retrieved text)", higher_is_better=False, range=(0.0, math.inf),
                   threshold=None),
        MetricSpec("completion_tokens", "tokens of the reply", higher_is_better=False, range=(0.0, math.inf), threshold=None),
        MetricSpec("total_tokens", "prompt plus completion tokens", higher_is_better=False, range=(0.0, math.inf), threshold=None),
        MetricSpec("cost", "cost of the generation", higher_is_better=False, range=(0.0, math.inf), threshold=None),
    )

    def configure(self) -> None:
        for name in _BUDGETS:
            if self.params[name] is not None:
                require_number(self.name, name, self.params[name], low=0)

    def score(self, case: Case) -> Score:
        values: dict[str, float | None] = {name: _measure(case, name) for name in MEASURES}
        prompt, completion = values["prompt_tokens"], values["completion_tokens"]
        values["total_tokens"] = None if prompt is None and completion is None else (prompt or 0.0) + (completion or 0.0)
        broken, unknown = [], []
        for budget, metric in _BUDGETS.items():
            limit = self.params[budget]
            if limit is None:
                continue
            value = values[metric]
            if value is None:
                unknown.append(f"{budget} set but no {metric} measured")
            elif value > limit:
                broken.append(f"{metric} {value:g} > {budget} {limit:g}")
        measured = ", ".join(f"{k} {v:g}" for k, v in values.items() if v is not None) or "nothing measured"
        within = None if unknown else float(not broken)
        reason = "; ".join(broken + unknown) if broken or unknown else f"within budget: {measured}"
        return Score({"within_budget": within, **values}, reason, {"measured": measured})
