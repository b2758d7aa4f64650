"""The evaluator contract.

An evaluator is a small class that declares, as class attributes, what it needs
(``requires``), what it measures (``metrics``) and how (``reproducible``,
``needs_judge``, ``uses_models``, ``gpu``); takes its parameters as keyword
arguments, checked when it is built; and scores a **batch** of cases at once,
returning one `Result` per case.

Subclasses implement `Evaluator.score()` (one case) or, when batching pays
(model calls), `Evaluator.score_batch()`.

>>> from pytest_llmeval.checks.lexical.exact_match import ExactMatch
>>> [r.passed for r in ExactMatch(ignore_case=True).evaluate([Case(actual="Paris", expected="paris")])]
[True]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from .case import CASE_FIELDS, Case
from .errors import MissingInputError
from .params import require_choice
from .verdict import Measure, Verdict
from .result import UNVERIFIED_ACTIONS, Result, Signature, missed_thresholds, passed_for

__all__ = ["Evaluator", "MetricSpec", "Score", "Verdict", "EXCERPT_CHARS", "package_version"]


#: How much of an answer a result keeps for reports.
EXCERPT_CHARS = 300


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
    """What `Evaluator.score()` returns for one case, before thresholds.

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
    - ``metrics``: `MetricSpec` tuple, exactly one ``primary``.
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
    #: Who decides when a model scores the check (`DECIDERS`): ``embedding`` for an embedding model's similarity,
    #: ``detector`` for any other scoring model.
    model_decider: ClassVar[str] = "detector"
    gpu: ClassVar[bool] = False
    helper: ClassVar[str] = ""
    extra: ClassVar[str] = ""
    #: The judge check that decides this check's unverified answers when a judge is configured (``""``: none);
    #: the session wires the two together (`pytest_llmeval.run.escalation`).
    escalates_to: ClassVar[str] = ""
    #: Whether a detector (`pytest_llmeval.models.detectors`) may decide this check's unverified answers: the check
    #: reads an answer against its context, as the detectors do.
    detects: ClassVar[bool] = False

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

    def planned_texts(self, cases: Sequence[Case]) -> list[str]:
        """The texts this check would encode to score ``cases`` (the run encodes them ahead, in batches); ``[]``:
        none."""
        return []

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

    @classmethod
    def cases_from(cls, fields: Mapping[str, Any], case_id: str | None) -> list[Case]:
        """The cases one call of the check scores, from its case fields: one `Case`
        (a check that reads a set from lists, as ``classification`` does, returns several, scored as one)."""
        return [Case(case_id=case_id, **fields)]

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

    def signature(self) -> Signature:
        """How this evaluator scores; computed once (reading package versions is not free)."""
        cached = self.__dict__.get("_signature")
        if cached is None:
            cached = self.__dict__["_signature"] = self._make_signature()
        return cached

    def _make_signature(self) -> Signature:
        params = dict(self.signature_params())
        return Signature(
            evaluator=self.name, version=self.version, backend=self.backend(), model=self.scoring_model(), params=params
        )

    def check_inputs(self, case: Case) -> None:
        """Raise `MissingInputError` naming each required field the case lacks."""
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
        """The metrics whose miss alone makes the verdict ``unverified`` (a parameter such as ``method`` may change
        them)."""
        return frozenset(spec.name for spec in self.metrics if spec.weak)

    def decider(self) -> str:
        """Who decides this check's verdicts (`DECIDERS`): its judge, its scoring
        model, else its rules."""
        return "judge" if self.needs_judge else self.model_decider if self.uses_models else "rules"

    def decide(self, failed: Sequence[str], unscored: bool, score: Score) -> Verdict:
        """The verdict from the metrics that missed their thresholds (``failed``): *fail* when one that is not weak
        missed (or the primary metric could not be scored), *unverified* when only weak ones missed or the score
        says it found nothing it could judge, else *pass*. A check that decides otherwise overrides this."""
        by = self.decider()
        strong = [metric for metric in failed if metric not in self.weak_metrics()]
        if strong:
            return Verdict("fail", by, tuple(strong))
        if score.unverified or failed:
            return Verdict("unverified", by, tuple(failed))
        return Verdict("fail", by, (self.active_primary().name,)) if unscored else Verdict("pass", by)

    def split(self, score: Score, thresholds: Mapping[str, float]) -> str | None:
        """Why a decided verdict is left unverified after all (its scorer disagreed with itself), or ``None``; the
        result says it in its reason and under ``details["split"]``.

        The base says ``None``; a judge check asked several times says why when its repeats fall on both sides of the
        threshold in force (`pytest_llmeval.judges.evaluator.JudgeEvaluator.split`)."""
        return None

    def resolve_thresholds(self, overrides: Mapping[str, float | None] | None = None) -> dict[str, float]:
        """The thresholds in force: the gating metrics' defaults, then ``overrides`` (``None`` switches a metric
        off)."""
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

    def error_results(
        self, cases: Sequence[Case], thresholds: Mapping[str, float | None] | None, message: str
    ) -> list[Result]:
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
                metrics=dict.fromkeys(specs),
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

    def _deciding(self, outcome: str, failed: Sequence[str], in_force: Mapping[str, float]) -> list[str]:
        """The metrics a verdict rests on: for a failure, those that are not weak and missed (the primary when it could
        not be scored); for an unverified answer, those that missed; for a pass, every metric held to a threshold."""
        if outcome == "fail":
            strong = [m for m in failed if m not in self.weak_metrics()]
            return strong or list(failed) or [self.active_primary().name]
        if outcome == "unverified":
            return list(failed)
        return list(in_force)

    @staticmethod
    def _measures(
        names: Sequence[str],
        metrics: Mapping[str, float | None],
        in_force: Mapping[str, float],
        directions: Mapping[str, bool],
    ) -> tuple[Measure, ...]:
        return tuple(Measure(name, metrics.get(name), in_force.get(name), directions.get(name, True)) for name in names)

    def evaluate(
        self, cases: Sequence[Case], *, thresholds: Mapping[str, float | None] | None = None, unverified: str = "pass"
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
            if not verdict.metrics:
                verdict = replace(
                    verdict,
                    metrics=self._measures(
                        self._deciding(verdict.outcome, failed, in_force), metrics, in_force, directions
                    ),
                )
            split = self.split(score, in_force) if verdict.outcome != "unverified" else None
            if split:  # the scorer disagreed with itself: a new verdict, overruling the one it would have made
                verdict = verdict.overrule(
                    "unverified", verdict.decided_by, (split,), self._measures([primary], metrics, in_force, directions)
                )
            results.append(
                Result(
                    evaluator=self.name,
                    metrics=metrics,
                    primary=primary,
                    passed=passed_for(verdict.outcome, unverified),
                    decision=verdict,
                    thresholds=in_force,
                    higher_is_better=directions,
                    signature=signature,
                    reason=f"{split}; {score.reason}" if split else score.reason,
                    details={**score.details, "split": split}
                    if split
                    else score.details,  # said as data, not only in words
                    model=case.model,
                    case_id=case.case_id,
                    excerpt=None if case.actual is None else self.redact(case.actual, score)[:EXCERPT_CHARS],
                )
            )
        return results


def package_version(package: str) -> str:
    """``"name version"`` of an installed distribution, or ``"name (not installed)"`` (for signatures)."""
    from importlib import metadata

    try:
        return f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        return f"{package} (not installed)"
