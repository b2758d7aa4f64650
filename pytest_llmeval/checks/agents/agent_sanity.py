"""The ``agent_sanity`` check: The share of an agent's artifacts that exist, are not empty, parse and hold the expected
fields."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score
from ...kit import require_type
from ...kit import Result

__all__ = ["assert_agent_artifacts", "AgentSanity"]


def assert_agent_artifacts(artifacts: Any, *, root: Any = None, exact: bool = False, **kwargs: Any) -> Result:
    """The agent's artifacts are sane (seed 000's agent sanity check; share of artifacts, default threshold 0.75).

    ``artifacts``: the paths the agent should have written (relative to ``root``), or
    ``{path: {"fields": {key: value}}}`` for JSON fields, ``{folder: {"contains": [names]}}``.
    Each must exist and not be empty; JSON must parse; ``exact=True`` also flags unexpected files.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    if isinstance(artifacts, (list, tuple)):
        artifacts = [str(a) for a in artifacts]
    params = {"root": None if root is None else str(root), "exact": exact}
    return check(AgentSanity, metadata={"artifacts": artifacts}, params=params, **kwargs)


def _artifact_problems(path: str, spec: Mapping[str, Any]) -> list[str]:
    if not os.path.exists(path):
        return ["missing"]
    if os.path.isdir(path):
        expected = spec.get("contains") or []
        absent = [name for name in expected if not os.path.exists(os.path.join(path, name))]
        return [f"missing {', '.join(absent)}"] if absent else ([] if os.listdir(path) else ["empty folder"])
    if os.path.getsize(path) == 0:
        return ["empty"]
    if path.lower().endswith(".json") or spec.get("fields"):
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            return [f"not valid JSON ({str(exc)[:80]})"]
        fields = spec.get("fields") or {}
        if fields and not isinstance(data, Mapping):
            return [f"not a JSON object (a {type(data).__name__}), so it has no fields"]
        wrong = [
            f"{key}={data.get(key)!r}, expected {value!r}" for key, value in fields.items() if data.get(key) != value
        ]
        return [f"field {w}" for w in wrong]
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1_000_000)
    except OSError as exc:
        return [f"unreadable ({exc})"]
    if not text.strip():
        return ["only whitespace"]
    if "\f" in text and any(not page.strip() for page in text.split("\f")):
        return ["an empty page"]
    return []


class AgentSanity(Evaluator):
    """The share of an agent's artifacts that exist, are not empty, parse and hold the expected fields.

    The case's ``metadata["artifacts"]`` maps each path (relative to ``root``) to its
    expectations: ``{}`` (exists, not empty, JSON parses), ``{"fields": {key: value}}``
    or, for a folder, ``{"contains": [names]}``.

    Parameters:
        root: the folder the artifact paths are relative to (default: the working directory).
        exact: also count an unexpected file in ``root`` as a problem.
    """

    name = "agent_sanity"
    helper = "assert_agent_artifacts"
    description = "The agent's artifacts exist, are not empty, parse and hold the expected fields (seed 000)"
    requires = ()
    defaults: ClassVar[Mapping[str, Any]] = {"root": None, "exact": False}
    metrics = (MetricSpec("agent_sanity", "share of the artifacts meeting every check", threshold=0.75, primary=True),)

    def configure(self) -> None:
        if self.params["root"] is not None:
            self.params["root"] = os.fspath(self.params["root"])
            require_type(self.name, "root", self.params["root"], str, "a folder")
        require_type(self.name, "exact", self.params["exact"], bool, "True or False")

    def signature_params(self) -> Mapping[str, Any]:
        return {"exact": self.params["exact"]}  # the folder is where this run's files are, not a setting of the check

    def score(self, case: Case) -> Score:
        artifacts = case.metadata.get("artifacts") if case.metadata else None
        if isinstance(artifacts, (str, bytes)) or not isinstance(artifacts, (Mapping, Sequence)) or not artifacts:
            raise TypeError(
                f"{self.name}: 'artifacts' must name the files the agent should have written "
                f"(a list of paths, or {{path: expectations}}); got {artifacts!r:.80}"
            )
        specs = artifacts if isinstance(artifacts, Mapping) else {str(path): {} for path in artifacts}
        root = self.params["root"] or os.getcwd()
        problems = {
            str(path): _artifact_problems(os.path.join(root, str(path)), spec if isinstance(spec, Mapping) else {})
            for path, spec in specs.items()
        }
        if self.params["exact"] and os.path.isdir(root):
            # an expected file in a folder makes its folder expected
            expected_tops = {os.path.normpath(path).split(os.sep)[0] for path in problems}
            for name in sorted(os.listdir(root)):
                if name not in expected_tops:
                    problems[name] = ["not expected"]
        good = sum(1 for found in problems.values() if not found)
        value = good / len(problems)
        bad = [f"{path}: {'; '.join(found)}" for path, found in problems.items() if found]
        reason = f"{good} of {len(problems)} artifacts sane" + (f"; {', '.join(bad[:5])}" if bad else "")
        return Score(
            {"agent_sanity": value}, reason, {"problems": {k: v for k, v in list(problems.items())[:100] if v}}
        )
