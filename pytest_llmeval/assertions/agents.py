"""METEOR and an agent's tool calls (seed 004): no model, no judge."""

from __future__ import annotations

from typing import Any

from ..result import Result
from .core import _common, assert_check

__all__ = ["assert_meteor", "assert_tools_called", "assert_agent_artifacts"]


def assert_meteor(actual: str, expected: Any, **kwargs: Any) -> Result:
    """METEOR against the expected answer(s) (nltk's; default threshold 0.5): form, stem and, with WordNet data, synonyms."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("meteor", actual=actual, expected=expected, **kwargs)


def assert_tools_called(
    tools_called: Any,
    expected_tools: Any,
    *,
    match_arguments: bool = False,
    match_output: bool = False,
    consider_ordering: bool = False,
    exact_match: bool = False,
    actual: str | None = None,
    **kwargs: Any,
) -> Result:
    """The agent called the expected tools (share of expected calls made; default threshold 0.5; no judge, no deepeval).

    Tool calls are names, ``{"name", "arguments", "output"}`` dicts or objects with those attributes
    (deepeval's ``ToolCall`` works: ``input_parameters`` is read as the arguments).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"match_arguments": match_arguments, "match_output": match_output, "consider_ordering": consider_ordering,
              "exact_match": exact_match}
    metadata = {"tools_called": tools_called, "expected_tools": expected_tools}
    return assert_check("tool_correctness", actual=actual, metadata=metadata, params=params, **kwargs)


def assert_agent_artifacts(artifacts: Any, *, root: Any = None, exact: bool = False, **kwargs: Any) -> Result:
    """The agent's artifacts are sane (seed 000's agent sanity check; share of artifacts, default threshold 0.75).

    ``artifacts``: the paths the agent should have written (relative to ``root``), or
    ``{path: {"fields": {key: value}}}`` for JSON fields, ``{folder: {"contains": [names]}}``.
    Each must exist and not be empty; JSON must parse; ``exact=True`` also flags unexpected files.
    """
    __tracebackhide__ = True
    _common(kwargs)
    if isinstance(artifacts, (list, tuple)):
        artifacts = [str(a) for a in artifacts]
    params = {"root": None if root is None else str(root), "exact": exact}
    return assert_check("agent_sanity", metadata={"artifacts": artifacts}, params=params, **kwargs)
