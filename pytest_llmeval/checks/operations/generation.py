"""Record one generation of the model under test: latency, tokens, cost, against optional budgets."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from ...kit import check
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_number
from ...kit import Result

__all__ = ["Measurement", "measure_generation", "record_generation", "Generation", "MEASURES"]


def _field(source: Any, *names: str) -> Any:
    for name in names:
        value = source.get(name) if isinstance(source, Mapping) else getattr(source, name, None)
        if value is not None:
            return value
    return None


class Measurement:
    """What ``measure_generation`` measures; the test fills in what the clock cannot see."""

    def __init__(self) -> None:
        self.latency_ms: float | None = None
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.cost: float | None = None
        self.text: str = ""

    def usage(self, response: Any) -> Any:
        """Read tokens (and the reply's text) off an OpenAI-style response, object or dict; returns the response.

        ``usage.prompt_tokens`` / ``completion_tokens`` (OpenAI), or ``input_tokens`` / ``output_tokens``.
        """
        usage = _field(response, "usage")
        if usage is not None:
            self.prompt_tokens = _field(usage, "prompt_tokens", "input_tokens")
            self.completion_tokens = _field(usage, "completion_tokens", "output_tokens")
        choices = _field(response, "choices")
        if isinstance(choices, Sequence) and choices:
            message = _field(choices[0], "message")
            content = _field(message, "content") if message is not None else _field(choices[0], "text")
            if isinstance(content, str):
                self.text = content
        return response

    def tokens(self, prompt: int | None = None, completion: int | None = None) -> None:
        self.prompt_tokens, self.completion_tokens = prompt, completion


def _cost(prompt: int | None, completion: int | None, price: Sequence[float] | None) -> float | None:
    if price is None:
        return None
    if (
        isinstance(price, (str, bytes))
        or len(price) != 2
        or any(isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0 for p in price)
    ):
        raise TypeError(
            f"generation: argument 'price' must be (prompt, completion) prices per million tokens; got {price!r}"
        )
    if prompt is None and completion is None:
        return None
    return ((prompt or 0) * price[0] + (completion or 0) * price[1]) / 1_000_000


def record_generation(
    *,
    latency_ms: float | None = None,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    cost: float | None = None,
    price: Sequence[float] | None = None,
    text: str = "",
    max_latency_ms: float | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    **kwargs: Any,
) -> Result:
    """Record one generation's numbers; fails when a budget given is exceeded.

    ``price``: (prompt, completion) price per million tokens, for the cost when ``cost`` is not given.
    """
    __tracebackhide__ = True
    if cost is None:
        cost = _cost(prompt_tokens, completion_tokens, price)
    metadata = {
        k: v
        for k, v in (
            ("latency_ms", latency_ms),
            ("prompt_tokens", prompt_tokens),
            ("completion_tokens", completion_tokens),
            ("cost", cost),
        )
        if v is not None
    }
    params = {"max_latency_ms": max_latency_ms, "max_cost": max_cost, "max_tokens": max_tokens}
    return check(Generation, actual=text, metadata=metadata, params=params, **kwargs)


@contextmanager
def measure_generation(
    *,
    price: Sequence[float] | None = None,
    max_latency_ms: float | None = None,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    **kwargs: Any,
) -> Iterator[Measurement]:
    """Time the block as one generation of the model under test and record it on leaving.

    ::

        with measure_generation(price=(0.15, 0.60), max_latency_ms=3000) as gen:
            reply = gen.usage(client.chat.completions.create(model=..., messages=...))

    Nothing is recorded when the block raises (the test fails with that error).
    """
    __tracebackhide__ = True
    measured = Measurement()
    start = time.perf_counter()
    yield measured
    measured.latency_ms = round((time.perf_counter() - start) * 1000, 3)
    record_generation(
        latency_ms=measured.latency_ms,
        prompt_tokens=measured.prompt_tokens,
        completion_tokens=measured.completion_tokens,
        cost=measured.cost,
        price=price,
        text=measured.text,
        max_latency_ms=max_latency_ms,
        max_cost=max_cost,
        max_tokens=max_tokens,
        **kwargs,
    )


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
        MetricSpec(
            "latency_ms",
            "time to the whole reply, in milliseconds",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=None,
        ),
        MetricSpec(
            "prompt_tokens",
            "tokens of the prompt (and retrieved text)",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=None,
        ),
        MetricSpec(
            "completion_tokens", "tokens of the reply", higher_is_better=False, range=(0.0, math.inf), threshold=None
        ),
        MetricSpec(
            "total_tokens",
            "prompt plus completion tokens",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=None,
        ),
        MetricSpec("cost", "cost of the generation", higher_is_better=False, range=(0.0, math.inf), threshold=None),
    )

    def configure(self) -> None:
        for name in _BUDGETS:
            if self.params[name] is not None:
                require_number(self.name, name, self.params[name], low=0)

    def score(self, case: Case) -> Score:
        values: dict[str, float | None] = {name: _measure(case, name) for name in MEASURES}
        prompt, completion = values["prompt_tokens"], values["completion_tokens"]
        values["total_tokens"] = (
            None if prompt is None and completion is None else (prompt or 0.0) + (completion or 0.0)
        )
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
