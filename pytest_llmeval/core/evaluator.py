"""The evaluator contract.

An evaluator is a small class that declares, as class attributes, what it needs
(``requires``), what it measures (``metrics``) and how (``reproducible``,
``needs_judge``, ``uses_models``, ``gpu``); takes its parameters as keyword
arguments, checked when it is built; and scores a **batch** of cases at once,
returning one :class:`~pytest_llmeval.core.result.Result` per case.

Subclasses implement :meth:`Evaluator.score` (one case) or, when batching pays
(model calls), :meth:`Evaluator.score_batch`.

>>> from pytest_llmeval.checks.lexical.exact_match import ExactMatch
>>> [r.passed for r in ExactMatch(ignore_case=True).evaluate([Case(actual="Paris", expected="paris")])]
[True]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from .case import CASE_FIELDS, Case
from .result import UNVERIFIED_ACTIONS, Result, Signature, missed_thresholds, passed_for

if TYPE_CHECKING:
    from ..models.cache import ModelCache

__all__ = ["Evaluator", "MetricSpec", "Score", "MissingInputError", "UncalibratedWarning", "EXCERPT_CHARS"]


#: How much of an answer a result keeps for reports.
EXCERPT_CHARS = 300


class MissingInputError(ValueError):
    """A case lacks a field the evaluator requires."""


class UncalibratedWarning(UserWarning):
    """A default threshold was measured for other scoring models than the one in use."""


@dataclass(frozen=True)
class MetricSpec:
    """One metric an evaluator reports.

    Args:
        name: Key in ``Result.metrics``.
        description: One line for reports and ``--help``.
        higher_is_better: Direction of the metric.
        range: The values it can take.
        threshold: Default threshold (from the catalog), or ``None`` for none.
        primary: Whether it is the evaluator's primary metric (exactly one is).
        gates: Whether the default threshold is in force although the metric is
            not the primary one (a second condition of the default verdict).
        calibrated: Default thresholds measured for particular scoring models,
            by model family (``all-minilm-l6-v2``); the catalog's ``threshold`` is
            used for any other model. See ``benchmarks/bench_verdicts.py``.
        weak: Whether missing the threshold is too weak a sign to fail on: the
            verdict is then ``unverified`` unless a metric that is not weak fails
            too (a closeness score, where the named evidence is in another metric).
    """

    name: str
    description: str
    higher_is_better: bool = True
    range: tuple[float, float] = (0.0, 1.0)
    threshold: float | None = 0.5
    primary: bool = False
    gates: bool = False
    calibrated: Mapping[str, float] = field(default_factory=dict)
    weak: bool = False


@dataclass(frozen=True)
class Score:
    """What :meth:`Evaluator.score` returns for one case, before thresholds.

    ``unverified``: the check found nothing it could judge (a judge extracted no claims):
    the verdict is ``unverified`` whatever the thresholds say, unless a metric that is
    not weak fails.
    """

    metrics: Mapping[str, float | None]
    reason: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    unverified: bool = False


class Evaluator:
    """Base class of every evaluator.

    Class attributes a subclass sets:

    - ``name``: the registry name; ``version``: bumped when scores change.
    - ``requires``: case fields that must be present; ``uses``: optional ones it reads.
    - ``metrics``: :class:`MetricSpec` tuple, exactly one ``primary``.
    - ``defaults``: parameter names and default values; anything else is refused.
    - ``case_specific``: parameters that belong to the case, kept out of the signature.
    - ``reporting``: parameters that change only what a result keeps (``sentence_level_metrics``),
      not its scores: kept out of the signature too.
    - ``reproducible``, ``needs_judge``, ``uses_models``, ``gpu``: catalog flags.
    - ``helper``: the ``assert_*`` helper that wraps it (``assert_check(name)`` always works).
    - ``extra``: the pytest-llm-verdict extra it needs installed (``""``: none).
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    description: ClassVar[str] = ""
    requires: ClassVar[tuple[str, ...]] = ("actual",)
    uses: ClassVar[tuple[str, ...]] = ()
    metrics: ClassVar[tuple[MetricSpec, ...]] = ()
    defaults: ClassVar[Mapping[str, Any]] = {}
    #: Parameters that describe the case rather than the method (a JSON schema, say):
    #: left out of the signature, so results for different cases stay comparable.
    case_specific: ClassVar[tuple[str, ...]] = ()
    #: Parameters that change what a result keeps, never a score: left out of the signature.
    reporting: ClassVar[tuple[str, ...]] = ()
    reproducible: ClassVar[bool] = True
    needs_judge: ClassVar[bool] = False
    uses_models: ClassVar[bool] = False
    gpu: ClassVar[bool] = False
    helper: ClassVar[str] = ""
    extra: ClassVar[str] = ""
    #: The judge check that decides this check's unverified answers when a judge is configured (``""``: none).
    escalates_to: ClassVar[str] = ""
    #: That check, bound to the session's judge (:meth:`bind_escalation`), or ``None``.
    escalation: Evaluator | None = None

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            valid = ", ".join(sorted(self.defaults)) or "none"
            raise TypeError(f"{self.name}: unknown parameter(s) {', '.join(unknown)}; valid parameters: {valid}")
        self.params: dict[str, Any] = {**self.defaults, **params}
        self.configure()

    # -- hooks for subclasses -------------------------------------------------

    def configure(self) -> None:
        """Check ``self.params`` and prepare; raise ``ValueError``/``TypeError`` naming the parameter."""

    def score(self, case: Case) -> Score:
        """Score one case."""
        raise NotImplementedError(f"{type(self).__name__} must implement score() or score_batch()")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        """Score many cases; override to batch model calls."""
        return [self.score(case) for case in cases]

    def redact(self, text: str, score: Score) -> str:
        """The answer as reports may show it; leakage evaluators mask what they found."""
        return text

    def backend(self) -> str:
        """The library (and version) that computes the scores."""
        return "python"

    def scoring_model(self) -> str | None:
        """The scoring model's name, for evaluators that use one."""
        return None

    def signature_params(self) -> Mapping[str, Any]:
        """The parameters that define the scoring method (all but ``case_specific`` and ``reporting`` ones)."""
        return {k: v for k, v in self.params.items() if k not in self.case_specific and k not in self.reporting}

    # -- the contract ---------------------------------------------------------

    @classmethod
    def metric_specs(cls) -> dict[str, MetricSpec]:
        return {spec.name: spec for spec in cls.metrics}

    @classmethod
    def primary_metric(cls) -> MetricSpec:
        primaries = [spec for spec in cls.metrics if spec.primary]
        if len(primaries) != 1:
            raise TypeError(f"{cls.__name__} must declare exactly one primary metric, has {len(primaries)}")
        return primaries[0]

    def bind_escalation(self, judge_check: Evaluator | None) -> None:
        """Send the answers this check leaves unverified to ``judge_check`` (the plugin binds it when a judge is set)."""
        self.escalation = judge_check
        self.__dict__.pop("_signature", None)  # verdicts a judge may decide are not comparable with offline ones

    def signature(self) -> Signature:
        """How this evaluator scores; computed once (reading package versions is not free)."""
        cached = self.__dict__.get("_signature")
        if cached is None:
            cached = self.__dict__["_signature"] = self._make_signature()
        return cached

    def _make_signature(self) -> Signature:
        params = dict(self.signature_params())
        if self.escalation is not None and self.weak_metrics():
            params["escalation"] = f"{self.escalation.name} {self.escalation.scoring_model()}"
        return Signature(
            evaluator=self.name,
            version=self.version,
            backend=self.backend(),
            model=self.scoring_model(),
            params=params,
        )

    def check_inputs(self, case: Case) -> None:
        """Raise :class:`MissingInputError` naming each required field the case lacks."""
        if not isinstance(case, Case):
            raise TypeError(f"{self.name}: expected a Case, got {type(case).__name__}")
        missing = [name for name in self.requires if not case.has(name)]
        if missing:
            wanted = "; ".join(f"{name!r} ({CASE_FIELDS[name]})" for name in missing)
            raise MissingInputError(f"{self.name} requires {wanted}, but the case has none")

    def active_primary(self) -> MetricSpec:
        """The primary metric of this instance (a parameter such as ``method`` may pick another)."""
        return self.primary_metric()

    def gating_metrics(self) -> list[MetricSpec]:
        """The metrics whose default thresholds are in force: the primary and any that ``gates``."""
        primary = self.active_primary()
        return [primary, *(spec for spec in self.metrics if spec.gates and spec.name != primary.name)]

    def default_threshold(self, spec: MetricSpec) -> float | None:
        """The default threshold of ``spec`` for this instance (calibrated evaluators look up their model)."""
        return spec.threshold

    def weak_metrics(self) -> frozenset[str]:
        """The metrics whose miss alone makes the verdict ``unverified`` (a parameter such as ``method`` may change them)."""
        return frozenset(spec.name for spec in self.metrics if spec.weak)

    def decide(self, failed: Sequence[str], unscored: bool, score: Score) -> str:
        """``pass``, ``fail`` or ``unverified`` from the metrics that missed their thresholds."""
        strong = [metric for metric in failed if metric not in self.weak_metrics()]
        if strong:
            return "fail"
        if score.unverified or failed:
            return "unverified"
        return "fail" if unscored else "pass"

    def resolve_thresholds(self, overrides: Mapping[str, float | None] | None = None) -> dict[str, float]:
        """The thresholds in force: the gating metrics' defaults, then ``overrides`` (``None`` switches a metric off)."""
        specs = self.metric_specs()
        thresholds: dict[str, float] = {}
        for spec in self.gating_metrics():
            if overrides and spec.name in overrides:
                continue  # the caller's value wins; no default (nor an uncalibrated-model warning) is needed
            default = self.default_threshold(spec)
            if default is not None and not math.isinf(default):
                thresholds[spec.name] = default
        for metric, value in (overrides or {}).items():
            if metric not in specs:
                raise ValueError(
                    f"{self.name}: no metric {metric!r} to set a threshold on; metrics: {', '.join(specs)}"
                )
            if value is None:
                thresholds.pop(metric, None)
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{self.name}: threshold for {metric!r} must be a number, got {value!r}")
            if math.isinf(value) and (value > 0) != specs[metric].higher_is_better:
                thresholds.pop(metric, None)  # an infinite limit gates nothing (the catalog's GPTScore default)
                continue
            low, high = specs[metric].range
            if not low <= value <= high:
                raise ValueError(f"{self.name}: threshold {value} for {metric!r} is outside its range [{low}, {high}]")
            thresholds[metric] = float(value)
        return thresholds

    def error_results(self, cases: Sequence[Case], thresholds: Mapping[str, float | None] | None, message: str) -> list[Result]:
        """One failed, unscored result per case, for a check that could not be computed (its judge failed)."""
        try:
            in_force = self.resolve_thresholds(thresholds)
        except (TypeError, ValueError):
            in_force = {}
        specs = self.metric_specs()
        signature = replace(self.signature(), thresholds=in_force)
        return [
            Result(
                evaluator=self.name,
                metrics={name: None for name in specs},
                primary=self.active_primary().name,
                passed=False,
                thresholds=in_force,
                higher_is_better={name: spec.higher_is_better for name, spec in specs.items()},
                signature=signature,
                reason=message[:500],
                details={"error": message[:1000]},
                model=case.model,
                case_id=case.case_id,
                excerpt=None if case.actual is None else case.actual[:EXCERPT_CHARS],
            )
            for case in cases
        ]

    def evaluate(
        self,
        cases: Sequence[Case],
        *,
        thresholds: Mapping[str, float | None] | None = None,
        unverified: str = "pass",
    ) -> list[Result]:
        """Score ``cases`` and judge them against the thresholds; one result per case, in order.

        ``unverified`` is what an unverified verdict makes of ``passed``: ``pass`` and
        ``skip`` leave it passed, ``fail`` fails it (the verdict stays ``unverified``).
        """
        require_choice(self.name, "unverified", unverified, UNVERIFIED_ACTIONS)
        cases = list(cases)
        for case in cases:
            self.check_inputs(case)
        in_force = self.resolve_thresholds(thresholds)
        scores = self.score_batch(cases)
        if len(scores) != len(cases):
            raise RuntimeError(f"{self.name}: score_batch returned {len(scores)} scores for {len(cases)} cases")
        specs = self.metric_specs()
        directions = {name: spec.higher_is_better for name, spec in specs.items()}
        signature = replace(self.signature(), thresholds=in_force)
        primary = self.active_primary().name
        results = []
        for case, score in zip(cases, scores):
            unknown = set(score.metrics) - set(specs)
            if unknown:
                raise RuntimeError(f"{self.name}: score() returned undeclared metrics {sorted(unknown)}")
            metrics = {name: score.metrics.get(name) for name in specs}
            failed = missed_thresholds(metrics, in_force, directions)  # the Result is built once, below
            # A primary metric that could not be computed never counts as a pass.
            unscored = metrics[primary] is None and primary in in_force
            verdict = self.decide(failed, unscored, score)
            results.append(
                Result(
                    evaluator=self.name,
                    metrics=metrics,
                    primary=primary,
                    passed=passed_for(verdict, unverified),
                    verdict=verdict,
                    thresholds=in_force,
                    higher_is_better=directions,
                    signature=signature,
                    reason=score.reason,
                    details=score.details,
                    model=case.model,
                    case_id=case.case_id,
                    excerpt=None if case.actual is None else self.redact(case.actual, score)[:EXCERPT_CHARS],
                )
            )
        if self.escalation is not None and any(r.verdict == "unverified" for r in results):
            results = self._escalate(cases, results, unverified)
        return results

    def _escalate(self, cases: Sequence[Case], results: list[Result], unverified: str) -> list[Result]:
        """The unverified results decided by the judge check :attr:`escalation` (the others cost no judge call).

        The judge's verdict becomes the check's, with the judge's reason first and the
        offline one after it; the judge's own details (and its usage) are kept under
        ``escalated``. A judge that cannot answer (offline, unreachable, failing) leaves
        the result unverified, and says why.
        """
        from ..judges.base import JudgeError
        from ..judges.cache import ReplayMiss
        from ..judges.runner import JudgeUnavailable

        judge = self.escalation
        assert judge is not None

        def undecided(offline: Result, why: str, details: Mapping[str, Any]) -> Result:
            note = f"the judge ({judge.name}) could not decide: {why[:300]}"
            return replace(offline, reason=f"{offline.reason}; {note}"[:2000], details={**details, "escalated": {"check": judge.name, "error": note}})

        pending = [i for i, r in enumerate(results) if r.verdict == "unverified"]
        try:
            decided = judge.evaluate([cases[i] for i in pending], unverified=unverified)
        except (JudgeUnavailable, ReplayMiss, JudgeError) as exc:
            return [undecided(r, str(exc), r.details) if i in pending else r for i, r in enumerate(results)]
        out = list(results)
        for index, verdict in zip(pending, decided):
            offline = out[index]
            details = {**offline.details}
            usage = verdict.details.get("judge") if verdict.details else None
            if usage is not None:
                details["judge"] = usage  # counted as this check's judge calls
            if verdict.score is None and verdict.verdict == "fail":
                # The judge's reply could not be used (or scored nothing): that is no verdict on the answer.
                out[index] = undecided(offline, verdict.reason, details)
                continue
            details["escalated"] = {"check": judge.name, "verdict": verdict.verdict, "score": verdict.score, "reason": verdict.reason[:500]}
            reason = f"the judge ({judge.name}) decided {verdict.verdict}: {verdict.reason}; offline: {offline.reason}"
            out[index] = replace(offline, verdict=verdict.verdict, passed=passed_for(verdict.verdict, unverified), reason=reason[:2000],
                                 details=details)
        return out


def package_version(package: str) -> str:
    """``"name version"`` of an installed distribution, or ``"name (not installed)"`` (for signatures)."""
    from importlib import metadata

    try:
        return f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        return f"{package} (not installed)"


class ModelEvaluator(Evaluator):
    """An evaluator that runs a local model through the session's :class:`~pytest_llmeval.models.cache.ModelCache`.

    The plugin calls :meth:`bind` with the session's cache, so each model loads once
    per process; used on its own, the evaluator makes a private cache on first use.
    """

    uses_models = True
    gpu = True
    models: ModelCache | None = None

    def bind(self, models: ModelCache | None) -> None:
        """Use the session's model cache (the plugin calls this)."""
        self.models = models
        self.__dict__.pop("_signature", None)  # the scoring model's signature may depend on the cache

    def _cache(self) -> ModelCache:
        if self.models is None:
            from ..models.cache import ModelCache

            self.models = ModelCache()
        return self.models


def require_choice(owner: str, name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise ``ValueError`` naming the parameter and the valid values."""
    if value not in choices:
        raise ValueError(f"{owner}: parameter {name!r} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def require_type(owner: str, name: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    """Raise ``TypeError`` naming the parameter and what was expected."""
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
        raise TypeError(f"{owner}: parameter {name!r} must be {what}; got {value!r:.80}")


def require_number(
    owner: str, name: str, value: Any, *, low: float, high: float | None = None, integer: bool = False
) -> None:
    """Check a numeric parameter's type and range; errors name the parameter and the valid range."""
    if integer:
        require_type(owner, name, value, int, f"an integer of at least {low}")
    else:
        require_type(owner, name, value, (int, float), f"a number between {low} and {high}" if high is not None else "a number")
    if high is not None and not low <= value <= high:
        raise ValueError(f"{owner}: parameter {name!r} must be between {low} and {high}; got {value}")
    if high is None and value < low:
        raise ValueError(f"{owner}: parameter {name!r} must be at least {low}; got {value}")
