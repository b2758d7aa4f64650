"""Deferred checks: a check whose verdict its test does not need at once records its inputs and returns; the queued
checks of many tests are then scored together, one batch per check (one encode, one parse, one judge fan-out).

The harness (`pytest_llmeval.harness.deferring`) gives a test's context a `Queue` when the test may defer (the
aggregate gate, ``@pytest.mark.llmeval(defer=True)``, the ``llmeval_deferred`` fixture). `defer()` then checks
the call's arguments as the check would (a wrong argument still fails at the call) and queues an `Entry`; the
helper returns a `DeferredResult`, which scores the queue when the test reads it. `Queue.score()` scores what is
queued: each check's cases in one batch (an entry that breaks a batch is scored alone, so one bad case costs no
other test its verdict), decided by the run's detector and judge as in place, and records each result on its own
test in the order the checks were called. What the test's report must show (a failed check under the per-test
gate, a skip) is left on the entry for the harness, which holds the reports until then.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.errors import CheckUnavailable, ScoringError, SetupError, VerdictMissing
from ..core.result import Result

if TYPE_CHECKING:
    from ..core.case import Case
    from ..core.evaluator import Evaluator
    from .recording import TestContext

__all__ = ["Entry", "Queue", "DeferredResult", "Outcome"]


@dataclass(frozen=True)
class Outcome:
    """What a deferred check does to its test's report: ``failed`` or ``skipped``, with the message; ``gated``: a
    verdict's failure, which fails the test only under the per-test gate (an error fails it under either gate)."""

    outcome: str
    message: str
    gated: bool = False


@dataclass(eq=False)
class Entry:
    """One queued check: its session instance, its case and how its verdict is judged."""

    evaluator: Evaluator
    case: Case
    thresholds: Mapping[str, float | None]
    action: str  # what an unverified verdict makes of ``passed`` (pass, fail, skip)
    tiers: tuple[str | None, str | None]  # the call's detector and verifier (None: the run's)
    context: TestContext
    length: int | None  # the answer's length, for the message
    where: str | None = None  # file:line of the call, for the message
    result: Result | None = None
    outcome: Outcome | None = None
    scored: bool = False
    raised: bool = False  # the outcome was raised in the test (it read the result)

    def group(self) -> tuple[int, str, str, tuple[str | None, str | None]]:
        return id(self.evaluator), json.dumps(self.thresholds, sort_keys=True), self.action, self.tiers


class Queue:
    """The checks a process has deferred and not yet scored (one per session: `pytest_llmeval.harness.deferring`)."""

    def __init__(self) -> None:
        self.pending: list[Entry] = []
        self.made: list[Entry] = []  # every entry queued, until the harness takes those of a test
        self.batches = 0
        self.scored = 0

    def add(self, *fields: Any) -> DeferredResult:
        """Queue a check (the fields of an `Entry`); what the helper returns in its place."""
        entry = Entry(*fields)
        self.pending.append(entry)
        self.made.append(entry)
        return DeferredResult.of(entry, self)

    def score(self) -> None:
        """Score every queued check, a batch per check, and record the results on their tests; never raises."""
        entries, self.pending = self.pending, []
        if not entries:
            return
        groups: dict[tuple[int, str, str, tuple[str | None, str | None]], list[Entry]] = {}
        for entry in entries:
            groups.setdefault(entry.group(), []).append(entry)
        for group in groups.values():
            self._score_group(group)
        for entry in entries:  # recorded in the order the checks were called
            _record(entry)
        self.scored += len(entries)

    def _score_group(self, group: list[Entry]) -> None:
        self.batches += 1
        first = group[0]
        try:
            results = _decided(first, [entry.case for entry in group])
        except Exception as exc:  # noqa: BLE001 - each entry's outcome says what happened; no test loses its verdict
            if len(group) > 1 and not isinstance(exc, (CheckUnavailable, SetupError, ImportError)):
                for entry in group:  # one bad case: the others are scored without it
                    self._score_group([entry])
                return
            for entry in group:
                _failed(entry, exc)
            return
        for entry, result in zip(group, results):
            entry.result = entry.context.calibrated([result])[0]


def _decided(entry: Entry, cases: list[Case]) -> list[Result]:
    """The check's results on ``cases``, decided by the run's detector and judge as `run_cases()` decides them."""
    from .tiers import decide_unverified

    evaluator = entry.evaluator
    results = evaluator.evaluate(cases, thresholds=entry.thresholds, unverified=entry.action)
    return decide_unverified(evaluator, entry.context, cases, results, entry.action, entry.tiers)


def _failed(entry: Entry, exc: BaseException) -> None:
    """An entry whose check raised: the outcome in-place scoring gives that error (errors keep a record, as there)."""
    name = entry.evaluator.name
    if isinstance(exc, CheckUnavailable):
        entry.outcome = Outcome("skipped", str(exc))
        return
    if isinstance(exc, (VerdictMissing, ScoringError)):
        why = f"judge verdict missing: {exc}" if isinstance(exc, VerdictMissing) else f"judge error: {exc}"
        entry.result = entry.evaluator.error_results([entry.case], entry.thresholds, why)[0]
        entry.outcome = Outcome(
            "failed", f"llmeval: {exc}" if isinstance(exc, VerdictMissing) else f"llmeval {name}: {why}"
        )
        return
    if isinstance(exc, (SetupError, ImportError)):
        entry.outcome = Outcome("failed", f"llmeval: {exc}")
        return
    entry.outcome = Outcome("failed", f"llmeval {name} raised {type(exc).__name__}: {exc}"[:2000])


def _record(entry: Entry) -> None:
    from .check import masked_values
    from .message import format_failure

    entry.scored = True
    result, context = entry.result, entry.context
    if result is None:
        return
    context.mask(masked_values([entry.case], [result]))
    context.record(result)
    if entry.outcome is not None:
        return
    if not result.passed:
        called = f"\n  called at: {entry.where} (a deferred check, scored after its test ran)" if entry.where else ""
        entry.outcome = Outcome("failed", format_failure(result, entry.length) + called, gated=True)
    elif result.verdict == "unverified" and entry.action == "skip":
        entry.outcome = Outcome("skipped", f"llmeval {result.evaluator} unverified: {result.reason[:300]}")


class DeferredResult(Result):
    """What a deferred check returns: reading any of its fields scores the queue first (the whole of it, one batch per
    check), so a test that reads its verdict gets it, and a failure the per-test gate would raise is raised there."""

    __slots__ = ()

    @classmethod
    def of(cls, entry: Entry, queue: Queue) -> DeferredResult:
        made = object.__new__(cls)
        object.__setattr__(made, "_entry", entry)
        object.__setattr__(made, "_queue", queue)
        return made

    def __getattribute__(self, name: str) -> Any:
        __tracebackhide__ = True
        if name.startswith("__") or name in ("_entry", "_queue", "_resolved"):
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "_resolved")(), name)

    def _resolved(self) -> Result:
        __tracebackhide__ = True
        entry: Entry = object.__getattribute__(self, "_entry")
        if not entry.scored:
            object.__getattribute__(self, "_queue").score()
        from .recording import current_context

        if entry.outcome is not None and not entry.raised and current_context() is entry.context:
            _raise(entry)
        if entry.result is None:
            raise RuntimeError(
                f"llmeval {entry.evaluator.name}: the deferred check has no result: "
                f"{entry.outcome.message if entry.outcome else 'not scored'}"[:500]
            )
        return entry.result

    def __eq__(self, other: object) -> bool:
        return self._resolved() == (other._resolved() if isinstance(other, DeferredResult) else other)

    def __hash__(self) -> int:
        return hash(self._resolved())

    def __repr__(self) -> str:
        entry: Entry = object.__getattribute__(self, "_entry")
        if not entry.scored:
            return f"<deferred {entry.evaluator.name} result, not scored yet>"
        return repr(entry.result)


def _raise(entry: Entry) -> None:
    """In the test that reads a deferred result: its outcome as in-place scoring raises it."""
    __tracebackhide__ = True
    import pytest

    from .check import LLMEvalAssertionError

    outcome = entry.outcome
    assert outcome is not None
    if outcome.gated and entry.context.gate == "aggregate":
        return
    entry.raised = True
    if outcome.outcome == "skipped":
        pytest.skip(outcome.message)
    if outcome.gated and entry.result is not None:
        raise LLMEvalAssertionError(outcome.message, entry.result)
    pytest.fail(outcome.message, pytrace=False)
