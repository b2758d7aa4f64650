"""What the ``llmeval`` fixture returns: the running test's context, with ``check`` and ``evaluate``.

A subclass of :class:`pytest_llmeval.core.recording.TestContext` made here, above the assertion layer, so the
record layer never imports the helpers that record into it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.recording import TestContext

if TYPE_CHECKING:
    from ..core.result import Result

__all__ = ["CheckingContext"]


class CheckingContext(TestContext):
    """The test's context, with conveniences that read well in a test: ``llmeval.check("rouge", actual=...,
    expected=...)``. The helpers load when a test first calls one."""

    __test__ = False  # not a test class, despite the name

    def check(self, name: str, **kwargs: Any) -> Result:
        """Same as :func:`pytest_llmeval.assert_check`."""
        __tracebackhide__ = True
        from ..core.assertion import assert_check

        return assert_check(name, **kwargs)

    def evaluate(self, name: str, **kwargs: Any) -> Result:
        """Same as :func:`pytest_llmeval.evaluate`."""
        from ..core.assertion import evaluate

        return evaluate(name, **kwargs)
