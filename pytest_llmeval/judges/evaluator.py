"""The base of every judge check: asking the session's judge (verdicts cached and replayable), reply schemas,
repeats, and the metrics and statement splitting the judge checks share.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

from ..core.case import Case
from ..core.evaluator import Evaluator, MetricSpec, Score
from .base import JudgeParseError

__all__ = ["JudgeEvaluator"]


T = TypeVar("T")


class JudgeEvaluator(Evaluator):
    """Base of judge checks: the session's judge runner, prompts by template, parse failures as a metric."""

    needs_judge = True
    reproducible = False
    runner: Any = None
    #: The name verdicts are stored under (default: the check's own); checks asking the same question share one.
    verdicts_of: ClassVar[str] = ""

    def bind_judge(self, runner: Any) -> None:
        self.runner = runner
        self.__dict__.pop("_signature", None)

    def scoring_model(self) -> str | None:
        if self.runner is None or self.runner.judge is None:
            return "judge:unconfigured"
        signature = dict(self.runner.judge.signature())
        repeats = getattr(self.runner, "repeats", 1)
        if repeats > 1:
            signature["repeats"] = repeats  # a mean over repeats is not comparable with one verdict
        return "judge:" + json.dumps(signature, sort_keys=True)

    def ask(self, template: str, *, what: str, schema: Mapping[str, Any] | None = None, repeat: int = 0,
            options: Mapping[str, Any] | None = None, normalise: Callable[[Any], Any] | None = None, **fields: str) -> Any:
        """The judge's JSON reply to ``template`` filled with ``fields``, checked against ``schema``.

        ``normalise`` tidies the reply before the check; by default ``verdict`` values
        are lower-cased and stripped (small judges say "Yes").
        """
        return self.ask_fields(template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise)[0]

    def ask_reply(self, template: str, *, what: str, schema: Mapping[str, Any] | None = None, repeat: int = 0,
                  options: Mapping[str, Any] | None = None, normalise: Callable[[Any], Any] | None = None,
                  **fields: str) -> tuple[Any, Any]:
        """:meth:`ask`'s value and the raw reply it came from (for log-probabilities)."""
        return self.ask_fields(template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise)

    def fan_out(self, jobs: Sequence[Callable[[], T]]) -> list[T]:
        """A check's independent judge requests, together (see :func:`pytest_llmeval.judges.runner.fan_out`)."""
        if self.runner is None:
            return [job() for job in jobs]
        return self.runner.fan_out(jobs)  # type: ignore[no-any-return]

    def ask_fields(self, template: str, fields: Mapping[str, str], *, what: str, schema: Mapping[str, Any] | None = None,
                   repeat: int = 0, options: Mapping[str, Any] | None = None,
                   normalise: Callable[[Any], Any] | None = None) -> tuple[Any, Any]:
        """:meth:`ask_reply` with the template's ``fields`` given as one mapping."""
        from .runner import JudgeUnavailable

        if self.runner is None:
            raise JudgeUnavailable("llmeval judge unavailable: no judge configured (set --llmeval-judge-model)")
        schema = schema or {"type": "object"}
        runner = self.runner

        def parse(reply: Any) -> Any:
            value = (normalise or _lower_verdict)(reply.json())
            runner.validate(value, schema)
            return value

        current = _REPEAT.get()
        reply = self.runner.reply(evaluator=self.verdicts_of or self.name, version=self.version, template=template,
                                  messages=[{"role": "user", "content": template.format(**fields)}], schema=schema,
                                  repeat=repeat + current, what=what if not current else f"{what} (repeat {current})",
                                  options=options, parse=parse)
        try:
            return parse(reply), reply
        except JudgeParseError:
            self.runner.count_parse_failure(self.name)
            raise

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        """Score each case, with the judge use it took (calls, replays, tokens, cost) in its details as ``judge``.

        With ``repeats`` > 1 (``llmeval_judge_repeats``), each case is judged that many
        times (each repeat its own recorded verdicts) and every metric is the mean over
        the repeats; the primary metric's values per repeat and their spread are in
        ``details["repeats"]``, so a flickering judge shows instead of deciding alone.
        """
        if self.runner is None:
            return [self.score(case) for case in cases]
        repeats = max(1, int(getattr(self.runner, "repeats", 1)))
        scores = []
        for case in cases:
            with self.runner.metered() as usage:
                runs = []
                for index in range(repeats):
                    token = _REPEAT.set(index)
                    try:
                        runs.append(self.score(case))
                    finally:
                        _REPEAT.reset(token)
            score = runs[0] if repeats == 1 else self._mean_of(runs)
            scores.append(Score(score.metrics, score.reason, {**score.details, "judge": usage.as_dict()}, score.unverified))
        return scores

    def _mean_of(self, runs: Sequence[Score]) -> Score:
        primary = self.primary_metric().name
        metrics: dict[str, float | None] = {}
        for name in runs[0].metrics:
            present = [v for v in (r.metrics.get(name) for r in runs) if v is not None]
            metrics[name] = sum(present) / len(present) if present else None
        values = [r.metrics.get(primary) for r in runs]
        scored = [v for v in values if v is not None]
        spread = (max(scored) - min(scored)) if scored else None
        shown = ", ".join("n/a" if v is None else f"{v:.3f}" for v in values)
        reason = f"mean of {len(runs)} repeats ({shown}); first: {runs[0].reason}"
        # Unverified when no repeat found anything to judge; a repeat that did decides.
        return Score(metrics, reason, {**runs[0].details, "repeats": {"values": values, "range": spread}},
                     all(r.unverified for r in runs))

    def unscored(self, metrics: Sequence[str], error: Exception) -> Score:
        return Score({**{m: None for m in metrics}, "parse_failure": 1.0}, f"the judge's reply could not be used: {error}", {})

    @staticmethod
    def nothing_to_judge(metrics: Sequence[str], what: str, details: Mapping[str, Any] | None = None) -> Score:
        """The judge found nothing to judge (no claims, no statements): unscored and unverified, never a silent pass."""
        return Score({**{m: None for m in metrics}, "parse_failure": 0.0}, f"unverified: {what}", dict(details or {}),
                     unverified=True)


#: The repeat being judged (0 .. repeats-1): part of every verdict's key, so each repeat is its own verdict.
_REPEAT: ContextVar[int] = ContextVar("pytest_llmeval_judge_repeat", default=0)


def _lower_verdict(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("verdict"), str):
        value["verdict"] = value["verdict"].strip().lower()
    return value


def verdict_schema(*allowed: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"verdict": {"type": "string", "enum": list(allowed)}, "reason": {"type": "string"}},
            "required": ["verdict"]}


def list_schema(key: str) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": "array", "items": {"type": "string"}}}, "required": [key]}


YES_NO = verdict_schema("yes", "no")


def score_schema(low: int, high: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"score": {"type": "integer", "minimum": low, "maximum": high}, "reason": {"type": "string"}},
            "required": ["score"]}


def prompt_fields(case: Case) -> dict[str, str]:
    return {
        "question": case.question or "",
        "actual": case.actual or "",
        "expected": "\n".join(case.expected) if case.expected else "",
        "context": "\n\n".join(case.context) if case.context else "",
    }


def ask_choice(evaluator: JudgeEvaluator, template: str, allowed: Sequence[str], what: str, **fields: str) -> str:
    return str(evaluator.ask_fields(template, fields, what=what, schema=verdict_schema(*allowed))[0]["verdict"])


def ask_yes_no(evaluator: JudgeEvaluator, template: str, what: str, **fields: str) -> bool:
    return ask_choice(evaluator, template, ("yes", "no"), what, **fields) == "yes"


#: Every judge check reports it: 1 when the judge's reply could not be used (the case is then unscored).
PARSE_FAILURE = MetricSpec("parse_failure", "1 when a judge reply could not be used", higher_is_better=False, threshold=None)


def judge_metrics(primary: str, description: str, higher_is_better: bool = True) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec(primary, description, higher_is_better=higher_is_better, threshold=0.75 if higher_is_better else 0.25, primary=True),
        PARSE_FAILURE,
    )


_STATEMENTS = """Break the text below into short, self-contained factual statements. Reply with JSON only:
{{"statements": ["...", "..."]}}

Text: {text}
"""


def judge_statements(evaluator: JudgeEvaluator, text: str, what: str) -> list[str]:
    return list(evaluator.ask(_STATEMENTS, what=what, schema=list_schema("statements"), text=text)["statements"])
