"""A check's decision on one answer: the outcome, who decided it, and what it rests on.

`decide()` returns one `Verdict`; the result keeps its outcome
(``Result.verdict``) and who decided (``Result.decided_by``), and the failure message, the record and every report
quote them.

>>> Verdict("fail", "rules", ("'Mumbai' appears nowhere in the context",)).outcome
'fail'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Verdict", "OUTCOMES", "DECIDERS"]


#: What a check can say about an answer.
OUTCOMES = ("pass", "fail", "unverified")

#: Who decides: ``rules`` (deterministic scoring and named evidence), ``detector`` (a scoring model: embeddings,
#: NLI, a classifier), ``judge`` (an LLM judge, or a judge check a check escalated to).
DECIDERS = ("rules", "detector", "judge")


@dataclass(frozen=True)
class Verdict:
    """``outcome`` (pass, fail, unverified), ``decided_by`` (rules, detector, judge) and ``evidence``: the metrics that
    missed their thresholds, or the evidence a check names (quoted as the check gives it)."""

    outcome: str
    decided_by: str
    evidence: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"Verdict: outcome must be one of {', '.join(OUTCOMES)}; got {self.outcome!r}")
        if self.decided_by not in DECIDERS:
            raise ValueError(f"Verdict: decided_by must be one of {', '.join(DECIDERS)}; got {self.decided_by!r}")
        if isinstance(self.evidence, str) or not all(isinstance(item, str) for item in self.evidence):
            raise TypeError(f"Verdict: evidence must be a tuple of str; got {self.evidence!r:.80}")
