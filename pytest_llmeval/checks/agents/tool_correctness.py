"""The ``tool_correctness`` check: The share of the expected tool calls the agent made (seed 004; deepeval's
ToolCorrectnessMetric, natively)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_type
from ...kit import Result

__all__ = ["assert_tools_called", "ToolCorrectness", "tool_calls"]


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
    check_kwargs(kwargs)
    params = {
        "match_arguments": match_arguments,
        "match_output": match_output,
        "consider_ordering": consider_ordering,
        "exact_match": exact_match,
    }
    metadata = {"tools_called": tools_called, "expected_tools": expected_tools}
    return check(ToolCorrectness, actual=actual, metadata=metadata, params=params, **kwargs)


def tool_calls(value: Any, owner: str, argument: str) -> list[dict[str, Any]]:
    """Tool calls as dicts ``{"name", "arguments", "output"}`` from names, dicts or objects with those attributes."""
    if value is None:
        return []
    if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(
            f"{owner}: argument '{argument}' must be a list of tool calls (names, dicts or ToolCall objects); "
            f"got {value!r:.80}"
        )
    calls = []
    for item in value:
        if isinstance(item, str):
            calls.append({"name": item, "arguments": None, "output": None})
            continue
        get = (
            item.get
            if isinstance(item, Mapping)
            else (lambda key, default=None, _item=item: getattr(_item, key, default))
        )
        name = get("name")
        if not isinstance(name, str) or not name:
            raise TypeError(f"{owner}: every tool call in '{argument}' needs a name; got {item!r:.80}")
        arguments = get("arguments", None)
        if arguments is None:
            arguments = get("input_parameters", None)
        calls.append({"name": name, "arguments": arguments, "output": get("output", None)})
    return calls


def _arguments_match(expected: Any, called: Any) -> float:
    """The share of the expected arguments the call gives alike (1 when none are expected)."""
    if not isinstance(expected, Mapping) or not expected:
        return 1.0
    if not isinstance(called, Mapping):
        return 0.0
    return sum(1 for key, value in expected.items() if key in called and called[key] == value) / len(expected)


class ToolCorrectness(Evaluator):
    """The share of the expected tool calls the agent made (seed 004; deepeval's ToolCorrectnessMetric, natively).

    Parameters:
        match_arguments: a call counts by the share of the expected arguments it gives alike.
        match_output: a call counts only when its output equals the expected output.
        consider_ordering: score the longest common subsequence of calls (in order).
        exact_match: 1 only when the calls are exactly the expected ones, in order.
    """

    name = "tool_correctness"
    helper = "assert_tools_called"
    description = "The agent called the expected tools (by name; optionally arguments, output, order)"
    requires = ()
    uses = ("actual", "question")
    defaults: ClassVar[Mapping[str, Any]] = {
        "match_arguments": False,
        "match_output": False,
        "consider_ordering": False,
        "exact_match": False,
    }
    metrics = (MetricSpec("tool_correctness", "share of the expected tool calls made", threshold=0.5, primary=True),)

    def configure(self) -> None:
        for key in self.defaults:
            require_type(self.name, key, self.params[key], bool, "True or False")

    def _match(self, expected: Mapping[str, Any], called: Mapping[str, Any]) -> float:
        if expected["name"] != called["name"]:
            return 0.0
        if self.params["match_output"] and expected["output"] is not None and expected["output"] != called["output"]:
            return 0.0
        return _arguments_match(expected["arguments"], called["arguments"]) if self.params["match_arguments"] else 1.0

    def score(self, case: Case) -> Score:
        called = tool_calls(case.metadata.get("tools_called"), self.name, "tools_called")
        expected = tool_calls(case.metadata.get("expected_tools"), self.name, "expected_tools")
        names = [c["name"] for c in called]
        if not expected:
            value = 1.0 if not called else 0.0
            reason = "no tool was expected" + ("" if not called else f" but the agent called {names}")
        elif self.params["exact_match"]:
            same = len(called) == len(expected) and all(self._match(e, c) == 1.0 for e, c in zip(expected, called))
            value, reason = (
                float(same),
                (
                    "exactly the expected calls"
                    if same
                    else f"called {names}, expected exactly {[e['name'] for e in expected]}"
                ),
            )
        elif self.params["consider_ordering"]:
            # weighted longest common subsequence of the expected and the made calls
            table = [[0.0] * (len(called) + 1) for _ in range(len(expected) + 1)]
            for i, want in enumerate(expected, 1):
                for j, made in enumerate(called, 1):
                    table[i][j] = max(table[i - 1][j], table[i][j - 1], table[i - 1][j - 1] + self._match(want, made))
            value = table[-1][-1] / len(expected)
            reason = f"{table[-1][-1]:g} of {len(expected)} expected calls made in order; called {names}"
        else:
            scores = [max((self._match(want, made) for made in called), default=0.0) for want in expected]
            value = sum(scores) / len(expected)
            missing = [want["name"] for want, s in zip(expected, scores) if s < 1.0]
            reason = f"{sum(scores):g} of {len(expected)} expected tools called" + (
                f"; missing or wrong: {missing}" if missing else ""
            )
        return Score(
            {"tool_correctness": value}, reason, {"called": names[:50], "expected": [e["name"] for e in expected][:50]}
        )
