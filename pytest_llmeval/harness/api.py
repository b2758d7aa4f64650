"""Checks by the names users type: ``evaluate("groundedness", ...)`` and ``assert_check("rouge", ...)``.

The name resolves through the registry (built-in checks, entry points, the ``pytest_llmeval_register_evaluators``
hook): inside a test the session's, outside one a registry of the process. Then the check class runs as any
helper runs it (`pytest_llmeval.run.check.check()`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..run.check import check, run_check
from ..run.recording import current_context

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator
    from ..core.result import Result
    from .registry import Registry

__all__ = ["evaluate", "assert_check", "resolve", "process_registry"]


@functools.lru_cache(maxsize=1)
def process_registry() -> Registry:
    """Outside pytest: one registry for the process (built-in checks and entry points)."""
    from .registry import Registry

    return Registry()


def resolve(name: str) -> type[Evaluator]:
    """The check class registered under ``name``: the session's registry inside a test, else the process's."""
    if not isinstance(name, str):
        raise TypeError(f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}")
    context = current_context()
    resolver = getattr(context, "resolve", None)
    return resolver(name) if resolver is not None else process_registry().resolve(name)


def evaluate(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    record: bool = True,
    unverified: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` on one case and return the result without asserting.

    ``fields`` are case fields (``actual``, ``expected``, ``question``, ``context``,
    ``conditions``, ``history``, ``model``, ``metadata``); ``params`` go to the
    evaluator. Inside a test the result is recorded unless ``record=False``.
    ``unverified`` (``pass``, ``fail``, ``skip``; default ``--llmeval-unverified``) is
    what an unverified verdict makes of ``passed`` (``skip`` passes it here).
    ``classification`` also takes label lists (``actual=predicted, expected=truth``, and
    ``metadata={"scores": [...], "ids": [...]}``), as ``assert_classification`` does.

    >>> evaluate("exact_match", actual="4", expected=["4", "four"]).passed
    True
    """
    return run_check(resolve(name), threshold=threshold, thresholds=thresholds, params=params, case=case, record=record,
                     unverified=unverified, **fields)


def assert_check(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    unverified: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` and fail the test if the case misses a threshold.

    The generic form of every ``assert_*`` helper, for any registered evaluator:
    ``assert_check("rouge", actual=answer, expected=reference, threshold=0.4)``.
    An unverified verdict passes the test, fails it or skips it as ``unverified``
    (``pass``, ``fail``, ``skip``) says, else as ``--llmeval-unverified`` does.
    """
    __tracebackhide__ = True
    return check(resolve(name), threshold=threshold, thresholds=thresholds, params=params, case=case, unverified=unverified, **fields)
