"""The session's judge: configuration, the verdict cache, metering, and what to do when no judge can answer.

With no judge configured, a judge check is skipped with a reason
(`JudgeUnavailable`), never an error. With ``--llmeval-offline``, recorded
verdicts are replayed and a check that would need a new one is skipped. In replay-only mode a missing
verdict fails the check (`ReplayMiss`). A judge that timed out
``trip_after`` calls in a row (`JudgeTimeout`) is not asked again
this run: every later check that needs a new verdict fails at once with one error that says why
(recorded verdicts are still replayed).

Every request is metered: `JudgeRunner.metered()` collects the calls, replays,
tokens and cost of the requests made inside it (a `contextvars.ContextVar`,
so concurrent checks keep their own counts); judge checks put that in each result's
details as ``judge``.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from .base import JudgeError, JudgeParseError, JudgeReply, JudgeTimeout
from .cache import VerdictCache
from .spend import SpendLedger
from ..core.errors import CheckUnavailable

__all__ = ["JudgeRunner", "JudgeUnavailable", "SKIP_PREFIX", "Usage", "fan_out", "validate_reply"]


T = TypeVar("T")


#: Every skip for want of a judge starts with this, so the controller can count them.
SKIP_PREFIX = "llmeval judge unavailable"


#: Timeouts in a row after which a judge is not asked again (the runner's ``trip_after``).
TRIP_AFTER = 3


#: What to change when a judge hangs, named in the error once it is no longer asked.
_TIMEOUT_OPTIONS = (
    "judge.timeout / judge.retries / judge.budget (llmeval_judge_timeout, llmeval_judge_retries, llmeval_judge_budget)"
)


class JudgeUnavailable(CheckUnavailable):
    """No judge can answer (none configured, or offline) and no verdict is recorded."""


@dataclass
class Usage:
    """Judge use of one check: new calls, replayed verdicts, tokens and cost of the new calls."""

    calls: int = 0
    replayed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def add(self, reply: JudgeReply, *, replayed: bool, cost: float) -> None:
        with _USAGE_LOCK:  # a check's requests may run in several threads (fan-out)
            if replayed:
                self.replayed += 1
                return
            self.calls += 1
            self.prompt_tokens += reply.prompt_tokens
            self.completion_tokens += reply.completion_tokens
            self.cost += cost

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost"] = round(self.cost, 8)
        return out


_USAGE_LOCK = threading.Lock()


_METER: ContextVar[Usage | None] = ContextVar("pytest_llmeval_judge_meter", default=None)


def validate_reply(value: Any, schema: Mapping[str, Any] | None, validators: dict[str, Any] | None = None) -> None:
    """Raise `JudgeParseError` if ``value`` does not follow ``schema`` (JSON Schema).

    ``validators`` keeps each schema's checked, compiled validator between calls (the
    session's `JudgeRunner` holds one): checking the schema itself against the
    meta-schema costs more than the reply, so it is done once per schema.
    """
    if not schema:
        return
    validator = compiled_validator(schema, {} if validators is None else validators)
    import jsonschema

    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the reply"
        raise JudgeParseError(f"the judge's JSON does not follow the schema at {where}: {error.message}")


def compiled_validator(schema: Mapping[str, Any], validators: dict[str, Any]) -> Any:
    """The validator of ``schema`` (checked against its meta-schema once), kept in ``validators``."""
    key = json.dumps(schema, sort_keys=True, default=repr)
    validator = validators.get(key)
    if validator is None:
        import jsonschema

        plain = dict(schema)
        kind = jsonschema.validators.validator_for(plain)
        kind.check_schema(plain)
        validator = validators[key] = kind(plain)
    return validator


class JudgeRunner:
    def __init__(
        self,
        judge: Any | None,
        cache: VerdictCache,
        *,
        offline: bool = False,
        why_none: str = "no judge configured",
        repeats: int = 1,
        trip_after: int = TRIP_AFTER,
        spend: SpendLedger | None = None,
    ) -> None:
        for name, value in (("repeats", repeats), ("trip_after", trip_after)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"judge runner: {name!r} must be a positive integer; got {value!r}")
        self.trip_after = trip_after
        self.spend = spend  # the run's spend limit (judge.spend_limit), shared by every runner and worker
        self._timeouts = 0  # calls in a row that timed out
        self._tripped: str | None = None  # why the judge is no longer asked
        self.repeats = repeats
        self.judge = judge
        self.cache = cache
        self.offline = offline
        self.why_none = why_none
        self.parse_failures = 0
        self.parse_failures_by: dict[str, int] = {}
        self._inflight: dict[str, threading.Lock] = {}
        self._inflight_lock = threading.Lock()
        self._validators: dict[str, Any] = {}
        self._pool: Executor | None = None
        self._pool_lock = threading.Lock()
        self._closed = False

    @contextlib.contextmanager
    def metered(self) -> Iterator[Usage]:
        """Count the judge use of the requests made inside the block."""
        usage = Usage()
        token = _METER.set(usage)
        try:
            yield usage
        finally:
            _METER.reset(token)

    def reply(
        self,
        *,
        evaluator: str,
        version: str,
        template: str,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None = None,
        repeat: int = 0,
        what: str = "",
        options: Mapping[str, Any] | None = None,
        parse: Callable[[JudgeReply], Any] | None = None,
    ) -> JudgeReply:
        """The judge's reply to ``messages``, from the cache or the judge.

        ``options`` (``temperature``, ``logprobs``) override the judge's settings for
        this request and are part of the verdict's key. A new reply that ``parse``
        rejects (`JudgeParseError`) is returned but not recorded, so the next
        run asks again instead of replaying an unusable reply.
        """
        if self.judge is None:
            # The judge's model is part of every verdict's key: without one, nothing can be looked up either.
            raise JudgeUnavailable(f"{SKIP_PREFIX}: {self.why_none}; {what or evaluator} needs a verdict")
        options = dict(options or {})
        request: dict[str, Any] = {
            "evaluator": evaluator,
            "version": version,
            "template_sha256": hashlib.sha256(template.encode()).hexdigest(),
            "judge": dict(self.judge.signature()),
            "messages": [dict(m) for m in messages],
            "schema": schema,
            "repeat": repeat,
        }
        if options:
            request["options"] = options
        # Identical requests in flight together (duplicate claims fanned out) are asked once: the others
        # wait and find the verdict in the cache, as they would one after another.
        with self._same_request(request):
            return self._reply(request, messages, schema, options, what or evaluator, parse)

    @contextlib.contextmanager
    def _same_request(self, request: Mapping[str, Any]) -> Iterator[None]:
        from .cache import verdict_key

        key = verdict_key(request)
        with self._inflight_lock:
            lock = self._inflight.setdefault(key, threading.Lock())
        with lock:
            yield

    def _reply(
        self,
        request: dict[str, Any],
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None,
        options: Mapping[str, Any],
        what: str,
        parse: Callable[[JudgeReply], Any] | None,
    ) -> JudgeReply:
        recorded = self.cache.get(request, what=what)
        meter = _METER.get()
        if recorded is not None:
            reply: JudgeReply = JudgeReply.from_record(recorded)  # the cache checked its fields
            if meter is not None:
                meter.add(reply, replayed=True, cost=0.0)
            return reply
        if self.offline:
            raise JudgeUnavailable(f"{SKIP_PREFIX}: offline (--llmeval-offline); {what} needs a new verdict")
        judge = self.judge
        if judge is None:  # reply() checked it; kept for the type checker
            raise JudgeUnavailable(f"{SKIP_PREFIX}: {self.why_none}; {what} needs a verdict")
        refused = self.spend.reserve() if self.spend is not None else None
        if refused is not None:
            raise JudgeUnavailable(f"{SKIP_PREFIX}: {refused}; {what} needs a new verdict")
        reply = self._complete(judge, messages, schema, options)
        cost_of = getattr(self.judge, "cost_of", None)
        cost = cost_of(reply) if cost_of is not None else 0.0
        if self.spend is not None:
            self.spend.settle(reply.prompt_tokens + reply.completion_tokens, cost)
        usable = True
        if parse is not None:
            try:
                parse(reply)
            except JudgeParseError:
                usable = False
        entry = {
            "text": reply.text,
            "finish_reason": reply.finish_reason,
            "model": reply.model,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
        }
        if reply.extra:
            entry["extra"] = dict(reply.extra)
        if usable:
            self.cache.put(request, entry)
        if meter is not None:
            meter.add(reply, replayed=False, cost=cost)
        return reply

    def _complete(
        self,
        judge: Any,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None,
        options: Mapping[str, Any],
    ) -> JudgeReply:
        """``judge.complete``, unless it timed out ``trip_after`` times in a row; the timeouts counted."""
        if self._tripped is not None:
            raise JudgeError(self._tripped)
        try:
            reply: JudgeReply = judge.complete(messages, schema=schema, **options)
        except JudgeTimeout as exc:
            with _USAGE_LOCK:
                self._timeouts += 1
                if self._timeouts >= self.trip_after and self._tripped is None:
                    self._tripped = (
                        f"judge {getattr(judge, 'name', judge)!r} not asked: it timed out {self._timeouts} times in a "
                        "row "
                        f"(last: {str(exc)[:300]}); every later judge check that needs a new verdict fails at once. "
                        "Check "
                        f"that the judge's server answers, or give it more time: {_TIMEOUT_OPTIONS}"
                    )
            raise
        except JudgeError:
            with _USAGE_LOCK:
                self._timeouts = 0  # the judge answered, if with an error: it does not hang
            raise
        with _USAGE_LOCK:
            self._timeouts = 0
        return reply

    def ask(self, *, evaluator: str, schema: Mapping[str, Any] | None = None, **request: Any) -> Any:
        """The parsed JSON verdict, checked against ``schema``; `JudgeParseError` (counted) if unusable."""

        def parse(reply: JudgeReply) -> Any:
            value = reply.json()
            self.validate(value, schema)
            return value

        reply = self.reply(evaluator=evaluator, schema=schema, parse=parse, **request)
        try:
            return parse(reply)
        except JudgeParseError:
            self.count_parse_failure(evaluator)
            raise

    def validate(self, value: Any, schema: Mapping[str, Any] | None) -> None:
        """`validate_reply()` with this session's compiled validators."""
        validate_reply(value, schema, self._validators)

    def count_parse_failure(self, evaluator: str) -> None:
        with _USAGE_LOCK:
            self.parse_failures += 1
            self.parse_failures_by[evaluator] = self.parse_failures_by.get(evaluator, 0) + 1

    def fan_out(self, jobs: Sequence[Callable[[], T]]) -> list[T]:
        """`fan_out()` on this session's pool (`concurrency` - 1 threads and the caller), started once and kept.

        The pool bounds one check's jobs; the judge's own limit (``max_concurrency``) bounds
        the requests in flight across the worker, prefetches included. After `close()`,
        jobs run one after another.
        """
        with self._pool_lock:
            if min(len(jobs), self.concurrency) <= 1 or self._closed:
                pool = None
            else:
                if self._pool is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._pool = ThreadPoolExecutor(
                        max_workers=self.concurrency - 1, thread_name_prefix="llmeval-judge"
                    )
                pool = self._pool
        if pool is None:
            return [job() for job in jobs]
        return fan_out(jobs, self.concurrency, pool)

    def close(self) -> None:
        """Stop the pool's threads (the requests not yet started are not sent)."""
        with self._pool_lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    @property
    def concurrency(self) -> int:
        """How many requests of one check may be in flight together (the judge's ``max_concurrency``)."""
        return max(1, int(getattr(self.judge, "max_concurrency", 1) or 1))

    def stats(self) -> dict[str, Any]:
        out = {
            "configured": self.judge is not None,
            "offline": self.offline,
            "parse_failures": self.parse_failures,
            "parse_failures_by_evaluator": dict(sorted(self.parse_failures_by.items())),
            "cache": self.cache.stats(),
            "breaker": self._tripped,
        }
        if self.judge is not None and hasattr(self.judge, "stats"):
            out.update(self.judge.stats())
        return out


def fan_out(jobs: Sequence[Callable[[], T]], concurrency: int, pool: Executor | None = None) -> list[T]:
    """Run independent judge requests together, at most ``concurrency`` at once; the results in order.

    Each job runs in a copy of the caller's context, so the test's judge meter and the
    repeat index follow it. ``pool`` is a long-lived executor to run them on (the
    session's, `JudgeRunner.fan_out()`: no threads started per check); without one, a
    pool of ``concurrency`` - 1 threads lives for this call. The caller runs the first job
    itself, and any job the pool has not started by the time the caller reaches it (the
    pool is busy, perhaps with the caller's own outer jobs): so nested fan-outs on one
    pool cannot wait on each other. The first job to fail (in order) raises; the jobs not
    yet started are then not sent.
    """
    width = min(len(jobs), max(1, concurrency))
    if width <= 1:
        return [job() for job in jobs]
    own = pool is None
    if pool is None:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=width - 1, thread_name_prefix="llmeval-judge")
    futures = [pool.submit(contextvars.copy_context().run, job) for job in jobs[1:]]
    try:
        results = [contextvars.copy_context().run(jobs[0])]
        for job, future in zip(jobs[1:], futures):
            results.append(contextvars.copy_context().run(job) if future.cancel() else future.result())
    except BaseException:
        for future in futures:
            future.cancel()  # Ctrl-C or a failure: the queued requests are not sent
        if own:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    if own:
        pool.shutdown(wait=True)
    return results
