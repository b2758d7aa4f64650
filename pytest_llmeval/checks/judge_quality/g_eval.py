"""The ``g_eval`` check: Your criterion, scored by the judge along generated (or given) evaluation steps."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number, require_type
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, list_schema, score_schema
from .custom import FIELD_LABELS, case_block

__all__ = ["assert_geval", "GEval", "weighted_score"]


def assert_geval(
    actual: str,
    criteria: str,
    *,
    evaluation_steps: Sequence[str] | None = None,
    fields: Sequence[str] | None = None,
    scale: int = 10,
    **kwargs: Any,
) -> Result:
    """G-Eval: the judge scores ``criteria`` along evaluation steps (generated unless given); 0-1, threshold 0.5."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "question", "expected", "context"))
    params = {
        "criteria": criteria,
        "evaluation_steps": None if evaluation_steps is None else list(evaluation_steps),
        "fields": None if fields is None else list(fields),
        "scale": scale,
    }
    return check(GEval, actual=actual, params=params, **kwargs)


_SCORE_KEY = re.compile(r'"score"\s*:\s*$')


def weighted_score(
    top_logprobs: Sequence[Mapping[str, Any]], low: int, high: int, expected: int | None = None
) -> float | None:
    """Probability-weighted score from the token log-probabilities of a ``{"score": N}`` reply.

    Finds the token after ``"score":`` and weights each integer alternative in
    ``low..high`` by its probability. ``None`` (use the plain score) when there is no
    such token, when the score is split over several tokens (``1``, ``0`` for 10, as
    some tokenizers do), or when the token is not the score ``expected``.

    >>> tokens = [{"token": '{"score": ', "top": {}}, {"token": "7", "top": {"7": math.log(0.6), "8": math.log(0.4)}}]
    >>> round(weighted_score(tokens, 0, 10), 3)
    7.4
    """
    before = ""
    for index, entry in enumerate(top_logprobs):
        token = str(entry.get("token", ""))
        if _SCORE_KEY.search(before) and token.strip().isdigit():
            following = str(top_logprobs[index + 1].get("token", "")) if index + 1 < len(top_logprobs) else ""
            if following[:1].isdigit() or (expected is not None and int(token.strip()) != expected):
                return None
            weights: dict[int, float] = {}
            for alternative, logprob in dict(entry.get("top") or {token: 0.0}).items():
                text = str(alternative).strip()
                if text.isdigit() and low <= int(text) <= high:
                    weights[int(text)] = weights.get(int(text), 0.0) + math.exp(float(logprob))
            total = sum(weights.values())
            return sum(k * p for k, p in weights.items()) / total if total > 0 else None
        before += token
    return None


STEPS_PROMPT = """You will write evaluation steps for grading an LLM's output on this criterion:

{criteria}

Write 3 to 5 concise, concrete evaluation steps a grader should follow. Reply with JSON only: {{"steps": ["...", \
"..."]}}.
"""


GRADE_PROMPT = """Grade the case below on the criterion, following the evaluation steps.

Criterion: {criteria}
Evaluation steps:
{steps}

{case}

Give a score from 0 (does not meet the criterion at all) to {scale} (fully meets it).
Reply with JSON only: {{"score": <0-{scale}>, "reason": "<one sentence>"}}.
"""


class GEval(JudgeEvaluator):
    """Your criterion, scored by the judge along generated (or given) evaluation steps."""

    name = "g_eval"
    helper = "assert_geval"
    extra = "judge"
    description = "Your criterion, judged along evaluation steps, 0-1 (G-Eval)"
    requires = ("actual",)
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {
        "criteria": None,
        "evaluation_steps": None,
        "fields": None,
        "scale": 10,
        "logprobs": 20,
    }
    metrics = (
        MetricSpec(
            "g_eval",
            "score / scale, probability-weighted when the server gives log-probabilities",
            threshold=0.5,
            primary=True,
        ),
        MetricSpec("raw_score", "the judge's integer score", range=(0.0, 100.0), threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        require_type(
            self.name, "criteria", self.params["criteria"], str, "the criterion to judge, e.g. 'Coherence - ...'"
        )
        steps = self.params["evaluation_steps"]
        if steps is not None:
            require_type(
                self.name, "evaluation_steps", steps, (list, tuple), "a list of step strings (or None to generate them)"
            )
            if not steps or not all(isinstance(s, str) and s.strip() for s in steps):
                raise ValueError(f"{self.name}: parameter 'evaluation_steps' must be non-empty strings; got {steps!r}")
            self.params["evaluation_steps"] = list(steps)
        fields = self.params["fields"]
        if fields is not None:
            if (
                isinstance(fields, str)
                or not isinstance(fields, (list, tuple))
                or not set(fields) <= set(FIELD_LABELS)
                or not fields
            ):
                raise ValueError(
                    f"{self.name}: parameter 'fields' must list case fields from {', '.join(FIELD_LABELS)}; got "
                    f"{fields!r}"
                )
            self.params["fields"] = list(fields)
        require_number(self.name, "scale", self.params["scale"], low=1, high=100, integer=True)
        require_number(self.name, "logprobs", self.params["logprobs"], low=0, high=20, integer=True)
        self._generated_steps: list[str] | None = None
        self._steps_lock = threading.Lock()

    def steps(self) -> list[str]:
        """The evaluation steps: given, or generated once per evaluator (every case is graded along the same ones)."""
        if self.params["evaluation_steps"]:
            return list(self.params["evaluation_steps"])
        with self._steps_lock:
            if self._generated_steps is None:
                self._generated_steps = list(
                    self.ask(
                        STEPS_PROMPT,
                        what=f"{self.name} evaluation steps",
                        schema=list_schema("steps"),
                        criteria=self.params["criteria"],
                    )["steps"]
                )
            return list(self._generated_steps)

    def score(self, case: Case) -> Score:
        scale = self.params["scale"]
        try:
            steps = self.steps()
            fields = dict(
                criteria=self.params["criteria"],
                steps="\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)),
                case=case_block(case, self.params["fields"]),
                scale=str(scale),
            )
            options = {"logprobs": self.params["logprobs"]} if self.params["logprobs"] else None
            value, reply = self.ask_reply(
                GRADE_PROMPT, what=self.name, schema=score_schema(0, scale), options=options, **fields
            )
        except JudgeParseError as exc:
            return self.unscored(["g_eval", "raw_score"], exc)
        weighted = weighted_score(reply.extra.get("top_logprobs") or [], 0, scale, expected=int(value["score"]))
        raw = float(value["score"])
        final = (weighted if weighted is not None else raw) / scale
        how = f"probability-weighted {weighted:.2f}" if weighted is not None else f"{raw:.0f}"
        return Score(
            {"g_eval": final, "raw_score": raw, "parse_failure": 0.0},
            f"{how}/{scale}: {str(value.get('reason', ''))[:200]}",
            {"steps": steps, "weighted": weighted},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"steps": STEPS_PROMPT, "grade": GRADE_PROMPT}
