"""Comparison with a saved baseline: a JSON report from an earlier run (``--llmeval-baseline``).

Only like is compared with like. A result is matched with the baseline's result of
the same test, evaluator and signature (evaluator version, backend, scoring model,
parameters), in call order; a result whose test and evaluator match but whose
signature changed is reported as not comparable, never compared. Two kinds of change:

- a result that did not fail in the baseline and fails now (a regression), or the reverse
  (an improvement); an *unverified* verdict is neither (no evidence either way), so a result that
  moves between pass and unverified is no change, whatever ``--llmeval-unverified`` makes of it;
- a mean (check, model; over the results both runs have) that moved against its
  direction by more than ``tolerance`` (a regression), or with it (an improvement). A tolerance absorbs
  judge noise; so do judge repeats (``--llmeval-judge-repeats``), which average it.

``--llmeval-fail-on-regression`` makes a run with regressions fail.

>>> rec = lambda passed, value: {"nodeid": "t::a", "evaluator": "e", "primary": "m", "metrics": {"m": value},
...     "passed": passed, "higher_is_better": {"m": True}, "model": "x", "signature": {"evaluator": "e", "version": "1"}}
>>> result = compare([rec(False, 0.2)], {"results": [rec(True, 0.9)]})
>>> [(c.kind, c.scope) for c in result.changes]
[('regression', 'result'), ('regression', 'mean')]
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from .aggregate import NO_MODEL, perturbation_of, signature_keys

from .result import Record, verdict_of

__all__ = ["Change", "Comparison", "compare", "load_baseline"]


@dataclass(frozen=True)
class Change:
    kind: str  # "regression" or "improvement"
    scope: str  # "result" (a test's check passed/failed) or "mean" (a leaderboard mean moved)
    evaluator: str
    metric: str
    model: str
    before: float | None
    after: float | None
    nodeid: str | None = None
    #: A result's verdict in the baseline and now (``pass``, ``fail``, ``unverified``); None for a mean.
    was: str | None = None
    now: str | None = None

    def describe(self) -> str:
        def num(v: float | None) -> str:
            return "n/a" if v is None else f"{v:.3f}"

        where = self.nodeid if self.scope == "result" else ("mean" if self.model == NO_MODEL else f"mean over {self.model}")
        words = {"pass": "passed", "fail": "failed", "unverified": "unverified"}
        verdict = f" ({words.get(self.was or '', self.was)} -> {words.get(self.now or '', self.now)})" if self.scope == "result" else ""
        return f"{self.kind}: {self.evaluator} {self.metric} {num(self.before)} -> {num(self.after)}{verdict}: {where}"


@dataclass(frozen=True)
class Comparison:
    baseline: str
    compared: int
    changes: tuple[Change, ...]
    not_comparable: tuple[Mapping[str, str], ...] = ()
    new: int = 0
    missing: int = 0
    tolerance: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.kind == "regression"]

    @property
    def improvements(self) -> list[Change]:
        return [c for c in self.changes if c.kind == "improvement"]

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "compared": self.compared, "tolerance": self.tolerance, "new": self.new,
                "missing": self.missing, "regressions": len(self.regressions), "improvements": len(self.improvements),
                "changes": [{**asdict(c), "model": None if c.model == NO_MODEL else c.model} for c in self.changes],
                "not_comparable": [dict(n) for n in self.not_comparable]}


def load_baseline(path: str) -> dict[str, Any]:
    """The baseline report; ``ValueError`` naming the file when it cannot be used."""
    from .report.jsonfile import load, validate

    try:
        report = load(path)
    except OSError as exc:
        raise ValueError(f"cannot read the baseline {path!r}: {exc.strerror or exc}") from None
    problem = validate(report)
    if problem is not None:
        raise ValueError(f"the baseline {path!r} is not a usable report: {problem}")
    for index, record in enumerate(report["results"]):
        if record["primary"] not in record["metrics"]:
            raise ValueError(f"the baseline {path!r} is not a usable report: results[{index}]: primary metric "
                             f"{record['primary']!r} is not among its metrics")
    return report


def _keyed(records: list[Record]) -> dict[tuple[str, str, str, int], Record]:
    out: dict[tuple[str, str, str, int], Record] = {}
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for record, signature in zip(records, signature_keys(records)):
        base = (str(record.get("nodeid", "")), str(record["evaluator"]), signature)
        out[(base[0], base[1], base[2], seen[base])] = record
        seen[base] += 1
    return out


def _means(keyed: Iterable[tuple[tuple[str, str, str, int], Record]]) -> dict[tuple[str, str, str], tuple[float, bool, str]]:
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    meta: dict[tuple[str, str, str], tuple[bool, str]] = {}
    for (_, _, signature, _), record in keyed:
        if perturbation_of(record) is not None:
            continue  # like the leaderboard: original inputs only
        primary = record["primary"]
        key = (str(record["evaluator"]), signature, str(record.get("model") or NO_MODEL))
        meta[key] = (bool(record.get("higher_is_better", {}).get(primary, True)), primary)
        value = record.get("metrics", {}).get(primary)
        if value is not None:
            groups[key].append(float(value))
    return {k: (sum(v) / len(v), *meta[k]) for k, v in groups.items() if v}


def compare(records: Iterable[Record], baseline: Mapping[str, Any], *, tolerance: float = 0.0,
            name: str = "baseline") -> Comparison:
    """Compare this run's result records with a baseline report's."""
    records = list(records)
    # the baseline passed the report schema at start-up: its results are records
    previous = cast("list[Record]", [r for r in baseline.get("results", []) if isinstance(r, dict) and "evaluator" in r])
    now, before = _keyed(records), _keyed(previous)
    changes: list[Change] = []
    compared = 0
    for key, record in now.items():
        old = before.get(key)
        if old is None:
            continue
        compared += 1
        was, is_ = verdict_of(old), verdict_of(record)
        if (was == "fail") != (is_ == "fail"):
            primary = record["primary"]
            changes.append(Change("regression" if is_ == "fail" else "improvement", "result", record["evaluator"], primary,
                                  str(record.get("model") or NO_MODEL), old.get("metrics", {}).get(primary),
                                  record.get("metrics", {}).get(primary), record.get("nodeid"), was, is_))
    # Same test and evaluator, only other signatures: not comparable.
    now_sigs: dict[tuple[str, str], set[str]] = defaultdict(set)
    old_sigs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key in now:
        now_sigs[key[:2]].add(key[2])
    for key in before:
        old_sigs[key[:2]].add(key[2])
    not_comparable = []
    for pair in sorted(set(now_sigs) & set(old_sigs)):
        if not now_sigs[pair] & old_sigs[pair]:
            current, prior = json.loads(min(now_sigs[pair])), json.loads(min(old_sigs[pair]))
            changed = sorted(k for k in set(current) | set(prior) if current.get(k) != prior.get(k))
            not_comparable.append({"nodeid": pair[0], "evaluator": pair[1], "changed": ", ".join(changed)})
    # Means over the results both runs have, so a new or removed test never moves a mean.
    shared = set(now) & set(before)
    new_means, old_means = _means((k, now[k]) for k in shared), _means((k, before[k]) for k in shared)
    for mean_key in sorted(set(new_means) & set(old_means)):
        (after, higher, metric), (prior, _, _) = new_means[mean_key], old_means[mean_key]
        delta = after - prior if higher else prior - after
        if abs(delta) > tolerance:
            changes.append(Change("improvement" if delta > 0 else "regression", "mean", mean_key[0], metric, mean_key[2], prior, after))
    changes.sort(key=lambda c: (c.kind != "regression", c.scope != "result", c.evaluator, c.model, c.nodeid or ""))
    return Comparison(name, compared, tuple(changes), tuple(not_comparable), new=len(set(now) - set(before)),
                      missing=len(set(before) - set(now)), tolerance=tolerance)
