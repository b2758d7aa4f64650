"""The kinds of evidence the fact layer can name against an answer, and which of them may fail it.

Every piece of evidence has a stable kind id (below). A kind earns the right to *fail*
an answer by measurement: ``benchmarks/bench_verdicts.py`` counts, per labeled set, the
good and the bad answers it fires on, and a kind fails answers by default only when its
precision (bad among the answers it fires on, the two classes weighted 1:1) is at least
`MIN_PRECISION` on every set whose labels measure support where it fires at least
`MIN_FIRINGS` times, and over those sets together (`measured_failing()`). The
other kinds are *concerns*: named with the answer, the
verdict unverified. `FAILING` is generated from the committed measurement
(``benchmarks/results/evidence_kinds.json``) by ``python tools/docs_pages.py --write``;
a test fails when it is stale. ``fail_on=`` (per call, ``--llmeval-fail-on``, ini
``llmeval_fail_on``) lets a team that knows its data choose.

>>> resolve_fail_on(None) == FAILING
True
>>> sorted(resolve_fail_on("number, date"))
['date', 'number']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "KIND_IDS", "FAILING", "MIN_PRECISION", "MIN_FIRINGS", "resolve_fail_on", "measured_failing", "EvidenceKind"]


@dataclass(frozen=True)
class EvidenceKind:
    """One kind of evidence: its stable id and what it means."""

    id: str
    title: str
    meaning: str


KINDS: tuple[EvidenceKind, ...] = (
    EvidenceKind("number", "unstated number", "a number, amount or percentage the context does not state"),
    EvidenceKind("changed_number", "changed number",
                 "the context states another number for the same thing (same unit or noun, the same sentence around it)"),
    EvidenceKind("unit", "unit", "the context's number in another unit or currency"),
    EvidenceKind("date", "date", "a date or year the context does not state"),
    EvidenceKind("time", "time of day", "a time of day the context does not state"),
    EvidenceKind("name", "name", "a name (person, place, organisation, title) none of whose words appears in the context"),
    EvidenceKind("name_part", "part of a name", "a name some of whose words the context uses, others not ('Richard Cromwell' "
                 "where the context says 'Cromwell')"),
    EvidenceKind("null_field", "null field", "the answer asserts a field the record gives as null (not stated)"),
    EvidenceKind("negation", "negation flip", "the answer denies what the context asserts, or the reverse"),
    EvidenceKind("role_swap", "role swap", "the context's own names in exchanged roles of one relation"),
    EvidenceKind("conflict", "conflicting relation", "the context's relation with another name or number in it"),
    EvidenceKind("unshared", "unshared claim", "a claim none of whose own words the context uses"),
    EvidenceKind("word_pair", "unlinked word pair",
                 "answering a question, a claim that puts together context words no context sentence puts together"),
)


KIND_IDS: tuple[str, ...] = tuple(kind.id for kind in KINDS)


#: A kind fails answers by default only with at least this precision on every measured set.
MIN_PRECISION = 0.9


#: A kind is measured on a set where it fires on at least this many answers (good and bad together).
MIN_FIRINGS = 10


# <!-- failing:start -->
FAILING: frozenset[str] = frozenset({"changed_number", "number"})
# <!-- failing:end -->


def resolve_fail_on(value: Any, *, owner: str = "groundedness") -> frozenset[str]:
    """The kinds that fail an answer: ``None`` or ``"measured"`` for `FAILING`, ``"all"``, ``"none"``, or kind ids
    (a comma-separated string or a sequence; ``"measured"`` among them adds `FAILING`: ``"measured,name"``); an
    unknown id raises ``ValueError`` naming the known ones."""
    if value is None:
        return FAILING
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("measured", "default", ""):
            return FAILING
        if word == "all":
            return frozenset(KIND_IDS)
        if word == "none":
            return frozenset()
        items: Iterable[Any] = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, Mapping)):
        items = list(value)
    else:
        raise ValueError(f"{owner}: argument 'fail_on' must be 'measured', 'all', 'none' or evidence kinds "
                         f"({', '.join(KIND_IDS)}), as a comma-separated string or a list; got {value!r:.80}")
    kinds: set[str] = set()
    for item in items:
        key = str(item).strip().replace(" ", "_").replace("-", "_").lower()
        if key in ("measured", "default"):
            kinds |= FAILING  # "measured,name": the measured kinds and names too
            continue
        if key not in KIND_IDS:
            raise ValueError(f"{owner}: argument 'fail_on' names an unknown evidence kind {item!r:.40}; "
                             f"the kinds: {', '.join(KIND_IDS)}")
        kinds.add(key)
    return frozenset(kinds)


def balanced_precision(good: int, bad: int, n_good: int, n_bad: int) -> float | None:
    """Bad among the answers a kind fires on, good and bad answers weighted 1:1 (``None`` when it never fires)."""
    if not n_good or not n_bad:
        return None
    good_rate, bad_rate = good / n_good, bad / n_bad
    return None if good_rate + bad_rate == 0 else bad_rate / (good_rate + bad_rate)


def measured_failing(measurements: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The kinds that earn the right to fail from per-set measurements (``kind``, ``gates``: whether the set's labels
    measure support, ``good_fired``, ``bad_fired``, ``good``, ``bad``).

    Over the gating sets, a kind must fire at least `MIN_FIRINGS` times in all, with a precision of at least
    `MIN_PRECISION` pooled over them (each set's good and bad answers weighted 1:1), and at least that precision
    on every one of them where it fires `MIN_FIRINGS` times or more: a rare kind is measured on the sets together,
    a common one on each.
    """
    pooled: dict[str, list[int]] = {}
    worst: dict[str, float] = {}
    for row in measurements:
        if not row.get("gates") or not row["good"] or not row["bad"]:
            continue
        totals = pooled.setdefault(row["kind"], [0, 0, 0, 0])
        for index, key in enumerate(("good_fired", "bad_fired", "good", "bad")):
            totals[index] += int(row[key])
        if row["good_fired"] + row["bad_fired"] >= MIN_FIRINGS:
            precision = balanced_precision(row["good_fired"], row["bad_fired"], row["good"], row["bad"]) or 0.0
            worst[row["kind"]] = min(worst.get(row["kind"], 1.0), precision)
    out = set()
    for kind, (good_fired, bad_fired, good, bad) in pooled.items():
        pooled_precision = balanced_precision(good_fired, bad_fired, good, bad)
        if (good_fired + bad_fired >= MIN_FIRINGS and pooled_precision is not None and pooled_precision >= MIN_PRECISION
                and worst.get(kind, 1.0) >= MIN_PRECISION):
            out.add(kind)
    return frozenset(out)
