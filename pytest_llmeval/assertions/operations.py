"""Record one generation of the model under test: latency, tokens, cost, against optional budgets."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ..result import Result
from .core import assert_check

__all__ = ["Measurement", "measure_generation", "record_generation"]


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
    if isinstance(price, (str, bytes)) or len(price) != 2 or any(isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0
                                                                 for p in price):
        raise TypeError(f"generation: argument 'price' must be (prompt, completion) prices per million tokens; got {price!r}")
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
    metadata = {k: v for k, v in (("latency_ms", latency_ms), ("prompt_tokens", prompt_tokens),
                                  ("completion_tokens", completion_tokens), ("cost", cost)) if v is not None}
    params = {"max_latency_ms": max_latency_ms, "max_cost": max_cost, "max_tokens": max_tokens}
    return assert_check("generation", actual=text, metadata=metadata, params=params, **kwargs)


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
    record_generation(latency_ms=measured.latency_ms, prompt_tokens=measured.prompt_tokens,
                      completion_tokens=measured.completion_tokens, cost=measured.cost, price=price, text=measured.text,
                      max_latency_ms=max_latency_ms, max_cost=max_cost, max_tokens=max_tokens, **kwargs)
