"""The base of every judge check: asking the session's judge (verdicts cached and replayable), reply schemas,
repeats, and the metrics and statement splitting the judge checks share.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

from ..core.case import Case
from ..core.evaluator import Evaluator, MetricSpec, Score
from .base import JudgeParseError

__all__ = [
    "JudgeEvaluator",
    "PROMPTS",
    "STATEMENTS_PROMPT",
    "check_prompts",
    "template_fields",
    "PARSE_FAILURE",
    "ask_choice",
    "ask_yes_no",
    "judge_metrics",
    "judge_statements",
    "list_schema",
    "prompt_fields",
    "score_schema",
    "verdict_schema",
]


T = TypeVar("T")


class JudgeEvaluator(Evaluator):
    """Base of judge checks: the session's judge runner, prompts by template, parse failures as a metric.

    A judge check's prompts are public: its module's ``PROMPTS`` table (name -> template, DeepEval's
    ``template.py``), merged along the class's bases (`default_prompts()`). Every judge check takes a
    ``prompts`` parameter, ``{name: template}``, that replaces some of them for a call
    (``evaluate("faithfulness", params={"prompts": {"claims": ...}})``, ``assert_faithful(..., prompts=...)``);
    the ``pytest_llmeval_judge_prompts`` hook replaces them for a run. A replacement must use only the fields
    of the template it replaces. The effective prompts' version (a hash) is in the signature, so verdicts
    under other prompts are never compared, and the verdict cache keys on the prompt's text.
    """

    needs_judge = True
    reproducible = False
    runner: Any = None
    #: The name verdicts are stored under (default: the check's own); checks asking the same question share one.
    verdicts_of: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "prompts" not in cls.defaults:
            cls.defaults = {**cls.defaults, "prompts": None}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._bound_prompts: dict[str, str] = {}
        self._templates = check_prompts(self.name, self.default_prompts(), self.params.get("prompts"), "prompts")

    @classmethod
    def default_prompts(cls) -> dict[str, str]:
        """The check's prompts by name: the ``PROMPTS`` tables of its module and its bases' modules (its own win)."""
        import sys

        found: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            table = getattr(sys.modules.get(klass.__module__), "PROMPTS", None)
            if isinstance(table, Mapping):
                found.update(table)
        return found

    def bind_prompts(self, prompts: Mapping[str, str] | None) -> None:
        """Prompts the run replaces (the ``pytest_llmeval_judge_prompts`` hook); a call's own ``prompts`` win."""
        self._bound_prompts = check_prompts(self.name, self.default_prompts(), prompts, "pytest_llmeval_judge_prompts")
        self._templates = {
            **self._bound_prompts,
            **check_prompts(self.name, self.default_prompts(), self.params.get("prompts"), "prompts"),
        }
        self.__dict__.pop("_signature", None)

    def prompts(self) -> dict[str, str]:
        """The prompts this instance asks with, by name (defaults, then the run's, then the call's replacements)."""
        return {**self.default_prompts(), **self._templates}

    def signature_params(self) -> Mapping[str, Any]:
        params = {k: v for k, v in super().signature_params().items() if k != "prompts"}
        prompts = self.prompts()
        if prompts:
            text = json.dumps(prompts, sort_keys=True)
            params["prompts"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        return params

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

    def ask(
        self,
        template: str,
        *,
        what: str,
        schema: Mapping[str, Any] | None = None,
        repeat: int = 0,
        options: Mapping[str, Any] | None = None,
        normalise: Callable[[Any], Any] | None = None,
        **fields: str,
    ) -> Any:
        """The judge's JSON reply to ``template`` filled with ``fields``, checked against ``schema``.

        ``normalise`` tidies the reply before the check; by default ``verdict`` values
        are lower-cased and stripped (small judges say "Yes").
        """
        return self.ask_fields(
            template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise
        )[0]

    def ask_reply(
        self,
        template: str,
        *,
        what: str,
        schema: Mapping[str, Any] | None = None,
        repeat: int = 0,
        options: Mapping[str, Any] | None = None,
        normalise: Callable[[Any], Any] | None = None,
        **fields: str,
    ) -> tuple[Any, Any]:
        """`ask()`'s value and the raw reply it came from (for log-probabilities)."""
        return self.ask_fields(
            template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise
        )

    def fan_out(self, jobs: Sequence[Callable[[], T]]) -> list[T]:
        """A check's independent judge requests, together (see `pytest_llmeval.judges.runner.fan_out()`)."""
        if self.runner is None:
            return [job() for job in jobs]
        return self.runner.fan_out(jobs)  # type: ignore[no-any-return]

    def ask_fields(
        self,
        template: str,
        fields: Mapping[str, str],
        *,
        what: str,
        schema: Mapping[str, Any] | None = None,
        repeat: int = 0,
        options: Mapping[str, Any] | None = None,
        normalise: Callable[[Any], Any] | None = None,
    ) -> tuple[Any, Any]:
        """`ask_reply()` with the template's ``fields`` given as one mapping."""
        from .runner import JudgeUnavailable

        if self.runner is None:
            raise JudgeUnavailable("llmeval judge unavailable: no judge configured (set --llmeval-judge-model)")
        schema = schema or {"type": "object"}
        runner = self.runner
        if self._templates:
            names = {text: name for name, text in self.default_prompts().items()}
            template = self._templates.get(names.get(template, ""), template)

        def parse(reply: Any) -> Any:
            value = (normalise or _lower_verdict)(reply.json())
            runner.validate(value, schema)
            return value

        current = _REPEAT.get()
        reply = self.runner.reply(
            evaluator=self.verdicts_of or self.name,
            version=self.version,
            template=template,
            messages=[{"role": "user", "content": template.format(**fields)}],
            schema=schema,
            repeat=repeat + current,
            what=what if not current else f"{what} (repeat {current})",
            options=options,
            parse=parse,
        )
        try:
            return parse(reply), reply
        except JudgeParseError:
            self.runner.count_parse_failure(self.name)
            raise

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        """Score each case, with the judge use it took (calls, replays, tokens, cost) in its details as ``judge``; the
        cases' requests go out together (bounded by the judge's concurrency).

        With ``repeats`` > 1 (``llmeval_judge_repeats``), each case is judged that many
        times (each repeat its own recorded verdicts) and every metric is the mean over
        the repeats; the primary metric's values per repeat and their spread are in
        ``details["repeats"]``, so a flickering judge shows instead of deciding alone.
        """
        if self.runner is None:
            return [self.score(case) for case in cases]
        runner = self.runner
        repeats = max(1, int(getattr(runner, "repeats", 1)))

        def one(case: Case) -> Score:
            with runner.metered() as usage:
                runs = []
                for index in range(repeats):
                    token = _REPEAT.set(index)
                    try:
                        runs.append(self.score(case))
                    finally:
                        _REPEAT.reset(token)
            score = runs[0] if repeats == 1 else self._mean_of(runs)
            return Score(score.metrics, score.reason, {**score.details, "judge": usage.as_dict()}, score.unverified)

        # Several cases (a deferred batch, evaluate_many): their requests go out together, each case metered on its own
        # (a model a check loads meanwhile loads once, under the model cache's lock).
        if len(cases) == 1:
            return [one(cases[0])]
        return self.fan_out([lambda case=case: one(case) for case in cases])  # type: ignore[misc]

    def _mean_of(self, runs: Sequence[Score]) -> Score:
        primary = self.primary_metric().name
        metrics: dict[str, float | None] = {}
        for name in runs[0].metrics:
            present = [v for v in (r.metrics.get(name) for r in runs) if v is not None]
            metrics[name] = sum(present) / len(present) if present else None
        values = [r.metrics.get(primary) for r in runs]
        scored = [v for v in values if v is not None]
        spread = (max(scored) - min(scored)) if scored else None
        # The judge's agreement with itself: the share of repeats that gave the most common value.
        agreement = max(scored.count(v) for v in scored) / len(values) if scored else None
        shown = ", ".join("n/a" if v is None else f"{v:.3f}" for v in values)
        reason = f"mean of {len(runs)} repeats ({shown}); first: {runs[0].reason}"
        # Unverified when no repeat found anything to judge; a repeat that did decides.
        return Score(
            metrics,
            reason,
            {**runs[0].details, "repeats": {"values": values, "range": spread, "agreement": agreement}},
            all(r.unverified for r in runs),
        )

    def split(self, score: Score, thresholds: Mapping[str, float]) -> str | None:
        """A judge asked several times (``judge.repeats``) whose answers fall on both sides of the threshold
        in force has not decided: the answer stays unverified, and this says so."""
        repeats = score.details.get("repeats") if score.details else None
        primary = self.active_primary()
        limit = thresholds.get(primary.name)
        if not isinstance(repeats, Mapping) or limit is None:
            return None
        values = [v for v in repeats.get("values") or [] if isinstance(v, (int, float))]
        sides = {(v >= limit) if primary.higher_is_better else (v <= limit) for v in values}
        if len(sides) < 2:
            return None
        shown = ", ".join(f"{v:.3g}" for v in values)
        return f"the judge split: its {len(values)} repeats ({shown}) fall on both sides of the threshold {limit:g}"

    def unscored(self, metrics: Sequence[str], error: Exception) -> Score:
        return Score(
            {**dict.fromkeys(metrics), "parse_failure": 1.0}, f"the judge's reply could not be used: {error}", {}
        )

    @staticmethod
    def nothing_to_judge(metrics: Sequence[str], what: str, details: Mapping[str, Any] | None = None) -> Score:
        """The judge found nothing to judge (no claims, no statements): unscored and unverified, never a silent pass."""
        return Score(
            {**dict.fromkeys(metrics), "parse_failure": 0.0},
            f"unverified: {what}",
            dict(details or {}),
            unverified=True,
        )


#: The repeat being judged (0 .. repeats-1): part of every verdict's key, so each repeat is its own verdict.
_REPEAT: ContextVar[int] = ContextVar("pytest_llmeval_judge_repeat", default=0)


def _lower_verdict(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("verdict"), str):
        value["verdict"] = value["verdict"].strip().lower()
    return value


def verdict_schema(*allowed: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": list(allowed)}, "reason": {"type": "string"}},
        "required": ["verdict"],
    }


def list_schema(key: str) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": "array", "items": {"type": "string"}}}, "required": [key]}


YES_NO = verdict_schema("yes", "no")


def score_schema(low: int, high: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"score": {"type": "integer", "minimum": low, "maximum": high}, "reason": {"type": "string"}},
        "required": ["score"],
    }


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
PARSE_FAILURE = MetricSpec(
    "parse_failure", "1 when a judge reply could not be used", higher_is_better=False, threshold=None
)


def judge_metrics(primary: str, description: str, higher_is_better: bool = True) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec(
            primary,
            description,
            higher_is_better=higher_is_better,
            threshold=0.75 if higher_is_better else 0.25,
            primary=True,
        ),
        PARSE_FAILURE,
    )


STATEMENTS_PROMPT = """Break the text below into short, self-contained factual statements. Reply with JSON only:
{{"statements": ["...", "..."]}}

Text: {text}
"""


#: The prompts every judge check may use (`JudgeEvaluator.default_prompts()`).
PROMPTS: Mapping[str, str] = {"statements": STATEMENTS_PROMPT}


def check_prompts(owner: str, defaults: Mapping[str, str], given: Any, argument: str) -> dict[str, str]:
    """``given`` prompt replacements, checked: a mapping of known prompt names to templates that use only the fields
    of the template each replaces. Errors name the argument and the prompts and fields it may use."""
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise TypeError(f"{owner}: {argument} must be a mapping of prompt name to template; got {type(given).__name__}")
    out = {}
    for name, text in given.items():
        if name not in defaults:
            raise ValueError(
                f"{owner}: {argument} has no prompt {name!r}; its prompts: {', '.join(sorted(defaults)) or 'none'}"
            )
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"{owner}: {argument}[{name!r}] must be a non-empty template (str); got {text!r:.80}")
        allowed, used = template_fields(defaults[name]), template_fields(text)
        if used is None or not used <= (allowed or set()):
            shown = ", ".join("{" + f + "}" for f in sorted(allowed or ())) or "none"
            raise ValueError(
                f"{owner}: {argument}[{name!r}] may use the fields {shown} (double literal braces: {{{{ }}}}); "
                f"got {text!r:.120}"
            )
        out[str(name)] = text
    return out


def template_fields(text: str) -> set[str] | None:
    """The ``{field}`` names a ``str.format`` template uses, or ``None`` if it is not a valid template."""
    import string

    try:
        return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(text) if field}
    except ValueError:
        return None


def judge_statements(evaluator: JudgeEvaluator, text: str, what: str) -> list[str]:
    return list(evaluator.ask(STATEMENTS_PROMPT, what=what, schema=list_schema("statements"), text=text)["statements"])
