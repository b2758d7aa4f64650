"""A check's decision on one answer: the outcome, who decided it, and what it rests on.

`decide()` returns one `Verdict`; the result keeps its outcome
(``Result.verdict``) and who decided (``Result.decided_by``), and the failure message, the record and every report
quote them.

>>> Verdict("fail", "rules", ("'Mumbai' appears nowhere in the context",)).outcome
'fail'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Verdict", "OUTCOMES", "DECIDERS", "concerns"]


#: What a check can say about an answer.
OUTCOMES = ("pass", "fail", "unverified")

#: Who decides: ``rules`` (deterministic scoring and named evidence), ``embedding`` (an embedding model's similarity),
#: ``verifier`` (the plugin's claim verifier, reading the answers the rules leave unverified), ``detector`` (another
#: scoring model: NLI, a classifier, a hallucination detector), ``judge`` (an LLM judge, or a judge check a check
#: escalated to).
DECIDERS = ("rules", "embedding", "verifier", "detector", "judge")


@dataclass(frozen=True)
class Verdict:
    """``outcome`` (pass, fail, unverified), ``decided_by`` (one of `DECIDERS`) and ``evidence``: the metrics that
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


#: What a reason says before a concern: ``concern (name: a kind that only warns, see fail_on): 'Berlin' (sentence 1) ...``.
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
    >>> concerns("concern (time: a kind that only warns, see fail_on): '7 p.m.' (sentence 1) is not stated; least ...", {})
    ["concern (time): '7 p.m.' (sentence 1) is not stated"]
    >>> concerns("least supported sentence 1 (support 0.55)", {})
    []
    """
    listed = details.get("evidence") if isinstance(details, Mapping) else None
    found = [f"{_CONCERN}{item.get('kind') or 'concern'}): {item.get('message', '')}" for item in listed
             if isinstance(item, Mapping) and item.get("fails", True) is False] if isinstance(listed, (list, tuple)) else []
    if _CONCERN in reason:
        quoted = _ONLY_WARNS.sub(r"concern (\1)", reason[reason.index(_CONCERN):].split("; ", 1)[0])
        found = [quoted, *found[1:]]
    return found
