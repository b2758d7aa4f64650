"""A judge on any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp).

The API key is read from the environment variable named in the configuration
(``llmeval_judge_api_key_env``, default ``OPENAI_API_KEY``): it never comes from
the command line and is never written to a report or the verdict cache (a reply
that echoes it is redacted, as error bodies are). A request that times out, loses its
connection, gets 408, 409, 429 or 5xx, or an unreadable reply, is asked again up to
``max_retries`` times with backoff (or the server's ``retry-after``), while the call's
``budget`` of seconds lasts; no reply in time is a `JudgeTimeout`. A
semaphore bounds concurrent requests; tokens and cost (from a configurable price
table, per million tokens) are counted.

Structured output is negotiated: ``json_mode="auto"`` (default) first asks for the
check's JSON schema (``response_format: json_schema``); a server that rejects that
with 400/422 is asked for a plain JSON object, and then for free text, which the
tolerant parser reads. The mode that worked is kept for the rest of the run.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .base import JudgeError, JudgeReply, JudgeTimeout

__all__ = ["OpenAIJudge", "JSON_MODES"]


JSON_MODES = ("auto", "schema", "object", "none")


#: A 400/422 that names the structured-output request: the server does not do that mode.
_FORMAT_ERROR = re.compile(r"response_format|json_schema|json_object|structured output|guided", re.IGNORECASE)


#: Failures of reading a reply body that the client lets through: not JSON, truncated, nested too deep.
_MALFORMED = (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError)


_SECRET = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}|\bBearer\s+[A-Za-z0-9._\-]{8,}")


def _openai() -> Any:
    """The ``openai`` module, or an ``ImportError`` naming the extra that installs it."""
    try:
        import openai
    except ImportError as exc:
        raise ImportError("the judge needs the openai package: pip install 'pytest-llm-verdict[judge]'") from exc
    return openai


class _Tries:
    """The attempts of one judge call, and when its budget started."""

    def __init__(self) -> None:
        self.attempts = 0
        self.started: float | None = None
        self.spent = False  # the budget ran out before the retries did

    def elapsed(self) -> float:
        if self.started is None:
            self.started = time.monotonic()
        return time.monotonic() - self.started


def redact(text: str, key: str | None = None) -> str:
    """``text`` without the configured API key or anything shaped like a secret key (``sk-...``, a bearer token).

    >>> redact("401: Incorrect API key provided: sk-proj-abcdefgh12345678", None)
    '401: Incorrect API key provided: [redacted]'
    """
    if key and len(key) >= 4:
        text = text.replace(key, "[redacted]")
    return _SECRET.sub("[redacted]", text)


class OpenAIJudge:
    """Chat completions through the ``openai`` client (``pip install 'pytest-llm-verdict[judge]'``)."""

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
        budget: float = 120.0,
        max_concurrency: int = 4,
        json_mode: str = "auto",
        price_per_million: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("judge: 'model' must be a non-empty model name")
        if json_mode not in JSON_MODES:
            raise ValueError(f"judge: 'json_mode' must be one of {', '.join(JSON_MODES)}; got {json_mode!r}")
        if (
            not isinstance(price_per_million, (tuple, list))
            or len(price_per_million) != 2
            or any(isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0 for p in price_per_million)
        ):
            raise ValueError(
                "judge: 'price_per_million' must be two non-negative numbers (prompt, completion); got "
                f"{price_per_million!r}"
            )
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"judge: 'max_retries' must be a non-negative integer; got {max_retries!r}")
        for name, value in (("timeout", timeout), ("budget", budget)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"judge: {name!r} must be a positive number of seconds; got {value!r}")
        self.name = model
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        #: Seconds one call may take, retries and their waits included; never less than one attempt's ``timeout``.
        self.budget = float(budget)
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
        """The client; it never retries by itself (`_create()` does, within the budget)."""
        if self._client is None:
            openai = _openai()
            key = os.environ.get(self.api_key_env) or "no-key"  # local servers need none
            from ..models.config import CLIENT_HEADER

            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=key,
                timeout=self.timeout,
                max_retries=0,
                default_headers={CLIENT_HEADER: "judge"},
            )
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
        openai = _openai()

        from ..text.basics import replace_surrogates

        request: dict[str, Any] = {
            "model": self.model,
            # Model output may hold lone surrogates, which no HTTP body can carry.
            "messages": [
                {k: replace_surrogates(v) if isinstance(v, str) else v for k, v in m.items()} for m in messages
            ],
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
        tries = _Tries()  # one budget for the whole call, downgrades included
        for index, mode in enumerate(modes):
            if schema is not None and mode == "schema":
                request["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "verdict", "schema": dict(schema)},
                }
            elif schema is not None and mode == "object":
                request["response_format"] = {"type": "json_object"}
            else:
                request.pop("response_format", None)
            with self._slots:
                try:
                    # An unproven structured-output mode is probed without the client's retries: a server
                    # that refuses it with a 500 would otherwise be asked again and again.
                    response = self._create(
                        request, tries, probe=schema is not None and not self._proven and index + 1 < len(modes)
                    )
                except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                    # Maybe the server does not do this structured-output mode: try the next one; only a
                    # success there proves it, and only then is the refused mode dropped for the run.
                    first_error = first_error or exc
                    if "response_format" in request and index + 1 < len(modes):
                        continue
                    raise JudgeError(self._failed(first_error, tries=tries)) from None
                except openai.APIStatusError as exc:
                    # Some servers refuse a structured-output mode with another status (llama.cpp's
                    # server answers 500 to json_schema): downgrade when the error names the format.
                    if "response_format" in request and index + 1 < len(modes) and _FORMAT_ERROR.search(str(exc)):
                        first_error = first_error or exc
                        continue
                    raise JudgeError(self._failed(exc, tries=tries)) from None
                except openai.APITimeoutError as exc:
                    raise JudgeTimeout(self._failed(exc, tries=tries)) from None
                except openai.OpenAIError as exc:
                    raise JudgeError(self._failed(exc, tries=tries)) from None
                except _MALFORMED as exc:
                    raise JudgeError(self._failed(exc, "the server's reply could not be read", tries)) from None
            if index and _FORMAT_ERROR.search(str(first_error)):
                with self._lock:
                    if mode in self._modes and self._modes.index(mode) > 0:
                        dropped = self._modes[: self._modes.index(mode)]
                        self._modes = self._modes[self._modes.index(mode) :]
                        self.downgrades.append(
                            f"{' -> '.join(dropped)} -> {mode}: {' '.join(str(first_error).split())[:120]}"
                        )
            self._proven = self._proven or schema is not None
            break
        self.calls += 1
        try:
            choice = response.choices[0]
            # A reply that echoes the API key (a misconfigured proxy, a prompt injection) must not reach the
            # verdict cache or a report: redacted here, as error bodies are.
            text = redact(choice.message.content or "", os.environ.get(self.api_key_env))
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
                {
                    "token": t.token,
                    "logprob": t.logprob,
                    "top": {alt.token: alt.logprob for alt in (t.top_logprobs or [])},
                }
                for t in content
            ]
        return JudgeReply(
            text=text,
            finish_reason=choice.finish_reason or "stop",
            prompt_tokens=prompt,
            completion_tokens=completion,
            model=redact(str(response.model or self.model), os.environ.get(self.api_key_env)),
            extra=extra,
        )

    def _create(self, request: dict[str, Any], tries: _Tries, probe: bool = False) -> Any:
        """One request, asked again after a transient fault up to ``max_retries`` times while the budget lasts.

        Transient: a timeout, a lost connection, 408, 409, 429 or 5xx (as the ``openai`` client
        decides, ``x-should-retry`` included), or a reply that cannot be read (malformed, truncated,
        nested too deep). Each attempt gets at most what is left of the budget, and no wait for a
        retry starts that would end past it. A ``probe``'s error that names the response format is
        raised at once (the caller downgrades).
        """
        openai = _openai()
        client = self._connect()
        budget = max(self.budget, self.timeout)  # the budget never cuts the first attempt short
        for attempt in range(self.max_retries + 1):
            left = budget - tries.elapsed()
            tries.attempts += 1
            try:
                return _send(client, request, min(self.timeout, left))
            except openai.APIStatusError as exc:
                if (probe and _FORMAT_ERROR.search(str(exc))) or not _transient(exc):
                    raise
                error: BaseException = exc
                wait = _retry_after(exc)
            except (*_MALFORMED, openai.APIConnectionError) as exc:  # APITimeoutError is a connection error
                error, wait = exc, None
            if attempt == self.max_retries:
                break
            wait = _backoff(attempt) if wait is None else wait
            if tries.elapsed() + wait >= budget:
                tries.spent = True
                break
            time.sleep(wait)
        raise error

    def _failed(self, exc: BaseException, what: str = "", tries: _Tries | None = None) -> str:
        """The error text (with the attempts made), the API key and anything shaped like a secret key removed."""
        detail = f"{what}: " if what else ""
        text = (
            f"judge {self.model!r} at {self.base_url or 'the OpenAI API'} failed: "
            f"{detail}{type(exc).__name__}: {str(exc)[:500]}"
        )
        if tries is not None and tries.attempts:
            text += f" ({tries.attempts} attempt{'s' * (tries.attempts != 1)} in {tries.elapsed():.1f} s"
            text += f"; the budget of {max(self.budget, self.timeout):g} s spent)" if tries.spent else ")"
        return redact(text, os.environ.get(self.api_key_env))

    def stats(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": round(self.cost, 6),
            "json_mode": self.json_mode_in_use,
            "json_mode_downgrades": list(self.downgrades),
        }


def _transient(exc: Any) -> bool:
    """Whether an HTTP error is worth asking again, as the ``openai`` client decides."""
    verdict = exc.response.headers.get("x-should-retry")
    if verdict in ("true", "false"):
        return bool(verdict == "true")
    return bool(exc.status_code in (408, 409, 429) or exc.status_code >= 500)


def _retry_after(exc: Any) -> float | None:
    """The wait the server asks for (``retry-after-ms``, ``retry-after`` in seconds or as a date), up to 60 s."""
    headers = exc.response.headers
    wait: float | None = None
    try:
        if headers.get("retry-after-ms"):
            wait = float(headers["retry-after-ms"]) / 1000
        elif headers.get("retry-after"):
            text = headers["retry-after"]
            try:
                wait = float(text)
            except ValueError:
                from email.utils import parsedate_to_datetime

                wait = parsedate_to_datetime(text).timestamp() - time.time()
    except (ValueError, TypeError, OverflowError):
        return None
    return wait if wait is not None and 0 < wait <= 60 else None


def _backoff(attempt: int) -> float:
    """The wait before retry ``attempt + 1``: 0.5 s doubling to at most 8 s, less up to a quarter (jitter), as the
    client's."""
    return min(0.5 * 2.0**attempt, 8.0) * (1 - 0.25 * random.random())


def _send(client: Any, request: Mapping[str, Any], timeout: float) -> Any:
    """``chat.completions.create`` with the request's fields sent as they are.

    The client rewrites typed arguments field by field (its ``maybe_transform``), about
    a millisecond of CPU per request that the verdicts of a check, sent together,
    would each wait on. Every field here is plain JSON already, so all but the model
    travel in ``extra_body``, which the client merges into the body unchanged.
    ``timeout`` is this attempt's, in seconds.
    """
    body = {key: value for key, value in request.items() if key != "model"}
    return client.chat.completions.create(model=request["model"], messages=[], extra_body=body, timeout=timeout)
