"""What the ``llmeval`` fixture returns: the running test's context, with ``check`` and ``evaluate``.

A subclass of `pytest_llmeval.run.recording.TestContext` made here, above the assertion layer, so the
record layer never imports the helpers that record into it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..run.recording import TestContext

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator
    from ..core.result import Result
    from .registry import Registry

__all__ = ["CheckingContext"]


class CheckingContext(TestContext):
    """The test's context, with conveniences that read well in a test: ``llmeval.check("rouge", actual=...,
    expected=...)``. The helpers load when a test first calls one."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, *, registry: Registry | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._registry = registry

    def resolve(self, name: str) -> type[Evaluator]:
        """The check class registered under ``name`` in this run (built-in, entry point or registered by a hook)."""
        if self._registry is None:
            from .api import process_registry

            return process_registry().resolve(name)
        return self._registry.resolve(name)

    def check(self, name: str, **kwargs: Any) -> Result:
        """Same as `pytest_llmeval.assert_check()`."""
        __tracebackhide__ = True
        from .api import assert_check

        return assert_check(name, **kwargs)

    def evaluate(self, name: str, **kwargs: Any) -> Result:
        """Same as `pytest_llmeval.evaluate()`."""
        from .api import evaluate

        return evaluate(name, **kwargs)
