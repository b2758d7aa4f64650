"""The kinds of evidence the fact layer can name against an answer, and which of them may fail it.

Every piece of evidence has a stable kind id (below). A kind earns the right to *fail*
an answer by measurement: ``benchmarks/bench_verdicts.py`` counts, per labeled set, the
good and the bad answers it fires on, and a kind fails answers by default only when the
lower confidence bound of its precision (bad among the answers it fires on, each set's
good and bad answers weighted 1:1), pooled over the sets whose labels judge support by
the given context alone, is at least `MIN_PRECISION` (`measured_failing()`). The
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

__all__ = [
    "KINDS",
    "KIND_IDS",
    "FAILING",
    "MIN_PRECISION",
    "MIN_FIRINGS",
    "resolve_fail_on",
    "measured_failing",
    "EvidenceKind",
]


@dataclass(frozen=True)
class EvidenceKind:
    """One kind of evidence: its stable id and what it means."""

    id: str
    title: str
    meaning: str


KINDS: tuple[EvidenceKind, ...] = (
    EvidenceKind("number", "unstated number", "a number, amount or percentage the context does not state"),
    EvidenceKind(
        "changed_number",
        "changed number",
        "the context states another number for the same thing (same unit or noun, the same sentence around it)",
    ),
    EvidenceKind("unit", "unit", "the context's number in another unit or currency"),
    EvidenceKind("date", "date", "a date or year the context does not state"),
    EvidenceKind("time", "time of day", "a time of day the context does not state"),
    EvidenceKind(
        "name", "name", "a name (person, place, organisation, title) none of whose words appears in the context"
    ),
    EvidenceKind(
        "name_part",
        "part of a name",
        "a name some of whose words the context uses, others not ('Richard Cromwell' "
        "where the context says 'Cromwell')",
    ),
    EvidenceKind("null_field", "null field", "the answer asserts a field the record gives as null (not stated)"),
    EvidenceKind(
        "changed_name",
        "changed name",
        "the context's name with one word other than its head changed ('Pierre "
        "Curie' where the context says 'Marie Curie', 'Prize in Physics' where it says 'in Chemistry')",
    ),
    EvidenceKind("negation", "negation flip", "the answer denies what the context asserts, or the reverse"),
    EvidenceKind(
        "antonym",
        "opposite predicate",
        "a predicate the context states in the opposite sense of the same thing "
        "(open / closed, approved / rejected, increased / decreased, refundable / non-refundable)",
    ),
    EvidenceKind("role_swap", "role swap", "the context's own names in exchanged roles of one relation"),
    EvidenceKind(
        "order",
        "reversed order",
        "a comparison the context's own dates or figures reverse ('born before', "
        "'older than', 'released first', 'more species' where the context gives the other the earlier year or "
        "the larger number)",
    ),
    EvidenceKind("conflict", "conflicting relation", "the context's relation with another name or number in it"),
    EvidenceKind("unshared", "unshared claim", "a claim none of whose own words the context uses in any form"),
    EvidenceKind(
        "clause",
        "invented clause",
        "a coordinated or relative clause ('..., and X') none of whose own words the "
        "context uses (or one of four or more)",
    ),
    EvidenceKind(
        "word_pair",
        "unlinked word pair",
        "answering a question, a claim that puts together context words no context sentence puts together",
    ),
)


KIND_IDS: tuple[str, ...] = tuple(kind.id for kind in KINDS)


#: A kind fails answers by default only when we are 95% sure (a one-sided Wilson score bound, `CONFIDENCE_Z`) that
#: its precision pooled over the gating sets is at least this: the failure precision the project targets on each
#: gating set. The bound, not the point estimate, is held to the target, so a kind whose few firings happened to be
#: right does not pass: with no firing on a good answer it needs 16 firings in all (n / (n + z**2) >= 0.85).
MIN_PRECISION = 0.85


#: The one-sided 95% normal quantile of the Wilson bound: only a precision below the target is a risk to guard against.
CONFIDENCE_Z = 1.6448536269514722


#: A set's own precision is shown from this many firings (good and bad answers together), "too few" below. It does
#: not gate: the pooled bound handles rarity (a kind with fewer than 16 firings cannot reach `MIN_PRECISION`).
MIN_FIRINGS = 10


# <!-- failing:start -->
FAILING: frozenset[str] = frozenset(
    {"antonym", "changed_name", "changed_number", "date", "name", "name_part", "negation", "number", "unshared"}
)
# <!-- failing:end -->


def resolve_fail_on(value: Any, *, owner: str = "groundedness") -> frozenset[str]:
    """The kinds that fail an answer: ``None`` or ``"measured"`` for `FAILING`, ``"all"``, ``"none"``, or kind ids
    (a comma-separated string or a sequence; ``"measured"`` among them adds `FAILING`: ``"measured,negation"``); an
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
        raise ValueError(
            f"{owner}: argument 'fail_on' must be 'measured', 'all', 'none' or evidence kinds "
            f"({', '.join(KIND_IDS)}), as a comma-separated string or a list; got {value!r:.80}"
        )
    kinds: set[str] = set()
    for item in items:
        key = str(item).strip().replace(" ", "_").replace("-", "_").lower()
        if key in ("measured", "default"):
            kinds |= FAILING  # "measured,negation": the measured kinds and negations too
            continue
        if key not in KIND_IDS:
            raise ValueError(
                f"{owner}: argument 'fail_on' names an unknown evidence kind {item!r:.40}; "
                f"the kinds: {', '.join(KIND_IDS)}"
            )
        kinds.add(key)
    return frozenset(kinds)


def balanced_precision(good: int, bad: int, n_good: int, n_bad: int) -> float | None:
    """Bad among the answers a kind fires on, good and bad answers weighted 1:1 (``None`` when it never fires)."""
    if not n_good or not n_bad:
        return None
    good_rate, bad_rate = good / n_good, bad / n_bad
    return None if good_rate + bad_rate == 0 else bad_rate / (good_rate + bad_rate)


def wilson_lower_bound(precision: float, firings: int, z: float = CONFIDENCE_Z) -> float:
    """The Wilson score lower bound of a precision measured on ``firings`` answers (0 when there are none).

    >>> round(wilson_lower_bound(1.0, 16), 3), round(wilson_lower_bound(1.0, 15), 3)
    (0.855, 0.847)
    """
    from math import sqrt

    if firings <= 0:
        return 0.0
    z2 = z * z
    centre = precision + z2 / (2 * firings)
    spread = z * sqrt(precision * (1 - precision) / firings + z2 / (4 * firings * firings))
    return max(0.0, (centre - spread) / (1 + z2 / firings))


def pooled_precision(measurements: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind, over the gating sets of ``measurements`` (rows as `measured_failing` takes them): the answers it fired
    on (``good_fired``, ``bad_fired``) among ``good`` and ``bad``, its balanced ``precision`` (``None`` when it never
    fired) and that precision's Wilson lower bound ``lower`` with the number of firings as n."""
    totals: dict[str, list[int]] = {}
    for row in measurements:
        if not row.get("gates") or not row["good"] or not row["bad"]:
            continue
        counts = totals.setdefault(row["kind"], [0, 0, 0, 0])
        for index, key in enumerate(("good_fired", "bad_fired", "good", "bad")):
            counts[index] += int(row[key])
    out = {}
    for kind, (good_fired, bad_fired, good, bad) in totals.items():
        precision = balanced_precision(good_fired, bad_fired, good, bad)
        out[kind] = {
            "good_fired": good_fired,
            "bad_fired": bad_fired,
            "good": good,
            "bad": bad,
            "precision": precision,
            "lower": None if precision is None else wilson_lower_bound(precision, good_fired + bad_fired),
        }
    return out


def measured_failing(measurements: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The kinds that earn the right to fail from per-set measurements (``kind``, ``gates``: whether the set's labels
    judge support by the given context alone, ``good_fired``, ``bad_fired``, ``good``, ``bad``).

    A kind's firings are pooled over the gating sets, each set's good and bad answers weighted 1:1 as a whole (the
    pooled good and bad answers), and the kind fails by default when the one-sided 95% Wilson lower bound of that
    precision, with its number of firings as n, is at least `MIN_PRECISION`. No single set vetoes: a set whose labels
    are noisy where a kind fires moves the pooled figure by its share of the firings, and a rare kind cannot reach
    the bound (16 firings at the least). Sets whose labels accept what the context does not state (annotators' own
    knowledge, answers right about the world) are measured and shown, not gated on.
    """
    return frozenset(
        kind
        for kind, pooled in pooled_precision(measurements).items()
        if pooled["lower"] is not None and pooled["lower"] >= MIN_PRECISION
    )
