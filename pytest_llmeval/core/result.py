"""Immutable results of one check, with the signature that makes them comparable.

A `Result` holds the metric values one evaluator gave one case, whether the
case passed its thresholds, a short reason and the evidence. Its `Signature`
says how the values were made (evaluator and version, backend, scoring model,
parameters), in the spirit of sacrebleu's signatures: two results may be compared
only when their signatures are equal.

>>> sig = Signature("exact_match", "1", backend="python", params={"ignore_case": True})
>>> r = Result("exact_match", {"exact_match": 1.0}, primary="exact_match", passed=True,
...            thresholds={"exact_match": 0.5}, higher_is_better={"exact_match": True},
...            signature=sig)
>>> Result.from_dict(r.to_dict()) == r
True
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypedDict

from .verdict import DECIDERS, Measure, Verdict

__all__ = [
    "Result",
    "Record",
    "Signature",
    "freeze",
    "thaw",
    "VERDICTS",
    "UNVERIFIED_ACTIONS",
    "verdict_of",
    "deciding_measure",
    "passed_for",
    "diagnostic",
    "NO_MODEL",
    "missed_thresholds",
    "RECORD_VERSION",
]


#: What a check concluded: the answer passed, failed on named evidence, or could not be verified offline.
VERDICTS = ("pass", "fail", "unverified")


#: What an unverified verdict does to the test: passes it (the default), fails it, or skips it.
UNVERIFIED_ACTIONS = ("pass", "fail", "skip")


#: Version of the record layout written to ``user_properties`` and reports: 2 added ``decision`` (the whole
#: `Verdict`: the metrics that decided and the verdict it overruled); a record of version 1 reads as one whose
#: decision is its verdict and decider alone.
RECORD_VERSION = 2


class _RecordFields(TypedDict):
    evaluator: str
    metrics: dict[str, float | None]
    primary: str
    passed: bool


class Record(_RecordFields, total=False):
    """A result as it travels (``user_properties``, the JSON report, a baseline): `Result.to_dict()`'s shape.

    The controller adds ``nodeid`` (and ``tags`` travel from the test); the report adds
    each test's ``outcome``. Read one back with `Result.from_dict()`.
    """

    record: int
    verdict: str
    decided_by: str
    decision: dict[str, Any]
    thresholds: dict[str, float | None]
    higher_is_better: dict[str, bool]
    signature: dict[str, Any]
    reason: str
    details: Any
    model: str | None
    case_id: str | None
    excerpt: str | None
    nodeid: str
    tags: dict[str, Any]
    outcome: str


#: Values that are immutable as they are: `freeze()` returns them unchanged.
_ATOMIC = frozenset({str, int, bool, float, type(None)})


#: What `thaw()` returns unchanged (a float may be infinite: JSON has no such number).
_EXACT = _ATOMIC - {float}


#: The details of a result without any (shared: it is read-only).
_NO_DETAILS: Mapping[str, Any] = MappingProxyType({})


def _items(value: Any) -> Any:
    """The items of a mapping (or of what ``dict()`` takes: pairs)."""
    kind = type(value)
    return (
        value.items() if kind is dict or kind is MappingProxyType or isinstance(value, Mapping) else dict(value).items()
    )


def freeze(value: Any) -> Any:
    """Deep-copy a JSON-like value into read-only containers (what is immutable already, a number, a string
    or a tuple of them, is returned as it is)."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is dict or kind is MappingProxyType or isinstance(value, Mapping):
        return MappingProxyType(
            {k if type(k) is str else str(k): v if type(v) in _ATOMIC else freeze(v) for k, v in value.items()}
        )
    if kind is tuple and all(type(v) in _ATOMIC for v in value):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Turn a frozen value back into plain ``dict`` / ``list`` for JSON."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind in _ATOMIC:
        return value
    if kind is MappingProxyType or kind is dict or isinstance(value, Mapping):
        return {k: v if type(v) in _EXACT else thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Signature:
    """How a result was made; results compare only when signatures are equal.

    Args:
        evaluator: Registered evaluator name.
        version: Evaluator implementation version; bumped whenever scores change.
        backend: The library that computed the score, with its version.
        model: The scoring model (embedder, classifier, judge), if any.
        params: The evaluator parameters that affect the score.
        thresholds: The thresholds in force when the verdict was given, by metric
            (a calibrated default differs per scoring model, so verdicts made under
            other thresholds are not compared).
    """

    evaluator: str
    version: str
    backend: str = "python"
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    thresholds: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", freeze(dict(sorted(_items(self.params)))))
        object.__setattr__(
            self, "thresholds", MappingProxyType({str(k): float(v) for k, v in sorted(_items(self.thresholds))})
        )

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> str:
        """A stable, readable one-line form, e.g. ``rouge|v1|rouge-score 0.1.2|use_stemmer=True``."""
        parts = [self.evaluator, f"v{self.version}", self.backend]
        if self.model:
            parts.append(f"model={self.model}")
        parts.extend(f"{k}={json.dumps(thaw(v), sort_keys=True)}" for k, v in self.params.items())
        if self.thresholds:
            parts.append("thresholds=" + ",".join(f"{k}:{v:g}" for k, v in self.thresholds.items()))
        return "|".join(parts)

    @property
    def digest(self) -> str:
        """Short hash of `key`, for labels."""
        return hashlib.sha256(self.key.encode()).hexdigest()[:8]

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluator": self.evaluator,
            "version": self.version,
            "backend": self.backend,
            "model": self.model,
            "params": thaw(self.params),
            "thresholds": thaw(self.thresholds),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Signature:
        return cls(
            evaluator=data["evaluator"],
            version=str(data["version"]),
            backend=data.get("backend", "python"),
            model=data.get("model"),
            params=data.get("params") or {},
            thresholds=data.get("thresholds") or {},
        )


def diagnostic(details: Any) -> bool:
    """Whether a result's (or record's) ``details`` mark it *diagnostic*: made by a check that may not gate
    (``calibration.required``), so it is passed whatever its verdict and counts in no gate."""
    found = details.get("calibration") if isinstance(details, Mapping) else None
    return isinstance(found, Mapping) and found.get("status") == "diagnostic"


def passed_for(verdict: str, unverified: str) -> bool:
    """What a verdict makes of its test: passed, unless it failed, or is unverified and the run fails those."""
    return verdict == "pass" or (verdict == "unverified" and unverified != "fail")


#: How results without a model name are shown.
NO_MODEL = "(unnamed)"


def verdict_of(record: Mapping[str, Any]) -> str:
    """A record's verdict: ``pass``, ``fail`` or ``unverified`` (records written before verdicts: from ``passed``)."""
    verdict = record.get("verdict")
    if verdict in VERDICTS:
        return str(verdict)
    return "pass" if record.get("passed") else "fail"


def deciding_measure(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first metric a record's decision rests on, as `Measure.to_dict()` wrote it (``None`` in records of version
    1, and where no metric decided)."""
    decision = record.get("decision")
    measures = decision.get("metrics") if isinstance(decision, Mapping) else None
    first = measures[0] if isinstance(measures, list) and measures else None
    return first if isinstance(first, Mapping) and isinstance(first.get("metric"), str) else None


def missed_thresholds(
    metrics: Mapping[str, float | None], thresholds: Mapping[str, float], higher_is_better: Mapping[str, bool]
) -> list[str]:
    """Names of the ``metrics`` that miss their threshold (a metric with no value misses none)."""
    failed = []
    for name, limit in thresholds.items():
        value = metrics.get(name)
        if value is None:
            continue
        if not (value >= limit if higher_is_better.get(name, True) else value <= limit):
            failed.append(name)
    return failed


@dataclass(frozen=True)
class Result:
    """What one evaluator concluded about one case; immutable.

    Args:
        evaluator: Registered evaluator name.
        metrics: Metric name to value; ``None`` where the metric does not apply
            (e.g. a retrieval metric for a case without context).
        primary: Name of the primary metric.
        passed: Whether every metric with a threshold met it.
        thresholds: The thresholds that were applied, by metric.
        higher_is_better: Direction of each metric.
        signature: How the values were made.
        reason: One line a person can act on.
        details: Evidence (matched spans, schema error path, ...), JSON-serialisable.
        model: The model under test that produced the answer.
        case_id: The id of the evaluated case.
        excerpt: The beginning of the evaluated answer, for reports.
        verdict: ``pass``, ``fail``, or ``unverified`` (no evidence against the answer, but
            not enough to confirm it offline); ``passed`` then says what the run made of
            it (``--llmeval-unverified``). Left out, it follows ``passed``. A *diagnostic* result (`diagnostic()`)
            is passed whatever its verdict.
        decided_by: Who decided the verdict: ``rules``, ``embedding`` (an embedding model's similarity), ``verifier``
            (the claim verifier), ``detector`` (another scoring model) or ``judge`` (`Verdict`); ``""`` for a check
            that could not be computed, and in records written before verdicts said so.
        decision: The whole `Verdict`: its outcome and decider (``verdict`` and ``decided_by`` are those), the metrics
            that decided with their values and thresholds, the evidence, and the verdict of the tier it overruled.
            Left out, it is the verdict and decider alone (none where ``decided_by`` is empty). A later tier replaces
            it through `overruled_by()`, never by rewriting the fields.
    """

    evaluator: str
    metrics: Mapping[str, float | None]
    primary: str
    passed: bool
    thresholds: Mapping[str, float]
    higher_is_better: Mapping[str, bool]
    signature: Signature
    reason: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    model: str | None = None
    case_id: str | None = None
    excerpt: str | None = None
    verdict: str = ""
    decided_by: str = ""
    decision: Verdict | None = None

    def __post_init__(self) -> None:
        decision = self.decision
        if decision is not None:
            if not isinstance(decision, Verdict):
                raise TypeError(f"Result: decision must be a Verdict or None; got {decision!r:.80}")
            said = (self.verdict or decision.outcome, self.decided_by or decision.decided_by)
            if said != (decision.outcome, decision.decided_by):
                raise ValueError(
                    f"Result: verdict {self.verdict!r} and decided_by {self.decided_by!r} disagree with "
                    f"the decision ({decision.outcome!r} by {decision.decided_by!r}); a later tier uses "
                    "overruled_by()"
                )
            object.__setattr__(self, "verdict", decision.outcome)
            object.__setattr__(self, "decided_by", decision.decided_by)
        if not self.verdict:
            object.__setattr__(self, "verdict", "pass" if self.passed else "fail")
        elif self.verdict not in VERDICTS:
            raise ValueError(f"Result: verdict must be one of {', '.join(VERDICTS)}; got {self.verdict!r}")
        elif (
            (self.verdict == "pass") != bool(self.passed)
            and self.verdict != "unverified"
            and not (self.passed and diagnostic(self.details))
        ):
            raise ValueError(f"Result: a {self.verdict} verdict cannot have passed={self.passed!r}")
        if self.decided_by and self.decided_by not in DECIDERS:
            raise ValueError(
                f"Result: decided_by must be one of {', '.join(DECIDERS)} or empty; got {self.decided_by!r}"
            )
        if decision is None and self.decided_by:
            object.__setattr__(self, "decision", Verdict(self.verdict, self.decided_by))
        metrics: dict[str, float | None] = {}
        for name, value in _items(self.metrics):
            if value is not None:
                value = float(value)
                if value != value:  # NaN
                    value = None
            metrics[name if type(name) is str else str(name)] = value
        object.__setattr__(self, "metrics", MappingProxyType(metrics))
        # What is equal to the signature's (read-only) thresholds, or to the directions another result of this
        # signature holds, is shared with them rather than copied: results of one check mostly agree on both.
        signature = self.signature
        shared = getattr(signature, "thresholds", None)
        if shared is None or shared != self.thresholds:
            shared = MappingProxyType({k: float(v) for k, v in _items(self.thresholds)})
        object.__setattr__(self, "thresholds", shared)
        memo = getattr(signature, "__dict__", {})
        directions = memo.get("_directions")
        if directions is None or directions != self.higher_is_better:
            directions = MappingProxyType({k: bool(v) for k, v in _items(self.higher_is_better)})
            if isinstance(signature, Signature):
                memo["_directions"] = directions  # a cache, not a field: equality and the record ignore it
        object.__setattr__(self, "higher_is_better", directions)
        details = self.details
        object.__setattr__(
            self,
            "details",
            freeze(details if isinstance(details, Mapping) else dict(details)) if details else _NO_DETAILS,
        )
        if self.primary not in self.metrics:
            raise ValueError(f"Result: primary metric {self.primary!r} is not among metrics {sorted(self.metrics)}")

    @property
    def score(self) -> float | None:
        """The value of the primary metric."""
        return self.metrics[self.primary]

    @property
    def threshold(self) -> float | None:
        """The threshold of the primary metric, if one was applied."""
        return self.thresholds.get(self.primary)

    def failed_metrics(self) -> list[str]:
        """Names of the metrics that missed their threshold."""
        return missed_thresholds(self.metrics, self.thresholds, self.higher_is_better)

    def overruled_by(
        self,
        outcome: str,
        decided_by: str,
        *,
        evidence: tuple[str, ...] = (),
        metrics: tuple[Measure, ...] = (),
        unverified: str,
        reason: str,
        details: Mapping[str, Any],
    ) -> Result:
        """This result as a later tier decided it: a new decision (``outcome`` by ``decided_by``, on ``evidence`` and
        ``metrics``) that keeps this result's as the one it overruled (`Verdict.overrule`); ``passed`` follows it
        (``unverified``: what the run makes of an unverified verdict), with the tier's ``reason`` and ``details``."""
        if self.decision is None:
            raise ValueError(
                f"Result.overruled_by: {self.evaluator}'s result has no decision to overrule (decided_by is empty); "
                "a tier overrules only a result whose decider is known"
            )
        verdict = self.decision.overrule(outcome, decided_by, tuple(evidence), tuple(metrics))
        return replace(
            self,
            decision=verdict,
            verdict=outcome,
            decided_by=decided_by,
            passed=passed_for(outcome, unverified),
            reason=reason,
            details=details,
        )

    def to_dict(self) -> Record:
        """A JSON-serialisable dict; `from_dict()` reads it back equal."""
        record: Record = {
            "record": RECORD_VERSION,
            "evaluator": self.evaluator,
            "metrics": dict(self.metrics),
            "primary": self.primary,
            "passed": self.passed,
            "verdict": self.verdict,
            "decided_by": self.decided_by,
            "thresholds": dict(self.thresholds),
            "higher_is_better": dict(self.higher_is_better),
            "signature": self.signature.to_dict(),
            "reason": self.reason,
            "details": thaw(self.details),
            "model": self.model,
            "case_id": self.case_id,
            "excerpt": self.excerpt,
        }
        if self.decision is not None:
            record["decision"] = self.decision.to_dict()
        return record

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        """Rebuild a result written by `to_dict()`."""
        if not isinstance(data, Mapping) or "evaluator" not in data:
            raise ValueError(f"Result.from_dict: not a result record: {data!r:.80}")
        return cls(
            evaluator=data["evaluator"],
            metrics=data["metrics"],
            primary=data["primary"],
            passed=bool(data["passed"]),
            thresholds=data.get("thresholds") or {},
            higher_is_better=data.get("higher_is_better") or {},
            signature=Signature.from_dict(data["signature"]),
            reason=data.get("reason", ""),
            details=data.get("details") or {},
            model=data.get("model"),
            case_id=data.get("case_id"),
            excerpt=data.get("excerpt"),
            verdict=data.get("verdict") or verdict_of(data),  # a record of before verdicts: from passed
            decided_by=data.get("decided_by") or "",
            decision=Verdict.from_dict(data["decision"]) if isinstance(data.get("decision"), Mapping) else None,
        )
