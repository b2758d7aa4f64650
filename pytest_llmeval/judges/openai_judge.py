"""A judge on any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp).

The API key is read from the environment variable named in the configuration
(``llmeval_judge_api_key_env``, default ``OPENAI_API_KEY``): it never comes from
the command line and is never written to a report or the verdict cache. Retries
with backoff on timeouts, 429 and 5xx are the ``openai`` client's own
(``max_retries``); a semaphore bounds concurrent requests; tokens and cost (from
a configurable price table, per million tokens) are counted.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .base import JudgeError, JudgeReply

__all__ = ["OpenAIJudge"]


class OpenAIJudge:
    """Chat completions through the ``openai`` client (``pip install 'pytest-llmeval[judge]'``)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 1024,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_concurrency: int = 4,
        json_mode: str = "object",
        price_per_million: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("judge: 'model' must be a non-empty model name")
        if json_mode not in ("schema", "object", "none"):
            raise ValueError(f"judge: 'json_mode' must be one of 'schema', 'object', 'none'; got {json_mode!r}")
        self.name = model
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self.json_mode = json_mode
        self.price_per_million = price_per_million
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._client: Any = None
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def signature(self) -> Mapping[str, Any]:
        return {"model": self.model, "temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}

    @property
    def cost(self) -> float:
        prompt, completion = self.price_per_million
        return (self.prompt_tokens * prompt + self.completion_tokens * completion) / 1_000_000

    def _connect(self) -> Any:
        if self._client is None:
            try:
                import openai
            except ImportError as exc:
                raise ImportError("the judge needs the openai package: pip install 'pytest-llmeval[judge]'") from exc
            key = os.environ.get(self.api_key_env) or "no-key"  # local servers need none
            self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=self.max_retries)
        return self._client

    def complete(self, messages: Sequence[Mapping[str, str]], *, schema: Mapping[str, Any] | None = None) -> JudgeReply:
        import openai

        request: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            request["seed"] = self.seed
        if schema is not None and self.json_mode == "schema":
            request["response_format"] = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": dict(schema)}}
        elif schema is not None and self.json_mode == "object":
            request["response_format"] = {"type": "json_object"}
        with self._slots:
            try:
                response = self._connect().chat.completions.create(**request)
            except openai.OpenAIError as exc:
                raise JudgeError(f"judge {self.model!r} at {self.base_url or 'the OpenAI API'} failed: {type(exc).__name__}: {exc}") from None
        self.calls += 1
        choice = response.choices[0]
        usage = response.usage
        prompt = getattr(usage, "prompt_tokens", 0) or 0
        completion = getattr(usage, "completion_tokens", 0) or 0
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        return JudgeReply(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason or "stop",
            prompt_tokens=prompt,
            completion_tokens=completion,
            model=response.model or self.model,
        )

    def stats(self) -> dict[str, Any]:
        return {"model": self.model, "calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost": round(self.cost, 6)}
