"""Calibration: a check's verdicts on a team's own labeled answers, the record that says so, and whether it may gate.

A calibration run (``--llmeval-calibrate=labels.jsonl``) runs each labeled row's check with the configuration in force;
its records carry the row's label as the tag ``label``. `calibrate()` sums them up per check signature (evaluator
version, scoring or judge model, parameters, thresholds): agreement and Cohen's kappa against the labels
(`pytest_llmeval.stats.agreement`), the same per tier (who decided: rules, detector, judge), the cost (judge calls,
tokens, seconds) and, for a score, where the threshold would sit for a target failure precision.

The calibration record (``llmeval-calibration.json``, meant to be committed) keeps one entry per signature, with the
label file's hash and rows. With ``calibration.required`` a check whose signature has no entry, or an entry
below a floor, is *diagnostic*: `status()` says why, and its verdicts are recorded without failing a test or the gate.

>>> rec = lambda label, verdict: {"evaluator": "e", "primary": "m", "metrics": {"m": 1.0 if verdict == "pass" else 0.0},
...     "passed": verdict == "pass", "verdict": verdict, "decided_by": "rules", "higher_is_better": {"m": True},
...     "signature": {"evaluator": "e", "version": "1"}, "tags": {"label": label}}
>>> [entry] = calibrate([rec("good", "pass")] * 30 + [rec("bad", "fail")] * 25 + [rec("bad", "pass")] * 5).values()
>>> entry["rows"], round(entry["kappa"], 2), entry["bad_caught"]
(60, 0.83, 25)
>>> status(entry, Floors(min_kappa=0.9, min_rows=50))
(False, 'not calibrated: kappa 0.83 on 60 rows, needs 0.9')
"""

from __future__ import annotations

import math

import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.result import Signature, diagnostic, verdict_of
from ..core.verdict import DECIDERS
from ..stats.agreement import LABELS, ThresholdSuggestion, agreement, suggest_threshold
from .gate import is_error

__all__ = [
    "calibrate",
    "Floors",
    "status",
    "read_calibration",
    "write_calibration",
    "file_digest",
    "FORMAT",
    "calibration_lines",
    "is_diagnostic",
    "more_rows",
]

FORMAT = "pytest-llmeval-calibration"
VERSION = 1


def is_diagnostic(record: Mapping[str, Any]) -> bool:
    """Whether a record was made by a check that may not gate (``calibration.required``)."""
    return diagnostic(record.get("details"))


def _cost(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    calls = prompt = completion = 0
    money = seconds = 0.0
    for record in records:
        details = record.get("details") if isinstance(record.get("details"), Mapping) else {}
        usage = details.get("judge") if isinstance(details, Mapping) else None
        if isinstance(usage, Mapping):
            calls += int(usage.get("calls") or 0)
            prompt += int(usage.get("prompt_tokens") or 0)
            completion += int(usage.get("completion_tokens") or 0)
            money += float(usage.get("cost") or 0.0)
        seconds += float((record.get("tags") or {}).get("seconds") or 0.0)
    return {
        "judge_calls": calls,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost": round(money, 8),
        "seconds": round(seconds, 3),
    }


def _call(record: Mapping[str, Any]) -> str:
    """The check's call on a labeled answer: its verdict, or ``unverified`` when it measured nothing (`is_error`)."""
    return "unverified" if is_error(record) else verdict_of(record)


def _self_agreement(records: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """A judge asked several times (``judge.repeats``): its mean agreement with itself over the rows, and how
    many rows it split on (left unverified); ``None`` without repeats."""
    shares = [
        float(r["details"]["repeats"]["agreement"])
        for r in records
        if isinstance(r.get("details"), Mapping)
        and isinstance(r["details"].get("repeats"), Mapping)
        and r["details"]["repeats"].get("agreement") is not None
    ]
    split = sum(isinstance(r.get("details"), Mapping) and bool(r["details"].get("split")) for r in records)
    if not shares and not split:
        return None
    return {"rows": len(shares), "self_agreement": sum(shares) / len(shares) if shares else None, "split": split}


def calibrate(
    records: Iterable[Mapping[str, Any]], *, target_precision: float = 0.9, alpha: float = 0.05
) -> dict[str, dict[str, Any]]:
    """One entry per check signature of the labeled ``records`` (those with a ``label`` tag), keyed by the signature's
    `Signature.key`."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        label = (record.get("tags") or {}).get("label")
        if label in LABELS and isinstance(record.get("signature"), Mapping):
            groups[Signature.from_dict(record["signature"]).key].append(record)
    out = {}
    for key, group in sorted(groups.items()):
        # A result that measured nothing (a judge reply that could not be used, a check that failed) is no call on the
        # answer: it counts as unverified here, and as an error.
        errors = sum(is_error(r) for r in group)
        found = agreement(((r["tags"]["label"], _call(r)) for r in group), alpha=alpha)
        tiers = {}
        for tier in DECIDERS:
            decided = [r for r in group if r.get("decided_by") == tier and _call(r) != "unverified"]
            if decided:
                tiers[tier] = agreement(((r["tags"]["label"], _call(r)) for r in decided), alpha=alpha).to_dict()
        first = group[0]
        primary = str(first.get("primary", ""))
        higher = bool((first.get("higher_is_better") or {}).get(primary, True))
        scored = [
            (r["metrics"].get(primary), r["tags"]["label"] == "bad")
            for r in group
            if isinstance(r.get("metrics"), Mapping) and isinstance(r["metrics"].get(primary), (int, float))
        ]
        threshold = None
        if len({value for value, _ in scored}) > 2:  # a score, not a yes/no: a threshold can move
            threshold = suggest_threshold(
                scored, metric=primary, higher_is_better=higher, target=target_precision, alpha=alpha
            ).to_dict()
        out[key] = {
            "check": str(first.get("evaluator", "")),
            "signature": dict(first["signature"]),
            **found.to_dict(),
            "errors": errors,
            "tiers": tiers,
            "cost": _cost(group),
            "threshold": threshold,
            "judge_repeats": _self_agreement(group),
        }
    return out


@dataclass(frozen=True)
class Floors:
    """What a calibration must show before its check may gate (``calibration.floors``)."""

    min_kappa: float = 0.6
    min_rows: int = 50
    min_precision: float | None = None


def status(entry: Mapping[str, Any] | None, floors: Floors, *, other: Iterable[str] = ()) -> tuple[bool, str]:
    """(may gate, why) for a check's calibration entry (``None``: its signature has none; ``other``: the signatures the
    record has for the same check, which differ from the one in force)."""
    if entry is None:
        others = list(other)
        if others:
            return False, (
                f"not calibrated: the calibration record has {len(others)} entry(ies) for this check under "
                "another signature (version, model, parameters or thresholds changed); calibrate again"
            )
        return False, "not calibrated: no calibration of this check (run pytest --llmeval-calibrate=LABELS.jsonl)"
    kappa, rows, precision = entry.get("kappa"), int(entry.get("rows") or 0), entry.get("precision")
    decided = int(entry.get("decided", rows) or 0)  # kappa rests on the rows the check decided
    shown = "kappa n/a" if kappa is None else f"kappa {kappa:.2f}"
    on = f"{rows} rows" if decided == rows else f"{decided} decided of {rows} rows"
    if decided < floors.min_rows:
        return False, f"not calibrated: {shown} on {on}, needs {floors.min_rows} rows"
    if kappa is None or kappa < floors.min_kappa:
        return False, f"not calibrated: {shown} on {on}, needs {floors.min_kappa:g}"
    if floors.min_precision is not None and (precision is None or precision < floors.min_precision):
        found = "n/a" if precision is None else f"{precision:.2f}"
        return False, f"not calibrated: failure precision {found} on {on}, needs {floors.min_precision:g}"
    return True, f"calibrated: {shown} on {on}"


def file_digest(path: str | os.PathLike[str]) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def read_calibration(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The calibration record at ``path`` (an empty one when there is no file); ``ValueError`` names what is wrong."""
    if not os.path.exists(path):
        return {"format": FORMAT, "version": VERSION, "checks": {}}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{os.fspath(path)}: not a readable calibration record ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("checks"), dict):
        raise ValueError(
            f"{os.fspath(path)}: not a calibration record (expected JSON with format {FORMAT!r} and 'checks')"
        )
    return data


def write_calibration(
    path: str | os.PathLike[str], entries: Mapping[str, Mapping[str, Any]], labels: Mapping[str, Any]
) -> dict[str, Any]:
    """Merge ``entries`` into the record at ``path`` (an entry replaces the one of its signature; others stay) and write
    it, sorted and indented so that a diff reads; ``labels``: the label file's path, sha256 and rows."""
    data = read_calibration(path)
    for key, entry in entries.items():
        data["checks"][key] = _rounded({**entry, "labels": dict(labels)})
    data["checks"] = dict(sorted(data["checks"].items()))
    temporary = f"{os.fspath(path)}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(
            data, handle, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False, default=lambda value: None
        )
        handle.write("\n")
    os.replace(temporary, path)
    return data


def _rounded(value: Any) -> Any:
    """``value`` with its floats to 6 significant digits, so that a record read by a person (or a diff) shows 0.4, not
    0.3999999999999999."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, Mapping):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _number(value: Any, digits: int = 2) -> str:
    if not isinstance(value, (int, float)):
        return "n/a"
    return f"{0.0 if abs(value) < 0.5 * 10**-digits else value:.{digits}f}"  # never "-0.00"


def more_rows(entry: Mapping[str, Any], floors: Floors) -> int | None:
    """About how many more labeled rows a calibration needs before it clears ``floors``: enough decided rows, and a
    kappa
    interval whose lower end clears the floor at the agreement measured (its width shrinks as one over the square root
    of the rows), at the share of rows the check decided; 0 when it clears them, ``None`` when more rows cannot help
    (the kappa itself is below the floor, or the check decided no row)."""
    rows, decided = int(entry.get("rows") or 0), int(entry.get("decided") or 0)
    kappa, low = entry.get("kappa"), entry.get("kappa_low")
    if not decided or kappa is None or kappa <= floors.min_kappa:
        return None
    needed = float(floors.min_rows)
    if isinstance(low, (int, float)) and low < floors.min_kappa:
        needed = max(needed, decided * ((kappa - low) / (kappa - floors.min_kappa)) ** 2)
    return max(0, math.ceil(needed * rows / decided) - rows)


def _decided_of(caught: int, total: int, decided: int) -> str:
    """``1/10`` or, where the check left some rows undecided, ``1/10 (1/3 decided)``."""
    return f"{caught}/{total}" + (f" ({caught}/{decided} decided)" if decided != total else "")


def calibration_lines(entries: Mapping[str, Mapping[str, Any]], floors: Floors | None = None) -> list[str]:
    """What a calibration run found, a few lines per check signature (the terminal's and the reports'); with the run's
    ``floors``, whether each may gate and, if not, about how many more labeled rows would let it."""
    lines = []
    for key, e in entries.items():
        low, high = e.get("kappa_low"), e.get("kappa_high")
        interval = f" [{_number(low)}, {_number(high)}]" if low is not None and high is not None else ""
        cost = e.get("cost") or {}
        rows, decided = int(e["rows"]), int(e.get("decided", e["rows"]))
        on = f"{rows} rows" if decided == rows else f"{rows} rows, {decided} decided"
        good_decided, bad_decided = e["good_failed"] + e["good_passed"], e["bad_caught"] + e["bad_passed"]
        lines.append(
            f"{e['check']} ({key.split('|', 2)[1]}, {Signature.from_dict(e['signature']).digest}): {on}; "
            f"over the decided rows kappa {_number(e.get('kappa'))}{interval}, agreement "
            f"{_number(e.get('agreement'))}; "
            f"good failed {_decided_of(e['good_failed'], e['good'], good_decided)}, bad caught "
            f"{_decided_of(e['bad_caught'], e['bad'], bad_decided)}, failure precision "
            f"{_number(e.get('precision'))}, unverified {_number(e.get('unverified_share'))}"
            f"{f' ({n} measured nothing)' if (n := e.get('errors')) else ''}; judge calls "
            f"{cost.get('judge_calls', 0)}, tokens {cost.get('prompt_tokens', 0) + cost.get('completion_tokens', 0)}, "
            f"{cost.get('seconds', 0.0):.1f}s"
        )
        for tier, figures in (e.get("tiers") or {}).items():
            lines.append(
                f"  decided by {tier}: {figures['rows']} rows, kappa {_number(figures.get('kappa'))}, agreement "
                f"{_number(figures.get('agreement'))}, failure precision {_number(figures.get('precision'))}"
            )
        repeats = e.get("judge_repeats")
        if repeats:
            lines.append(
                f"  judge asked repeatedly: agrees with itself {_number(repeats.get('self_agreement'))} over "
                f"{repeats['rows']} rows, split (left unverified) on {repeats['split']}"
            )
        threshold = e.get("threshold")
        if threshold:
            lines.append("  suggested " + ThresholdSuggestion(**threshold).describe())
        if floors is not None:
            gates, why = status(e, floors)
            if not gates:
                more = more_rows(e, floors)
                lines.append(
                    f"  may not gate yet ({why.removeprefix('not calibrated: ')}): "
                    + (
                        f"about {more} more labeled rows would decide it at this agreement"
                        if more
                        else "more labeled rows will not clear the floor at this agreement"
                    )
                )
    return lines
