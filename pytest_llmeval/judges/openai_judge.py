"""A judge on any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp).

The API key is read from the environment variable named in the configuration
(``llmeval_judge_api_key_env``, default ``OPENAI_API_KEY``): it never comes from
the command line and is never written to a report or the verdict cache. Retries
with backoff on timeouts, 429 and 5xx are the ``openai`` client's own
(``max_retries``); a semaphore bounds concurrent requests; tokens and cost (from
a configurable price table, per million tokens) are counted.

Structured output is negotiated: ``json_mode="auto"`` (default) first asks for the
check's JSON schema (``response_format: json_schema``); a server that rejects that
with 400/422 is asked for a plain JSON object, and then for free text, which the
tolerant parser reads. The mode that worked is kept for the rest of the run.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .base import JudgeError, JudgeReply

__all__ = ["OpenAIJudge", "JSON_MODES"]

JSON_MODES = ("auto", "schema", "object", "none")
#: A 400/422 that names the structured-output request: the server does not do that mode.
_FORMAT_ERROR = re.compile(r"response_format|json_schema|json_object|structured output|guided", re.IGNORECASE)


#: Failures of reading a reply body that the client lets through: not JSON, truncated, nested too deep.
_MALFORMED = (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError)
_SECRET = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}|\bBearer\s+[A-Za-z0-9._\-]{8,}")


def redact(text: str, key: str | None = None) -> str:
    """``text`` without the configured API key or anything shaped like a secret key (``sk-...``, a bearer token).

    >>> redact("401: Incorrect API key provided: sk-proj-abcdefgh12345678", None)
    '401: Incorrect API key provided: [redacted]'
    """
    if key and len(key) >= 4:
        text = text.replace(key, "[redacted]")
    return _SECRET.sub("[redacted]", text)


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
        json_mode: str = "auto",
        price_per_million: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("judge: 'model' must be a non-empty model name")
        if json_mode not in JSON_MODES:
            raise ValueError(f"judge: 'json_mode' must be one of {', '.join(JSON_MODES)}; got {json_mode!r}")
        if (not isinstance(price_per_million, (tuple, list)) or len(price_per_million) != 2
                or any(isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0 for p in price_per_million)):
            raise ValueError(f"judge: 'price_per_million' must be two non-negative numbers (prompt, completion); got {price_per_million!r}")
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
        self.price_per_million = (float(price_per_million[0]), float(price_per_million[1]))
        self._modes = ["schema", "object", "none"] if json_mode == "auto" else [json_mode]
        self.downgrades: list[str] = []
        self._proven = len(self._modes) == 1  # whether a structured-output mode has worked on this endpoint
        self.max_concurrency = max_concurrency
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._lock = threading.Lock()
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

    def cost_of(self, reply: JudgeReply) -> float:
        prompt, completion = self.price_per_million
        return (reply.prompt_tokens * prompt + reply.completion_tokens * completion) / 1_000_000

    @property
    def json_mode_in_use(self) -> str:
        return self._modes[0]

    def _connect(self) -> Any:
        if self._client is None:
            try:
                import openai
            except ImportError as exc:
                raise ImportError("the judge needs the openai package: pip install 'pytest-llmeval[judge]'") from exc
            key = os.environ.get(self.api_key_env) or "no-key"  # local servers need none
            self._client = openai.OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=self.max_retries)
        return self._client

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        logprobs: int = 0,
    ) -> JudgeReply:
        """One chat completion; ``logprobs`` > 0 asks for that many top alternatives per token."""
        import openai

        from ..text import replace_surrogates

        request: dict[str, Any] = {
            "model": self.model,
            # Model output may hold lone surrogates, which no HTTP body can carry.
            "messages": [{k: replace_surrogates(v) if isinstance(v, str) else v for k, v in m.items()} for m in messages],
            "temperature": self.temperature if temperature is None else temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            request["seed"] = self.seed
        if logprobs:
            request["logprobs"] = True
            request["top_logprobs"] = int(logprobs)
        modes = list(self._modes) if schema is not None else [self._modes[0]]
        first_error: Exception | None = None
        for index, mode in enumerate(modes):
            if schema is not None and mode == "schema":
                request["response_format"] = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": dict(schema)}}
            elif schema is not None and mode == "object":
                request["response_format"] = {"type": "json_object"}
            else:
                request.pop("response_format", None)
            with self._slots:
                try:
                    # An unproven structured-output mode is probed without the client's retries: a server
                    # that refuses it with a 500 would otherwise be asked again and again.
                    response = self._create(request, probe=schema is not None and not self._proven and index + 1 < len(modes))
                except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                    # Maybe the server does not do this structured-output mode: try the next one; only a
                    # success there proves it, and only then is the refused mode dropped for the run.
                    first_error = first_error or exc
                    if "response_format" in request and index + 1 < len(modes):
                        continue
                    raise JudgeError(self._failed(first_error)) from None
                except openai.APIStatusError as exc:
                    # Some servers refuse a structured-output mode with another status (llama.cpp's
                    # server answers 500 to json_schema): downgrade when the error names the format.
                    if "response_format" in request and index + 1 < len(modes) and _FORMAT_ERROR.search(str(exc)):
                        first_error = first_error or exc
                        continue
                    raise JudgeError(self._failed(exc)) from None
                except openai.OpenAIError as exc:
                    raise JudgeError(self._failed(exc)) from None
                except _MALFORMED as exc:
                    raise JudgeError(self._failed(exc, "the server's reply could not be read")) from None
            if index and _FORMAT_ERROR.search(str(first_error)):
                with self._lock:
                    if mode in self._modes and self._modes.index(mode) > 0:
                        dropped = self._modes[: self._modes.index(mode)]
                        self._modes = self._modes[self._modes.index(mode):]
                        self.downgrades.append(f"{' -> '.join(dropped)} -> {mode}: {' '.join(str(first_error).split())[:120]}")
            self._proven = self._proven or schema is not None
            break
        self.calls += 1
        try:
            choice = response.choices[0]
            text = choice.message.content or ""
        except (IndexError, AttributeError, TypeError) as exc:
            raise JudgeError(self._failed(exc, "the reply has no choice with a message")) from None
        usage = response.usage
        prompt = getattr(usage, "prompt_tokens", 0) or 0
        completion = getattr(usage, "completion_tokens", 0) or 0
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        extra: dict[str, Any] = {}
        content = getattr(choice.logprobs, "content", None) if logprobs else None
        if content:
            extra["top_logprobs"] = [
                {"token": t.token, "logprob": t.logprob, "top": {alt.token: alt.logprob for alt in (t.top_logprobs or [])}}
                for t in content
            ]
        return JudgeReply(
            text=text,
            finish_reason=choice.finish_reason or "stop",
            prompt_tokens=prompt,
            completion_tokens=completion,
            model=response.model or self.model,
            extra=extra,
        )

    def _create(self, request: dict[str, Any], probe: bool = False) -> Any:
        """One request; a reply that cannot be parsed (malformed, truncated, nested too deep) is asked again.

        A ``probe`` is sent once: an error that names the response format is raised at once (the
        caller downgrades), while a transient fault (429, 5xx, an unreadable reply) is asked again
        with the usual retries.
        """
        if probe:
            import openai

            try:
                return _send(self._connect().with_options(max_retries=0), request)
            except openai.APIStatusError as exc:
                if (_FORMAT_ERROR.search(str(exc)) or not (exc.status_code == 429 or exc.status_code >= 500)
                        or self.max_retries < 1):
                    raise
            except (*_MALFORMED, openai.APIConnectionError):  # a timeout or refused connection says nothing of the format
                if self.max_retries < 1:
                    raise
        retries = self.max_retries - 1 if probe else self.max_retries  # the probe was the first attempt
        client = self._connect() if retries == self.max_retries else self._connect().with_options(max_retries=retries)
        attempts = max(1, retries + 1)
        for attempt in range(attempts):
            try:
                return _send(client, request)
            except _MALFORMED:
                if attempt + 1 == attempts:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _failed(self, exc: BaseException, what: str = "") -> str:
        """The error text, with the API key and anything shaped like a secret key removed."""
        detail = f"{what}: " if what else ""
        text = f"judge {self.model!r} at {self.base_url or 'the OpenAI API'} failed: {detail}{type(exc).__name__}: {str(exc)[:500]}"
        return redact(text, os.environ.get(self.api_key_env))

    def stats(self) -> dict[str, Any]:
        return {"model": self.model, "calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost": round(self.cost, 6), "json_mode": self.json_mode_in_use,
                "json_mode_downgrades": list(self.downgrades)}


def _send(client: Any, request: Mapping[str, Any]) -> Any:
    """``chat.completions.create`` with the request's fields sent as they are.

    The client rewrites typed arguments field by field (its ``maybe_transform``), about
    a millisecond of CPU per request that the verdicts of a check, sent together,
    would each wait on. Every field here is plain JSON already, so all but the model
    travel in ``extra_body``, which the client merges into the body unchanged.
    """
    body = {key: value for key, value in request.items() if key != "model"}
    return client.chat.completions.create(model=request["model"], messages=[], extra_body=body)
