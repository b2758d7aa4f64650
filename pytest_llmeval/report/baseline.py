"""Comparison with a saved baseline: a JSON report from an earlier run (``--llmeval-baseline``).

One run of a suite is one sample of a model that answers differently each time, so a
comparison is a paired statistical test, not a count of flips. Only like is compared
with like: a result is matched with the baseline's results of the same case, check and
signature (evaluator version, backend, scoring model, parameters); a test whose check
changed signature is reported as not comparable, never compared.

For each leaderboard row (check and model, original inputs) over the cases both runs have:

- its **fail rate** (share of results that failed; an *unverified* verdict is not a failure)
  is compared with McNemar's exact test when each case has one result in each run, else
  a sign-flip permutation test over the cases' differences (repeats of a case are one
  cluster), with the Bonett-Price interval of the difference;
- its **mean** primary score, when the scores are not just 0 and 1, with a sign-flip
  permutation test and a t interval over the cases' differences;
- each is tested one-sided, as the question is: "did it get worse?" over every row, with
  Holm's adjustment keeping the chance of any false regression at ``alpha``, and "did it get
  better?" apart, adjusted the same way.

Each row's verdict: **regressed** or **improved** (significant after Holm; the row's p-value is
the one-sided one of the direction it moved), **unchanged** (the difference's interval lies
within +-``tolerance``), or
**inconclusive**, with the smallest difference the suite could detect and the cases or
repeats it would need. The results that moved to or from a failure are listed as evidence.
``--llmeval-fail-on-regression`` fails a run with a regressed row. A row's **unverified rate** is
compared too: a significant rise is lost measurement (a judge down, an offline check that can no
longer confirm), never a regression nor a pass: the row is **indeterminate**, and so is the run's
gate (`pytest_llmeval.report.gate`; ``gate.indeterminate`` says what that does to the run).

>>> rec = lambda case, passed: {"nodeid": f"t::{case}", "case_id": case, "evaluator": "e", "primary": "m",
...     "metrics": {"m": float(passed)}, "passed": passed, "higher_is_better": {"m": True}, "model": "x",
...     "signature": {"evaluator": "e", "version": "1"}}
>>> before = {"results": [rec(f"q{i}", True) for i in range(30)]}
>>> result = compare([rec(f"q{i}", i >= 12) for i in range(30)], before)
>>> [(row.measure, row.verdict) for row in result.rows], result.verdict
([('fail rate', 'regressed')], 'regressed')
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from ..core.result import NO_MODEL, Record, verdict_of
from .aggregate import signature_keys
from .findings import perturbation_of
from .provenance import fixed
from .rowstats import case_of

__all__ = ["named", "Change", "RowComparison", "sizing_text", "Comparison", "compare", "RUN_VERDICTS"]


@dataclass(frozen=True)
class Change:
    """One result that moved to a failure (``worse``) or from one (``better``): evidence, not a verdict."""

    kind: str  # "worse" or "better"
    evaluator: str
    metric: str
    model: str
    before: float | None
    after: float | None
    nodeid: str | None = None
    #: The result's verdict in the baseline and now (``pass``, ``fail``, ``unverified``).
    was: str | None = None
    now: str | None = None
    #: Both runs replayed the case's answers and its check is deterministic (`provenance.fixed`): a flip is a change.
    fixed: bool = False

    def describe(self) -> str:
        words = {"pass": "passed", "fail": "failed", "unverified": "unverified"}
        return (
            f"{self.kind}: {self.evaluator} {self.metric} {_num(self.before)} -> {_num(self.after)} "
            f"({words.get(self.was or '', self.was)} -> {words.get(self.now or '', self.now)}): {self.nodeid}"
        )


def named(changes: Sequence[Change]) -> str:
    """The first three changed cases, each with its check (``t.py::test_a[q1] (groundedness), ...``)."""
    return ", ".join(f"{c.nodeid} ({c.evaluator})" for c in changes[:3]) + (", ..." if len(changes) > 3 else "")


def _worsening(row: RowComparison) -> float:
    """How far a row moved the wrong way (0 when it did not, or got better)."""
    return max(0.0, -row.difference if row.higher_is_better else row.difference)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _points(value: float | None) -> str:
    return "n/a" if value is None else f"{abs(value) * 100:.0f}"


@dataclass(frozen=True)
class RowComparison:
    """One leaderboard row (check, model) and one measure of it, compared with the baseline over the shared cases."""

    check: str
    evaluator: str
    metric: str
    model: str
    measure: str  # "fail rate" (share of results that failed) or "mean" (of the primary metric)
    higher_is_better: bool  # of the measure: False for a fail rate
    cases: int
    results_before: int
    results_after: int
    before: float
    after: float
    difference: float  # after - before
    ci_low: float | None  # the difference's interval at 1 - alpha
    ci_high: float | None
    p_value: float  # one-sided, in the direction the row moved (worse when it did not move)
    p_adjusted: float  # Holm over every row of the comparison, within that direction
    test: str
    verdict: str  # "regressed", "improved", "unchanged", "inconclusive"; "indeterminate": the unverified rate rose
    detectable: float | None  # the smallest difference this suite detects (80% power)
    cases_for: int | None  # cases needed to detect ``target``
    repeats_for: int | None  # draws per case needed to detect ``target`` with these cases (None: repeats cannot)
    target: float
    worse: int = 0  # results that moved to a failure (the evidence)
    better: int = 0

    @property
    def label(self) -> str:
        model = "" if self.model == NO_MODEL else f" on {self.model}"
        return f"{self.check} {self.metric if self.measure == 'mean' else self.measure}{model}"

    def interval(self) -> str:
        if self.ci_low is None or self.ci_high is None:
            return "interval n/a"
        return f"CI {self.ci_low:+.3f}..{self.ci_high:+.3f}"

    def sizing(self) -> str:
        return sizing_text(self.detectable, self.cases_for, self.repeats_for, self.target)

    def describe(self) -> str:
        head = (
            f"{self.verdict}: {self.label}: {_num(self.before)} -> {_num(self.after)} ({self.difference:+.3f}, "
            f"{self.interval()}, p={self.p_adjusted:.3g}, {self.cases} cases)"
        )
        if self.verdict == "inconclusive":
            return f"{head}: {self.sizing()}"
        return head


def sizing_text(detectable: float | None, cases_for: int | None, repeats_for: int | None, target: float) -> str:
    """``this suite could detect a change of about 21 points; needs about 1100 cases, or 18 repeats, to see a 5-point
    change``: what an inconclusive row's suite can tell apart from noise (``this suite cannot detect a change under 100
    points; ...`` when the change it could see is larger than any share can move).

    >>> sizing_text(2.29, 170, None, 0.05)
    'this suite cannot detect a change under 100 points; needs about 170 cases to see a 5-point change'
    """
    if detectable is None:
        return "too few cases to estimate what it could detect"
    ways = [f"about {cases_for} cases"] if cases_for is not None else []
    if repeats_for is not None and repeats_for > 1:
        ways.append(f"{repeats_for} repeats")
    ways_text = f"{ways[0]}, or {ways[1]}," if len(ways) == 2 else "".join(ways)
    need = f"; needs {ways_text} to see a {_points(target)}-point change" if ways else ""
    if abs(detectable) >= 1.0:  # a share moves at most 100 points: no change this suite could see
        return f"this suite cannot detect a change under 100 points{need}"
    return f"this suite could detect a change of about {_points(detectable)} points{need}"


#: A run's verdict against the baseline, worst first.
RUN_VERDICTS = ("regressed", "indeterminate", "inconclusive", "improved", "unchanged")


@dataclass(frozen=True)
class Comparison:
    baseline: str
    compared: int
    changes: tuple[Change, ...]
    not_comparable: tuple[Mapping[str, str], ...] = ()
    new: int = 0
    missing: int = 0
    tolerance: float = 0.0
    rows: tuple[RowComparison, ...] = ()
    alpha: float = 0.05
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def regressions(self) -> list[RowComparison]:
        """The rows that regressed significantly: what ``--llmeval-fail-on-regression`` fails on."""
        return [r for r in self.rows if r.verdict == "regressed"]

    @property
    def new_failures(self) -> list[Change]:
        """The cases that passed in the baseline and fail now (what ``gate = "strict"`` fails the run on)."""
        return [c for c in self.changes if c.was == "pass" and c.now == "fail"]

    @property
    def fixed_failures(self) -> list[Change]:
        """The new failures of replayed answers under a deterministic check: the same input gave another verdict, a
        regression whatever the statistics (``--llmeval-fail-on-regression`` fails the run on them)."""
        return [c for c in self.new_failures if c.fixed]

    @property
    def improvements(self) -> list[RowComparison]:
        return [r for r in self.rows if r.verdict == "improved"]

    @property
    def verdict(self) -> str:
        """``regressed`` if any row regressed, else ``indeterminate`` if a row's unverified share rose beyond noise (the
        run measured less than the baseline did), else ``improved``, else ``inconclusive``, else ``unchanged``;
        ``not compared`` when no row could be."""
        found = {r.verdict for r in self.rows}
        if not found:
            return "not compared"
        if self.fixed_failures:
            return "regressed"
        for verdict in ("regressed", "indeterminate", "improved", "inconclusive"):
            if verdict in found:
                return verdict
        return "unchanged"

    def verdict_line(self) -> str:
        """The run's verdict in one line (terminal, Markdown, HTML)."""
        counts = {v: sum(r.verdict == v for r in self.rows) for v in RUN_VERDICTS}
        shown = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        tail = (
            f" ({shown} of {len(self.rows)} row(s); alpha {self.alpha:g} over all rows, tolerance {self.tolerance:g})"
        )
        if self.verdict == "not compared":
            return "not compared: no leaderboard row has cases in both runs"
        if self.verdict == "regressed" and not self.regressions:  # replayed cases only: named one by one
            cases = self.fixed_failures
            return (
                f"regressed: {len(cases)} replayed case(s) that passed in the baseline fail now: {named(cases)}" + tail
            )
        if self.verdict == "regressed":
            worst = max(self.regressions, key=lambda r: (_worsening(r), -r.p_adjusted))  # the row that moved most
            return f"regressed: {worst.label} {_num(worst.before)} -> {_num(worst.after)}" + tail
        if self.verdict == "indeterminate":
            rose = max((r for r in self.rows if r.verdict == "indeterminate"), key=lambda r: r.difference)
            return (
                f"indeterminate: {rose.label} {_num(rose.before)} -> {_num(rose.after)}: the run measured less than "
                "the baseline" + tail
            )
        if self.verdict == "improved":
            return "improved" + tail
        if self.verdict == "inconclusive":
            # the row that moved most the wrong way (a row that did not move names the suite's weakest sizing)
            moved = max(
                (r for r in self.rows if r.verdict == "inconclusive"),
                key=lambda r: (_worsening(r), r.detectable or 0.0),
            )
            return f"inconclusive: no significant regression, but for {moved.label} {moved.sizing()}" + tail
        return f"unchanged within +-{self.tolerance:g}" + tail

    def to_dict(self) -> dict[str, Any]:
        def shown(model: str) -> str | None:
            return None if model == NO_MODEL else model

        return {
            "baseline": self.baseline,
            "compared": self.compared,
            "tolerance": self.tolerance,
            "alpha": self.alpha,
            "verdict": self.verdict,
            "verdict_line": self.verdict_line(),
            "new": self.new,
            "missing": self.missing,
            "regressions": len(self.regressions),
            "new_failures": len(self.new_failures),
            "fixed_failures": len(self.fixed_failures),
            "improvements": len(self.improvements),
            "rows": [{**asdict(r), "model": shown(r.model)} for r in self.rows],
            "changes": [{**asdict(c), "model": shown(c.model)} for c in self.changes],
            "not_comparable": [dict(n) for n in self.not_comparable],
        }


def _keyed(records: list[Record]) -> dict[tuple[str, str, str, int], Record]:
    out: dict[tuple[str, str, str, int], Record] = {}
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for record, signature in zip(records, signature_keys(records)):
        base = (test_of(record), str(record["evaluator"]), signature)
        out[(base[0], base[1], base[2], seen[base])] = record
        seen[base] += 1
    return out


def test_of(record: Record) -> str:
    """The test a result belongs to, the draw's part left out: draw n of a repeated test meets the baseline's n-th
    result."""
    nodeid = str(record.get("nodeid", ""))
    draw = (record.get("tags") or {}).get("draw")
    if isinstance(draw, int):
        from ..core.ids import draw_id, sibling_id

        return sibling_id(nodeid, draw_id(draw))
    return nodeid


def _clusters(
    records: Iterable[Record], labels: Mapping[tuple[str, str], str]
) -> dict[tuple[str, str, str], dict[str, list[Record]]]:
    """Original-input results by leaderboard row (check label, signature, model), then by case."""
    out: dict[tuple[str, str, str], dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    for record, signature in zip(records, signature_keys(list(records))):
        if perturbation_of(record) is not None:
            continue  # like the leaderboard: original inputs only
        label = labels.get((str(record["evaluator"]), signature), str(record["evaluator"]))
        out[(label, signature, str(record.get("model") or NO_MODEL))][case_of(record)].append(record)
    return out


def _row_comparisons(
    now: list[Record], before: list[Record], *, alpha: float, tolerance: float, flips: Iterable[Change]
) -> tuple[RowComparison, ...]:
    from ..stats import inference as stats
    from .aggregate import check_labels

    labels = check_labels(now)
    current, prior = _clusters(now, labels), _clusters(before, labels)
    evidence: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for change in flips:
        evidence[(change.evaluator, change.model)][change.kind == "better"] += 1
    pending: list[tuple[dict[str, Any], stats.Paired]] = []
    for key in sorted(set(current) & set(prior)):
        label, _, model = key
        cases = sorted(set(current[key]) & set(prior[key]))
        if not cases:
            continue
        sample = current[key][cases[0]][0]
        primary = sample["primary"]
        higher = bool(sample.get("higher_is_better", {}).get(primary, True))
        common = {
            "check": label,
            "evaluator": str(sample["evaluator"]),
            "metric": primary,
            "model": model,
            "cases": len(cases),
            "results_before": sum(len(prior[key][c]) for c in cases),
            "results_after": sum(len(current[key][c]) for c in cases),
        }
        failed_before = [[float(verdict_of(r) == "fail") for r in prior[key][c]] for c in cases]
        failed_after = [[float(verdict_of(r) == "fail") for r in current[key][c]] for c in cases]
        worse, better = evidence.get((str(sample["evaluator"]), model), [0, 0])
        pending.append(
            (
                {**common, "measure": "fail rate", "higher_is_better": False, "worse": worse, "better": better},
                stats.paired(failed_before, failed_after, proportion=True, alpha=alpha, target=max(tolerance, 0.05)),
            )
        )
        unverified_before = [[float(verdict_of(r) == "unverified") for r in prior[key][c]] for c in cases]
        unverified_after = [[float(verdict_of(r) == "unverified") for r in current[key][c]] for c in cases]
        if any(v for draws in (*unverified_before, *unverified_after) for v in draws):
            # A rise in what could not be verified is lost measurement, not a regression: it makes the run
            # indeterminate.
            pending.append(
                (
                    {**common, "measure": "unverified rate", "higher_is_better": False, "worse": 0, "better": 0},
                    stats.paired(
                        unverified_before, unverified_after, proportion=True, alpha=alpha, target=max(tolerance, 0.05)
                    ),
                )
            )

        def scores(records: list[Record]) -> list[float]:
            return [float(v) for r in records if isinstance(v := r.get("metrics", {}).get(primary), (int, float))]

        pairs = [(scores(prior[key][c]), scores(current[key][c])) for c in cases]
        pairs = [(b, a) for b, a in pairs if b and a]
        if pairs and not all(v in (0.0, 1.0) for b, a in pairs for v in (*b, *a)):
            pending.append(
                (
                    {**common, "measure": "mean", "higher_is_better": higher, "cases": len(pairs)},
                    stats.paired(
                        [b for b, _ in pairs],
                        [a for _, a in pairs],
                        proportion=False,
                        alpha=alpha,
                        target=max(tolerance, 0.05),
                    ),
                )
            )

    # One-sided where the question is one-sided: "did it get worse?" over every row (Holm), and "did it get better?"
    # apart. The tolerance decides *unchanged* only; it is no extra hurdle for a significant change.
    def worse_p(fields: dict[str, Any], result: Any) -> float:
        return float(result.p_fell if fields["higher_is_better"] else result.p_rose)

    def better_p(fields: dict[str, Any], result: Any) -> float:
        return float(result.p_rose if fields["higher_is_better"] else result.p_fell)

    worse_adjusted = stats.holm([worse_p(fields, result) for fields, result in pending])
    better_adjusted = stats.holm([better_p(fields, result) for fields, result in pending])
    rows = []
    for (fields, result), p_worse, p_better in zip(pending, worse_adjusted, better_adjusted):
        gain = result.difference if fields["higher_is_better"] else -result.difference
        if p_worse <= alpha and gain < 0:
            verdict = "indeterminate" if fields["measure"] == "unverified rate" else "regressed"
        elif p_better <= alpha and gain > 0:
            # fewer unverified: no verdict
            verdict = "unchanged" if fields["measure"] == "unverified rate" else "improved"
        elif (
            result.low is not None and result.high is not None and -tolerance <= result.low and result.high <= tolerance
        ):
            verdict = "unchanged"
        else:
            verdict = "inconclusive"
        raw, p_adjusted = (worse_p(fields, result), p_worse) if gain <= 0 else (better_p(fields, result), p_better)
        rows.append(
            RowComparison(
                **fields,
                before=result.before,
                after=result.after,
                difference=result.difference,
                ci_low=result.low,
                ci_high=result.high,
                p_value=raw,
                p_adjusted=p_adjusted,
                test=f"{result.test}, one-sided",
                verdict=verdict,
                detectable=result.detectable,
                cases_for=result.cases_for,
                repeats_for=result.repeats_for,
                target=result.target,
            )
        )
    rows.sort(key=lambda r: (RUN_VERDICTS.index(r.verdict), r.p_adjusted, r.check, r.model, r.measure))
    return tuple(rows)


def compare(
    records: Iterable[Record],
    baseline: Mapping[str, Any],
    *,
    tolerance: float = 0.05,
    alpha: float = 0.05,
    name: str = "baseline",
) -> Comparison:
    """Compare this run's result records with a baseline report's."""
    records = list(records)
    # the baseline passed the report schema at start-up: its results are records
    previous = cast(
        "list[Record]", [r for r in baseline.get("results", []) if isinstance(r, dict) and "evaluator" in r]
    )
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
            changes.append(
                Change(
                    "worse" if is_ == "fail" else "better",
                    record["evaluator"],
                    primary,
                    str(record.get("model") or NO_MODEL),
                    old.get("metrics", {}).get(primary),
                    record.get("metrics", {}).get(primary),
                    record.get("nodeid"),
                    was,
                    is_,
                    fixed(old) and fixed(record),
                )
            )
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
    changes.sort(key=lambda c: (c.kind != "worse", c.evaluator, c.model, c.nodeid or ""))
    rows = _row_comparisons(records, previous, alpha=alpha, tolerance=tolerance, flips=changes)
    # New and gone: tests (with their check) that only one run has; more or fewer draws of a test are neither.
    tests_now, tests_before = {key[:3] for key in now}, {key[:3] for key in before}
    return Comparison(
        name,
        compared,
        tuple(changes),
        tuple(not_comparable),
        new=len(tests_now - tests_before),
        missing=len(tests_before - tests_now),
        tolerance=tolerance,
        rows=rows,
        alpha=alpha,
    )
