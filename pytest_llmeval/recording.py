"""Recording results on the running test.

While a test runs, the plugin makes a :class:`TestContext` current (a
:class:`contextvars.ContextVar`, so it follows the test into asyncio tasks).
Assertion helpers find it, take the model and case defaults from it, and
record each result in ``item.user_properties``:

- ``("llmeval", "<JSON record>")``: the whole result, read back by the
  controller to build the leaderboard and reports (this is what travels from
  xdist workers, inside pytest's own test reports);
- ``("llmeval.<evaluator>.<metric>", value)``: one property per metric value,
  and ``("llmeval.<evaluator>.passed", True/False)``, for JUnit readers;
- for judge checks, ``llmeval.<evaluator>.judge_calls`` / ``judge_tokens`` / ``judge_cost``:
  the new judge calls this check made (replayed verdicts cost nothing).

The ``llmeval`` fixture returns the same object.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .current import activate, current_context, deactivate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .case import Case
    from .evaluators.base import Evaluator
    from .result import Record, Result

__all__ = ["TestContext", "current_context", "RECORD_PROPERTY", "encode_record", "decode_record"]

#: Name of the ``user_properties`` entry carrying a whole result as JSON.
RECORD_PROPERTY = "llmeval"

def encode_record(result: Result, tags: Mapping[str, Any]) -> str:
    record = result.to_dict()
    if tags:
        record["tags"] = dict(tags)
    return json.dumps(record, separators=(",", ":"), sort_keys=True, default=str)


def decode_record(value: object) -> Record:
    """Parse one ``llmeval`` property value; raise ``ValueError`` if it is not a record."""
    data = json.loads(value) if isinstance(value, str) else value
    if (not isinstance(data, dict) or not isinstance(data.get("evaluator"), str) or not isinstance(data.get("metrics"), dict)
            or not isinstance(data.get("primary"), str)):
        raise ValueError(f"not an llmeval record: {value!r:.80}")
    record: Record = data  # type: ignore[assignment]  # checked above: the fields every record has
    return record


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
        evaluator_factory: Callable[[str, Mapping[str, Any]], Evaluator],
        threshold_overrides: Callable[[str], Mapping[str, float]],
        model: str | None = None,
        case: str | None = None,
        tags: Mapping[str, Any] | None = None,
        judge_factory: Callable[[], Any] | None = None,
        prefetch: Callable[[Evaluator, Sequence[Case]], None] | None = None,
    ) -> None:
        self.nodeid = nodeid
        self.model = model
        self.case = case
        self.tags: dict[str, Any] = dict(tags or {})
        self.results: list[Result] = []
        self._user_properties = user_properties
        self._evaluator_factory = evaluator_factory
        self._threshold_overrides = threshold_overrides
        self._judge_factory = judge_factory
        self._prefetch = prefetch

    def prefetch(self, evaluator: Evaluator, cases: Sequence[Case]) -> None:
        """Let the session batch work for the tests to come (:mod:`pytest_llmeval.prefetch`)."""
        if self._prefetch is not None:
            self._prefetch(evaluator, cases)

    def activate(self) -> Any:
        return activate(self)

    @staticmethod
    def deactivate(token: Any) -> None:
        deactivate(token)

    def evaluator(self, name: str, params: Mapping[str, Any]) -> Evaluator:
        return self._evaluator_factory(name, params)

    def judge(self) -> Any:
        """The session's judge runner (verdict cache, metering), or ``None`` outside the plugin."""
        return None if self._judge_factory is None else self._judge_factory()

    def threshold_overrides(self, evaluator: str) -> Mapping[str, float]:
        return self._threshold_overrides(evaluator)

    def record(self, result: Result) -> None:
        """Attach ``result`` to the running test."""
        self.results.append(result)
        self._user_properties.append((RECORD_PROPERTY, encode_record(result, self.tags)))
        for metric, value in result.metrics.items():
            if value is not None:
                self._user_properties.append((f"{RECORD_PROPERTY}.{result.evaluator}.{metric}", round(value, 6)))
        self._user_properties.append((f"{RECORD_PROPERTY}.{result.evaluator}.passed", result.passed))
        usage = result.details.get("judge") if isinstance(result.details, Mapping) else None
        if isinstance(usage, Mapping):
            prefix = f"{RECORD_PROPERTY}.{result.evaluator}.judge"
            self._user_properties.append((f"{prefix}_calls", usage.get("calls", 0)))
            self._user_properties.append((f"{prefix}_tokens", usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)))
            self._user_properties.append((f"{prefix}_cost", usage.get("cost", 0.0)))

    # Conveniences so the fixture reads well: llmeval.check("rouge", actual=..., expected=...)
    def check(self, name: str, **kwargs: Any) -> Result:
        """Same as :func:`pytest_llmeval.assert_check`."""
        __tracebackhide__ = True
        from .assertions.core import assert_check

        return assert_check(name, **kwargs)

    def evaluate(self, name: str, **kwargs: Any) -> Result:
        """Same as :func:`pytest_llmeval.evaluate`."""
        from .assertions.core import evaluate

        return evaluate(name, **kwargs)
