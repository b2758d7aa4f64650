"""Recording results on the running test.

While a test runs, the plugin makes a `TestContext` current (a
`contextvars.ContextVar`, so it follows the test into asyncio tasks).
Assertion helpers find it, take the model and case defaults from it, and
record each result in ``item.user_properties``:

- ``("llmeval", "<JSON record>")``: the whole result, read back by the
  controller to build the leaderboard and reports (this is what travels from
  xdist workers, inside pytest's own test reports);
- ``("llmeval.<evaluator>.<metric>", value)``: one property per metric value,
  ``("llmeval.<evaluator>.passed", True/False)`` and ``("llmeval.<evaluator>.verdict",
  "pass"/"fail"/"unverified")``, for JUnit readers;
- for judge checks, ``llmeval.<evaluator>.judge_calls`` / ``judge_tokens`` / ``judge_cost``:
  the new judge calls this check made (replayed verdicts cost nothing).

The ``llmeval`` fixture returns the same object, with ``check`` and ``evaluate``
(`pytest_llmeval.harness.context.CheckingContext`).
"""

from __future__ import annotations

import contextlib
import gc
import json
import marshal
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..core.case import Case
    from ..core.evaluator import Evaluator
    from ..core.result import Record, Result

__all__ = [
    "current_context",
    "activate",
    "deactivate",
    "TestContext",
    "RECORD_PROPERTY",
    "RecordStore",
    "encode_record",
    "decode_record",
    "exact_key",
    "paused_gc",
]


_CURRENT: ContextVar[TestContext | None] = ContextVar("pytest_llmeval_current_test", default=None)


def current_context() -> TestContext | None:
    """The context of the running test, or ``None`` outside a test."""
    return _CURRENT.get()


def activate(context: TestContext) -> Token[TestContext | None]:
    return _CURRENT.set(context)


def deactivate(token: Token[TestContext | None]) -> None:
    _CURRENT.reset(token)


#: Name of the ``user_properties`` entry carrying a whole result as JSON.
RECORD_PROPERTY = "llmeval"


#: How a record is written into ``user_properties`` (made once: ``json.dumps`` with options makes one per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), sort_keys=True, default=str)


def encode_record(result: Result, tags: Mapping[str, Any]) -> str:
    record = result.to_dict()
    if tags:
        record["tags"] = dict(tags)
    return _ENCODER.encode(record)


def decode_record(value: object) -> Record:
    """Parse one ``llmeval`` property value; raise ``ValueError`` if it is not a record."""
    data = json.loads(value) if isinstance(value, str) else value
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("evaluator"), str)
        or not isinstance(data.get("metrics"), dict)
        or not isinstance(data.get("primary"), str)
    ):
        raise ValueError(f"not an llmeval record: {value!r:.80}")
    record: Record = data  # type: ignore[assignment]  # checked above: the fields every record has
    return record


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No garbage collection meanwhile, for work on all of a run's records at once: it makes many objects and no
    cycle, and with tens of thousands of records the full collections it would set off cost more than the work."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def exact_key(value: Any) -> bytes | None:
    """A key only values equal in type, order and every bit share (``1``, ``1.0``, ``True`` and ``-0.0`` differ),
    cheaper than JSON: marshal's version 2 (no back-references, so one form per value); ``None`` if marshal cannot
    write it (an object, a subclass of a builtin)."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return None


class RecordStore:
    """Makes the controller's records compact: what records repeat is held once and shared among them.

    Every record of one check carries the same signature, thresholds and directions (and
    often the same metrics, details, tags and reason): `add()` keeps one object per
    distinct value (by `exact_key()`) and lets each record refer to it; field names
    are shared too. The shared values are plain ``dict`` / ``list`` (records are written
    as JSON): read them, never change them.
    """

    #: Fields whose values are shared among records: containers and texts.
    SHARED = (
        "signature",
        "thresholds",
        "higher_is_better",
        "metrics",
        "details",
        "tags",
        "evaluator",
        "primary",
        "model",
        "reason",
        "case_id",
        "verdict",
        "decided_by",
    )
    #: Values longer than this are kept as they are, and so is any new value once a field holds this many.
    MAX_CHARS, MAX_VALUES = 400, 4096

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._values: dict[str, dict[Any, Any]] = {name: {} for name in self.SHARED}

    def read(self, properties: Iterable[tuple[str, object]], into: list[Record]) -> int:
        """Add the ``(test id, llmeval property)`` pairs' records to ``into``; the number that are not records."""
        bad = 0
        with paused_gc():
            for nodeid, value in properties:
                try:
                    into.append(self.add(decode_record(value), nodeid))
                except (ValueError, RecursionError):  # not a record: counted, and the run warns
                    bad += 1
        return bad

    def add(self, record: Mapping[str, Any], nodeid: str | None = None) -> Record:
        """``record`` as a new dict that shares what earlier records hold; ``nodeid`` (if given) is set last."""
        names, tables = self._names, self._values
        out: dict[str, Any] = {}
        for name, value in record.items():
            name = names.get(name) or names.setdefault(name, name)
            known = tables.get(name)
            if known is not None:
                kind = type(value)
                if kind is str:
                    value = nodeid if value == nodeid else self._share(known, value, value)
                elif kind is dict or kind is list:
                    key = exact_key(value)
                    if key is not None:  # else not JSON (a record handed over as a dict): kept as it is
                        value = self._share(known, key, value)
            out[name] = value
        if nodeid is not None:
            out["nodeid"] = nodeid
        compact: Record = out  # type: ignore[assignment]  # the same fields as ``record``
        return compact

    def _share(self, known: dict[Any, Any], key: str | bytes, value: Any) -> Any:
        shared = known.get(key)
        if shared is None:
            if len(key) > self.MAX_CHARS or len(known) >= self.MAX_VALUES:
                return value
            shared = known[key] = value
        return shared


class TestContext:
    """What a test knows about its checks: the model and case it is about, and where results go.

    Attributes:
        model: Default model name for checks in this test (from ``@pytest.mark.llmeval(model=...)``).
        case: Default case id (from the marker; else the test's node id).
        tags: Other marker keywords (perturbation, category, ...), stored with each result.
        results: The results recorded so far in this test.
    """

    __test__ = False  # not a test class, despite the name

    def __init__(
        self,
        *,
        nodeid: str,
        user_properties: list[tuple[str, object]],
        evaluator_factory: Callable[[type[Evaluator], Mapping[str, Any]], Evaluator],
        threshold_overrides: Callable[[str], Mapping[str, float]],
        model: str | None = None,
        case: str | None = None,
        tags: Mapping[str, Any] | None = None,
        judge_factory: Callable[[], Any] | None = None,
        prefetch: Callable[[Evaluator, Sequence[Case]], None] | None = None,
        unverified: str = "pass",
        gate: str = "per-test",
        escalation: Callable[[Evaluator], Evaluator | None] | None = None,
        calibration: Callable[[list[Result]], list[Result]] | None = None,
        detector: Callable[[Evaluator, str | None], Any] | None = None,
        verifier: Callable[[Evaluator, str | None], Any] | None = None,
    ) -> None:
        self.nodeid = nodeid
        #: ``per-test``: a failed check fails the test; ``aggregate``: it is recorded and the test goes on
        #: (``--llmeval-gate``).
        self.gate = gate
        #: What an unverified verdict does to the test, unless a check says otherwise (``--llmeval-unverified``).
        self.unverified = unverified
        self.model = model
        self.case = case
        self.tags: dict[str, Any] = dict(tags or {})
        self.results: list[Result] = []
        self._user_properties = user_properties
        self._evaluator_factory = evaluator_factory
        self._threshold_overrides = threshold_overrides
        self._judge_factory = judge_factory
        self._prefetch = prefetch
        self._escalation = escalation
        self._calibration = calibration
        self._detector = detector
        self._verifier = verifier
        #: Values a check masked in this test's answers (a phone number, an e-mail) -> how it showed them: every record
        #: of
        #: the test shows them so, whichever check recorded it (`mask()`).
        self._masks: dict[str, str] = {}
        self._recorded: list[int] = []  # where this test's records sit in user_properties
        #: While the test may defer its checks: the queue they go to (`pytest_llmeval.run.deferred.Queue`), else
        #: ``None``.
        self.deferred: Any = None
        #: Where the test's answers came from (a cassette's `provenance`), merged into each record's tags; ``None``:
        #: nothing.
        self.source: Callable[[], Mapping[str, Any]] | None = None

    def prefetch(self, evaluator: Evaluator, cases: Sequence[Case]) -> None:
        """Let the session batch work for the tests to come (`pytest_llmeval.run.prefetch`)."""
        if self._prefetch is not None:
            self._prefetch(evaluator, cases)

    def activate(self) -> Any:
        return activate(self)

    @staticmethod
    def deactivate(token: Any) -> None:
        deactivate(token)

    def evaluator(self, cls: type[Evaluator], params: Mapping[str, Any]) -> Evaluator:
        """The session's instance of check ``cls`` with ``params`` (bound to its models and judge)."""
        return self._evaluator_factory(cls, params)

    def escalation(self, evaluator: Evaluator) -> Evaluator | None:
        """The judge check that decides ``evaluator``'s unverified answers in this run, or ``None``."""
        return None if self._escalation is None else self._escalation(evaluator)

    def detector(self, evaluator: Evaluator, spec: str | None) -> Any:
        """The detector that decides ``evaluator``'s unverified answers: the call's ``spec``, else the run's (or
        ``None``)."""
        return None if self._detector is None else self._detector(evaluator, spec)

    def verifier(self, evaluator: Evaluator, setting: str | None) -> Any:
        """The claim verifier that decides ``evaluator``'s unverified answers: the call's ``setting``, else the run's
        (or ``None``)."""
        return None if self._verifier is None else self._verifier(evaluator, setting)

    def calibrated(self, results: list[Result]) -> list[Result]:
        """``results`` as the run's calibration requirement leaves them (a check that may not gate: diagnostic)."""
        return results if self._calibration is None else self._calibration(results)

    def judge(self) -> Any:
        """The session's judge runner (verdict cache, metering), or ``None`` outside the plugin."""
        return None if self._judge_factory is None else self._judge_factory()

    def threshold_overrides(self, evaluator: str) -> Mapping[str, float]:
        return self._threshold_overrides(evaluator)

    def mask(self, values: Mapping[str, str]) -> None:
        """Show each of ``values`` (a text a check found in an answer -> its masked form) masked in every record of this
        test, those recorded already included."""
        new = {value: shown for value, shown in values.items() if value.strip() and value not in self._masks}
        if not new:
            return
        self._masks.update(new)
        for index in self._recorded:
            name, value = self._user_properties[index]
            record = json.loads(str(value))
            for field in ("excerpt", "reason"):
                if isinstance(record.get(field), str):
                    record[field] = self._masked(record[field])
            self._user_properties[index] = (name, _ENCODER.encode(record))

    def _masked(self, text: str) -> str:
        for value in sorted(self._masks, key=len, reverse=True):  # a longer value first: one may hold another
            text = text.replace(value, self._masks[value])
        return text

    def record(self, result: Result) -> None:
        """Attach ``result`` to the running test."""
        if self._masks:
            from dataclasses import replace

            result = replace(
                result,
                excerpt=None if result.excerpt is None else self._masked(result.excerpt),
                reason=self._masked(result.reason),
            )
        self.results.append(result)
        properties = self._user_properties
        self._recorded.append(len(properties))
        properties.append(
            (
                RECORD_PROPERTY,
                encode_record(result, self.tags if self.source is None else {**self.tags, **self.source()}),
            )
        )
        # The property names repeat in every test of the check: one string each (they live as long as the run).
        for metric, value in result.metrics.items():
            if value is not None:
                properties.append((sys.intern(f"{RECORD_PROPERTY}.{result.evaluator}.{metric}"), round(value, 6)))
        properties.append((sys.intern(f"{RECORD_PROPERTY}.{result.evaluator}.passed"), result.passed))
        properties.append((sys.intern(f"{RECORD_PROPERTY}.{result.evaluator}.verdict"), result.verdict))
        calibration = result.details.get("calibration") if result.details else None
        if isinstance(calibration, Mapping):  # calibration.required: calibrated, or diagnostic (gates nothing)
            properties.append(
                (sys.intern(f"{RECORD_PROPERTY}.{result.evaluator}.calibration"), str(calibration.get("status")))
            )
        usage = result.details.get("judge") if result.details else None
        if isinstance(usage, Mapping):
            prefix = f"{RECORD_PROPERTY}.{result.evaluator}.judge"
            self._user_properties.append((f"{prefix}_calls", usage.get("calls", 0)))
            self._user_properties.append(
                (f"{prefix}_tokens", usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
            )
            self._user_properties.append((f"{prefix}_cost", usage.get("cost", 0.0)))
