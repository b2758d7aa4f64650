"""A check's decision on one answer: the outcome, who decided it, the metrics and evidence it rests on, and the
decision it overruled.

`decide()` returns one `Verdict`; the evaluator adds the metrics that decided (`Measure`: value and threshold) and
the result carries it whole (``Result.decision``; ``Result.verdict`` and ``Result.decided_by`` are its outcome and
decider). A later tier (a judge split, the claim verifier, a detector, a judge) never rewrites it: it makes a new
`Verdict` whose ``overruled`` is the one before (`Verdict.overrule`). The failure message, the record and every
report read it.

>>> first = Verdict("unverified", "embedding", metrics=(Measure("support", 0.61, 0.7),))
>>> final = first.overrule("fail", "judge", ("the answer names a city the context does not",),
...                        (Measure("faithfulness", 0.2, 0.5),))
>>> final.outcome, final.overruled.decided_by, str(final.metrics[0])
('fail', 'embedding', 'faithfulness 0.200 < 0.500')
>>> Verdict.from_dict(final.to_dict()) == final
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Verdict", "Measure", "OUTCOMES", "DECIDERS", "concerns"]


#: What a check can say about an answer.
OUTCOMES = ("pass", "fail", "unverified")

#: Who decides: ``rules`` (deterministic scoring and named evidence), ``embedding`` (an embedding model's similarity),
#: ``verifier`` (the plugin's claim verifier, reading the answers the rules leave unverified), ``detector`` (another
#: scoring model: NLI, a classifier, a hallucination detector), ``judge`` (an LLM judge, or a judge check a check
#: escalated to).
DECIDERS = ("rules", "embedding", "verifier", "detector", "judge")


@dataclass(frozen=True)
class Measure:
    """One metric a verdict rests on: its ``value`` and the ``threshold`` it was held to (``None``: none in force)."""

    metric: str
    value: float | None
    threshold: float | None = None
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str) or not self.metric:
            raise TypeError(f"Measure: metric must be a non-empty str; got {self.metric!r:.80}")
        for name in ("value", "threshold"):
            number = getattr(self, name)
            if number is not None:
                if isinstance(number, bool) or not isinstance(number, (int, float)):
                    raise TypeError(f"Measure: {name} must be a number or None; got {number!r:.80}")
                object.__setattr__(self, name, float(number) if math.isfinite(number) else None)

    @property
    def met(self) -> bool | None:
        """Whether the value meets the threshold (``None`` without both)."""
        if self.value is None or self.threshold is None:
            return None
        return self.value >= self.threshold if self.higher_is_better else self.value <= self.threshold

    def shown(self) -> tuple[str, str]:
        """The value and the threshold as every message prints them: a count held to a ceiling as counts (``2``,
        ``0``), a whole number above 1 whole, anything else to three places (``n/a`` for ``None``)."""
        counted = (
            not self.higher_is_better
            and self.value is not None
            and self.threshold is not None
            and self.value == int(self.value)
            and self.threshold == int(self.threshold)
        )

        def text(number: float | None) -> str:
            if number is None:
                return "n/a"
            return f"{number:.0f}" if counted or (number == int(number) and abs(number) > 1) else f"{number:.3f}"

        return text(self.value), text(self.threshold)

    @property
    def sign(self) -> str:
        """How the value stands to the threshold: ``>=`` or ``<`` (``<=`` or ``>`` where lower is better)."""
        return (">=" if self.met else "<") if self.higher_is_better else ("<=" if self.met else ">")

    def against_threshold(self) -> str:
        """The headline form, ``support 0.472 < threshold 0.700`` (``evidence 2 > threshold 0``), for a measure with a
        threshold."""
        value, threshold = self.shown()
        return f"{self.metric} {value} {self.sign} threshold {threshold}"

    def __str__(self) -> str:
        """``support 0.753 >= 0.700``, ``evidence 1 > 0``; the value alone without a threshold."""
        value, threshold = self.shown()
        if self.threshold is None or self.value is None:
            return f"{self.metric} {value}"
        return f"{self.metric} {value} {self.sign} {threshold}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": self.value,
            "threshold": self.threshold,
            "higher_is_better": self.higher_is_better,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Measure:
        return cls(
            str(data["metric"]), data.get("value"), data.get("threshold"), bool(data.get("higher_is_better", True))
        )


@dataclass(frozen=True)
class Verdict:
    """``outcome`` (pass, fail, unverified), ``decided_by`` (one of `DECIDERS`), ``evidence`` (the metrics that
    missed their thresholds, or the evidence a check names, quoted as the check gives it), ``metrics`` (the `Measure`
    of each metric that decided) and ``overruled`` (the verdict of the tier below, which this one replaced)."""

    outcome: str
    decided_by: str
    evidence: tuple[str, ...] = ()
    metrics: tuple[Measure, ...] = ()
    overruled: Verdict | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"Verdict: outcome must be one of {', '.join(OUTCOMES)}; got {self.outcome!r}")
        if self.decided_by not in DECIDERS:
            raise ValueError(f"Verdict: decided_by must be one of {', '.join(DECIDERS)}; got {self.decided_by!r}")
        if isinstance(self.evidence, str) or not all(isinstance(item, str) for item in self.evidence):
            raise TypeError(f"Verdict: evidence must be a tuple of str; got {self.evidence!r:.80}")
        if not all(isinstance(item, Measure) for item in self.metrics):
            raise TypeError(f"Verdict: metrics must be a tuple of Measure; got {self.metrics!r:.80}")
        if self.overruled is not None and not isinstance(self.overruled, Verdict):
            raise TypeError(f"Verdict: overruled must be a Verdict or None; got {self.overruled!r:.80}")
        object.__setattr__(self, "evidence", tuple(self.evidence))
        object.__setattr__(self, "metrics", tuple(self.metrics))

    def overrule(
        self, outcome: str, decided_by: str, evidence: tuple[str, ...] = (), metrics: tuple[Measure, ...] = ()
    ) -> Verdict:
        """The verdict of a later tier, which keeps this one as the one it overruled."""
        return Verdict(outcome, decided_by, tuple(evidence), tuple(metrics), self)

    def chain(self) -> list[Verdict]:
        """This verdict and the ones it overruled, latest first."""
        out: list[Verdict] = []
        verdict: Verdict | None = self
        while verdict is not None:
            out.append(verdict)
            verdict = verdict.overruled
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "decided_by": self.decided_by,
            "evidence": list(self.evidence),
            "metrics": [m.to_dict() for m in self.metrics],
            "overruled": None if self.overruled is None else self.overruled.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Verdict:
        """Read back `to_dict()` (a record's ``decision``)."""
        if not isinstance(data, Mapping) or "outcome" not in data:
            raise ValueError(f"Verdict.from_dict: not a verdict: {data!r:.80}")
        below = data.get("overruled")
        return cls(
            str(data["outcome"]),
            str(data.get("decided_by") or "rules"),
            tuple(str(e) for e in data.get("evidence") or ()),
            tuple(Measure.from_dict(m) for m in data.get("metrics") or ()),
            None if below is None else cls.from_dict(below),
        )


#: What a reason says before a concern: ``concern (name: a kind that only warns, see fail_on): 'Berlin' (sentence 1)
#: ...``.
_CONCERN = "concern ("

#: The words a reason adds to a concern's kinds, left out where a concern is quoted: ``concern (name): ...``.
_ONLY_WARNS = re.compile(r"^concern \(([^():]+): a kind that only warns, see fail_on\)")


def concerns(reason: str, details: Any) -> list[str]:
    """The concerns a result (or record) names: evidence of a kind its check does not fail on, which leaves the answer
    unverified rather than failed.

    Each item of ``details["evidence"]`` with ``"fails": false`` is one, as ``concern (KIND): MESSAGE``. When ``reason``
    names a concern too, the first is quoted from it (from ``concern (`` to the next ``; ``), as the reason is what
    masking leaves safe to show; ``[]`` when the result names none.

    >>> concerns("", {"evidence": [{"kind": "name", "message": "'Berlin' (sentence 1) appears nowhere in the context",
    ...                             "fails": False}]})
    ["concern (name): 'Berlin' (sentence 1) appears nowhere in the context"]
    >>> concerns("concern (time: a kind that only warns, see fail_on): '7 p.m.' (sentence 1) is not stated; "
    ...          "least ...", {})
    ["concern (time): '7 p.m.' (sentence 1) is not stated"]
    >>> concerns("least supported sentence 1 (support 0.55)", {})
    []
    """
    listed = details.get("evidence") if isinstance(details, Mapping) else None
    found = (
        [
            f"{_CONCERN}{item.get('kind') or 'concern'}): {item.get('message', '')}"
            for item in listed
            if isinstance(item, Mapping) and item.get("fails", True) is False
        ]
        if isinstance(listed, (list, tuple))
        else []
    )
    if _CONCERN in reason:
        quoted = _ONLY_WARNS.sub(r"concern (\1)", reason[reason.index(_CONCERN) :].split("; ", 1)[0])
        found = [quoted, *found[1:]]
    return found
