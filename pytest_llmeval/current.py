"""The running test's llmeval context, as a :class:`contextvars.ContextVar` (it follows the test into asyncio tasks).

Kept apart from :mod:`.recording` so that the assertion helpers and the recording
context both use it without importing each other.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .recording import TestContext

__all__ = ["current_context", "activate", "deactivate"]

_CURRENT: ContextVar[TestContext | None] = ContextVar("pytest_llmeval_current_test", default=None)


def current_context() -> TestContext | None:
    """The context of the running test, or ``None`` outside a test."""
    return _CURRENT.get()


def activate(context: TestContext) -> Token[TestContext | None]:
    return _CURRENT.set(context)


def deactivate(token: Token[TestContext | None]) -> None:
    _CURRENT.reset(token)
