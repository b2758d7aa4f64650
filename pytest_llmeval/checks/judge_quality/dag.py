"""The ``dag`` check: A decision tree of judge verdicts with hard-coded leaf scores (more deterministic than one free
score)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, verdict_schema
from .custom import case_block

__all__ = ["assert_dag", "Dag", "validate_dag"]


def assert_dag(actual: str, dag: Mapping[str, Any], *, max_score: float = 10, **kwargs: Any) -> Result:
    """A tree of judge verdicts with scores at the leaves reaches at least half of ``max_score``."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "question", "expected", "context"))
    return check(Dag, actual=actual, params={"dag": dag, "max_score": max_score}, **kwargs)


def validate_dag(node: Any, max_score: float, path: str = "dag", depth: int = 0) -> None:
    """Raise ``ValueError`` naming the first malformed node by its path."""
    if depth > 30:
        raise ValueError(f"{path}: the DAG is deeper than 30 nodes (a cycle?)")
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        if not 0 <= node <= max_score:
            raise ValueError(f"{path}: a leaf score must be between 0 and max_score={max_score}; got {node}")
        return
    if not isinstance(node, Mapping):
        raise ValueError(
            f"{path}: expected a node (a mapping with 'judge' or 'task') or a leaf score; got {node!r:.60}"
        )
    if "judge" in node:
        children = node.get("children")
        if not isinstance(node["judge"], str) or not isinstance(children, Mapping) or len(children) < 2:
            raise ValueError(
                f"{path}: a judgement node needs 'judge' (the criterion, a str) and 'children' (a mapping of at "
                f"least two verdicts to a child node or a leaf score)"
            )
        extra = set(node) - {"judge", "children"}
        if extra:
            raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(extra))} in a judgement node")
        labels = [str(v).strip().lower() for v in children]
        if len(set(labels)) != len(labels) or "" in labels:
            raise ValueError(
                f"{path}: verdict labels must be distinct and non-empty, ignoring case and spaces; got {list(children)}"
            )
        for verdict, child in children.items():
            validate_dag(child, max_score, f"{path}.children[{verdict!r}]", depth + 1)
    elif "task" in node:
        if not isinstance(node["task"], str) or not isinstance(node.get("output"), str) or "then" not in node:
            raise ValueError(
                f"{path}: a task node needs 'task' (instructions, a str), 'output' (a label, a str) and 'then' (the "
                "next node)"
            )
        extra = set(node) - {"task", "output", "then"}
        if extra:
            raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(extra))} in a task node")
        validate_dag(node["then"], max_score, f"{path}.then", depth + 1)
    else:
        raise ValueError(f"{path}: a node needs 'judge' (a judgement) or 'task' (a task); got keys {sorted(node)}")


TASK_PROMPT = """Carry out the task on the case below. Reply with JSON only: {{"output": "<your result as text>"}}.

Task: {task}

{case}
"""


JUDGEMENT_PROMPT = """Judge the case below on the criterion. Answer with exactly one of the verdicts: {verdicts}.
Reply with JSON only: {{"verdict": "<verdict>", "reason": "<one sentence>"}}.

Criterion: {criteria}

{case}
"""


class Dag(JudgeEvaluator):
    """A decision tree of judge verdicts with hard-coded leaf scores (more deterministic than one free score)."""

    name = "dag"
    helper = "assert_dag"
    extra = "judge"
    description = "A tree of judge verdicts with scores at the leaves (DAG metric)"
    requires = ("actual",)
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"dag": None, "max_score": 10}
    metrics = (MetricSpec("dag", "the leaf reached / max_score", threshold=0.5, primary=True), PARSE_FAILURE)

    def configure(self) -> None:
        require_number(self.name, "max_score", self.params["max_score"], low=1)
        if self.params["dag"] is None:
            raise ValueError(
                f"{self.name}: parameter 'dag' is required: a node such as "
                "{'judge': 'Is the answer polite?', 'children': {'yes': 10, 'no': 0}}"
            )
        validate_dag(self.params["dag"], self.params["max_score"])

    def score(self, case: Case) -> Score:
        node: Any = self.params["dag"]
        block = case_block(case)
        path: list[str] = []
        outputs: list[str] = []
        try:
            while isinstance(node, Mapping):
                where = f"{self.name} node {'/'.join(path) or 'root'}"
                shown = block + "".join(f"\n{o}" for o in outputs)
                if "task" in node:
                    reply = self.ask(
                        TASK_PROMPT,
                        what=where,
                        schema={"type": "object", "properties": {"output": {"type": "string"}}, "required": ["output"]},
                        task=node["task"],
                        case=shown,
                    )
                    outputs.append(f"{node['output']}: {reply['output']}")
                    path.append(f"{node['output']}")
                    node = node["then"]
                    continue
                labels = [str(k).strip().lower() for k in node["children"]]
                reply = self.ask(
                    JUDGEMENT_PROMPT,
                    what=where,
                    schema=verdict_schema(*labels),
                    criteria=node["judge"],
                    verdicts=", ".join(json.dumps(label) for label in labels),
                    case=shown,
                )
                verdict = reply["verdict"]
                path.append(f"{node['judge'][:40]} -> {verdict}")
                node = dict(zip(labels, node["children"].values()))[verdict]
        except JudgeParseError as exc:
            return self.unscored(["dag"], exc)
        value = float(node) / self.params["max_score"]
        return Score(
            {"dag": value, "parse_failure": 0.0},
            f"{' | '.join(path)} => {node}/{self.params['max_score']}",
            {"path": path},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"task": TASK_PROMPT, "judgement": JUDGEMENT_PROMPT}
