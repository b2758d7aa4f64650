"""Deferred scoring across tests: the pytest side of `pytest_llmeval.run.deferred`.

A test that needs no verdict at once (``--llmeval-gate=aggregate``, ``@pytest.mark.llmeval(defer=True)``, the
``llmeval_deferred`` fixture; ``--llmeval-defer=off`` switches it off) runs its phases as pytest's
``pytest_runtest_protocol`` documents them (set-up, call, teardown; each made into a report by
``pytest_runtest_makereport``), while its checks only queue their inputs. Its reports are held. Every TESTS held tests
or SECONDS seconds, before a test that scores in place, and at the end of the run loop (in each xdist worker), the
queue is scored, one batch per check, each result recorded on its own test; then each held test's reports get its
records and, where in-place scoring would have failed or skipped the test, that outcome, and are logged as pytest
logs them. So the records, the JUnit properties, the outcomes and every report are those of in-place scoring.

Under xdist a worker announces a test when it starts (``pytest_runtest_logstart``); the controller lists a test
that started and was never reported (its worker died holding it) as crashed, with its checks not scored. xdist's
worker sends each report as one of the test it ran last (``item_index``): a held report is sent as its own test's, and
a worker whose xdist has no such attribute scores in place.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from ..run.deferred import Entry, Queue
    from .context import CheckingContext
    from .session import EvalSession

__all__ = ["Deferring", "context_key", "FIXTURE"]


#: Where the running test's context is kept (the plugin's ``pytest_runtest_protocol`` wrapper sets it).
context_key = pytest.StashKey["CheckingContext"]()

#: The fixture that makes a test defer its checks.
FIXTURE = "llmeval_deferred"

#: pytest options under which a test's phases must run as pytest runs them (a debugger, set-up only or shown).
_INTERACTIVE = ("usepdb", "trace", "setuponly", "setupshow")


@dataclass(eq=False)
class _Held:
    item: pytest.Item
    context: CheckingContext
    reports: list[pytest.TestReport]
    entries: list[Entry] = field(default_factory=list)


class Deferring:
    """One per run and process (registered as the plugin ``llmeval-defer``)."""

    def __init__(self, session: EvalSession) -> None:
        self.session = session
        self.held: list[_Held] = []
        self.since: float | None = None
        self.started: dict[str, None] = {}  # the controller: tests announced and not yet reported
        self.tests = 0  # tests whose checks were deferred
        self.unscored = 0  # checks an interrupted run never scored
        self._queue: Queue | None = None
        self._found: tuple[Any] | None = None  # xdist's worker-side reporter, once looked for
        self._indices: dict[str, int] | None = None  # test id -> its index in the session's items (xdist's numbering)

    @property
    def queue(self) -> Queue:
        if self._queue is None:
            from ..run.deferred import Queue

            self._queue = Queue()
        return self._queue

    def wants(self, item: pytest.Item, context: CheckingContext) -> bool:
        """Whether ``item`` defers its checks: the closest marker's ``defer=``, else the fixture or the aggregate
        gate."""
        if self.session.settings.defer[0] == "off" or context.tags.get("auto"):
            return False  # repeat=auto decides whether to draw again from each draw's report: it needs them at once
        if any(item.config.getoption(name, False) for name in _INTERACTIVE) or (
            self.session.is_worker and self._sender(item) is None
        ):
            return False
        for marker in item.iter_markers("llmeval"):
            if "defer" in marker.kwargs:
                return bool(marker.kwargs["defer"])
        return FIXTURE in getattr(item, "fixturenames", ()) or context.gate == "aggregate"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        context = item.stash.get(context_key, None)
        if context is None or not self.wants(item, context):
            self.release()  # a test that scores in place: the held tests go first
            return None
        ihook = item.ihook
        if self.session.is_worker:  # the controller learns the test started (see the module's docstring)
            ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        queue = self.queue
        made = len(queue.made)
        context.deferred = queue
        try:
            reports = self._run(item, nextitem)
        finally:
            context.deferred = None
        self.held.append(_Held(item, context, reports, queue.made[made:]))
        del queue.made[made:]
        self.tests += 1
        self.since = self.since if self.since is not None else time.monotonic()
        _, tests, seconds = self.session.settings.defer
        session = item.session
        if (
            nextitem is None
            or len(self.held) >= tests
            or time.monotonic() - self.since >= seconds
            or session.shouldfail
            or session.shouldstop
        ):
            self.release()
        return True

    @staticmethod
    def _run(item: pytest.Item, nextitem: pytest.Item | None) -> list[pytest.TestReport]:
        """The test's phases as ``pytest_runtest_protocol`` documents them, their reports made and not yet logged."""
        reports = [_phase(item, "setup")]
        if reports[0].passed:
            reports.append(_phase(item, "call"))
        if item.session.shouldfail or item.session.shouldstop:
            nextitem = None  # the run stops: everything is torn down
        reports.append(_phase(item, "teardown", nextitem=nextitem))
        funcargs = getattr(item, "funcargs", None)
        if isinstance(funcargs, dict):
            funcargs.clear()  # the fixtures' values go with the test, as after pytest's own protocol
        return reports

    def release(self, *, score: bool = True) -> None:
        """Score the queue and log the held tests' reports, each with its records and the outcome its checks give it."""
        held, self.held, self.since = self.held, [], None
        if self._queue is not None and score:
            self._queue.score()
        elif self._queue is not None:
            self.unscored += len(self._queue.pending)
            self._queue.pending.clear()
        for one in held:
            if score:
                _apply(one)
            self._log(one.item, one.reports)

    def _log(self, item: pytest.Item, reports: list[pytest.TestReport]) -> None:
        ihook = item.ihook
        sender = self._sender(item) if self.session.is_worker else None
        if sender is None:
            ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        else:  # sent as this test's reports, not as those of the test the worker ran last
            if self._indices is None:
                self._indices = {each.nodeid: index for index, each in enumerate(item.session.items)}
            sender.item_index, current = self._indices[item.nodeid], sender.item_index
        try:
            for report in reports:
                ihook.pytest_runtest_logreport(report=report)
            ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        finally:
            if sender is not None:
                sender.item_index = current

    def _sender(self, item: pytest.Item) -> Any:
        """xdist's worker-side reporter, which sends each report with the index of the test it ran last (or
        ``None``)."""
        if self._found is None:
            found = [p for p in item.config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"]
            self._found = (found[0] if found and hasattr(found[0], "item_index") else None,)
        return self._found[0]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        try:
            result = yield
        except BaseException as exc:  # an interrupted run logs what it holds, unscored (scoring could take long)
            self.release(score=not isinstance(exc, (KeyboardInterrupt, pytest.exit.Exception)))
            raise
        self.release()
        return result

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        if not self.session.is_worker:
            self.started[nodeid] = None

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.session.is_worker and report.when not in ("setup", "call"):
            self.started.pop(report.nodeid, None)  # torn down, or reported crashed by xdist

    def lost(self) -> list[str]:
        """The tests that started and were never reported (a worker died holding them, their checks not scored)."""
        return list(self.started)

    def stats(self) -> dict[str, int]:
        queue = self._queue
        return {"tests": self.tests, "checks": queue.scored if queue else 0, "batches": queue.batches if queue else 0}


def _phase(item: pytest.Item, when: Literal["setup", "call", "teardown"], **kwargs: Any) -> pytest.TestReport:
    ihook = item.ihook
    hook = {
        "setup": ihook.pytest_runtest_setup,
        "call": ihook.pytest_runtest_call,
        "teardown": ihook.pytest_runtest_teardown,
    }[when]
    call = pytest.CallInfo.from_call(
        lambda: hook(item=item, **kwargs), when=when, reraise=(pytest.exit.Exception, KeyboardInterrupt)
    )
    report: pytest.TestReport = ihook.pytest_runtest_makereport(item=item, call=call)
    if (
        call.excinfo is not None
        and not hasattr(report, "wasxfail")
        and not isinstance(call.excinfo.value, pytest.skip.Exception)
    ):
        ihook.pytest_exception_interact(node=item, call=call, report=report)
    return report


def _apply(held: _Held) -> None:
    """The held test's reports with its records, and the outcome its first failing (or skipping) check gives the
    test."""
    call = next((report for report in held.reports if report.when == "call"), None)
    for entry in held.entries:
        outcome = entry.outcome
        if call is None or outcome is None or entry.raised or (outcome.gated and held.context.gate == "aggregate"):
            continue
        if hasattr(call, "wasxfail"):  # an expected failure: what fails in it leaves it expected to fail
            call.outcome = "skipped"
            continue
        if not call.passed:
            continue  # the test failed or skipped on its own first
        if outcome.outcome == "skipped":
            path, line, _ = held.item.location
            call.outcome, call.longrepr = "skipped", (str(path), (line or 0) + 1, f"Skipped: {outcome.message}")
        else:
            call.outcome, call.longrepr = "failed", outcome.message
    for report in held.reports:
        report.user_properties = list(held.item.user_properties)
