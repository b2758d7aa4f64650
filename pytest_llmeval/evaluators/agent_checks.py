"""Seed 000's agent checks: the fact-check (a judge reads the answer for false information) and the agent sanity check.

- ``fact_check`` (LLM judge): the seed's agent prompt, answered by the session's
  judge. Our judge has no web search, so it checks against what it knows; the
  signature names the judge model, so verdicts of different judges never mix.
- ``agent_sanity`` (deterministic): the artifacts an agent wrote, checked as the seed
  says: each expected file exists and is not empty, JSON files parse, required JSON
  fields hold the expected values, and no unexpected file appears when ``exact`` is
  set. The score is the share of artifacts meeting every check (threshold 0.75).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..judges.base import JudgeParseError
from .base import Evaluator, MetricSpec, Score, require_type
from .judged import PARSE_FAILURE, JudgeEvaluator, _fields

__all__ = ["FactCheck", "AgentSanity"]

_FACT_CHECK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "evaluation_score": {"type": "number", "minimum": 0, "maximum": 1},
                   "evaluation_summary": {"type": "string"}},
    "required": ["evaluation_score", "evaluation_summary"],
}


class FactCheck(JudgeEvaluator):
    """Whether the answer contains false information, scored 0-1 by the judge (seed 000's fact-check agent prompt)."""

    name = "fact_check"
    helper = "assert_fact_checked"
    extra = "judge"
    description = "The answer contains no false information, 0-1 (LLM judge; seed 000's fact-check agent prompt)"
    requires = ("actual",)
    uses = ("question",)
    metrics = (MetricSpec("fact_check", "1 when the judge finds no false information", threshold=0.75, primary=True), PARSE_FAILURE)
    template = """You are an agent whose role is to evaluate the text of the ACTUAL ANSWER.
Instructions for WHAT should be evaluated:
[BEGIN EVALUATION INSTRUCTIONS]
Fact-check the text and determine whether the text contains false information.
Use what you know to verify the information.
[END EVALUATION INSTRUCTIONS]
Reply with JSON only: {{"answer": string, "evaluation_score": float, "evaluation_summary": string}}, where
evaluation_score is between 0.0 and 1.0 (1.0: the ACTUAL ANSWER passed, it holds no false information; 0.0: it failed)
and evaluation_summary briefly justifies the score.
[BEGIN ACTUAL ANSWER]
{actual}
[END ACTUAL ANSWER]
If it may help, use the QUESTION which the ACTUAL ANSWER answered:
[BEGIN QUESTION]
{question}
[END QUESTION]
"""

    def score(self, case: Case) -> Score:
        try:
            reply, _ = self.ask_fields(self.template, _fields(case), what=self.name, schema=_FACT_CHECK_SCHEMA)
        except JudgeParseError as exc:
            return self.unscored(["fact_check"], exc)
        value = float(reply["evaluation_score"])
        return Score({"fact_check": value, "parse_failure": 0.0},
                     f"fact-check {value:.2f}: {str(reply.get('evaluation_summary', ''))[:300]}", {})


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
        wrong = [f"{key}={data.get(key)!r}, expected {value!r}" for key, value in fields.items() if data.get(key) != value]
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
            raise TypeError(f"{self.name}: 'artifacts' must name the files the agent should have written "
                            f"(a list of paths, or {{path: expectations}}); got {artifacts!r:.80}")
        specs = artifacts if isinstance(artifacts, Mapping) else {str(path): {} for path in artifacts}
        root = self.params["root"] or os.getcwd()
        problems = {str(path): _artifact_problems(os.path.join(root, str(path)), spec if isinstance(spec, Mapping) else {})
                    for path, spec in specs.items()}
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
        return Score({"agent_sanity": value}, reason, {"problems": {k: v for k, v in list(problems.items())[:100] if v}})
