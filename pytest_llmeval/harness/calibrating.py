"""The calibration run and the calibration requirement, as pytest meets them.

``--llmeval-calibrate=labels.jsonl`` replaces the run's tests by one test per labeled row (`LabeledRow`): each runs
its row's check with the configuration in force (the offline rules, a detector, the judge the run has) and records
the result with the row's label, so it works under ``-n`` and with recorded judge verdicts like any test. The
controller sums the records up (`pytest_llmeval.report.calibration.calibrate`), prints them and writes the
calibration record.

``calibration.required``: `Requirement` looks each result's signature up in the record; a check that may
not gate gets its results marked *diagnostic*.

>>> # pytest --llmeval-calibrate=labels.jsonl -o llmeval_calibrate_check=groundedness
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.case import Case, CaseFileError, check_fields, read_case_rows
from ..core.result import Record, Result, Signature
from ..report.calibration import (
    Floors,
    calibrate,
    calibration_lines,
    file_digest,
    is_diagnostic,
    more_rows,
    read_calibration,
    status,
    write_calibration,
)
from ..run.recording import current_context

if TYPE_CHECKING:
    from .options import Settings

__all__ = [
    "LabeledRow",
    "labeled_items",
    "Requirement",
    "finish_calibration",
    "calibration_key",
    "calibration_section",
    "run_floors",
    "setup_calibration",
]

#: The calibration run's entries and the record file it wrote (the controller's, for the terminal and the report).
calibration_key = pytest.StashKey[tuple[dict[str, Any], str]]()


class LabeledRow(pytest.Item):
    """One labeled row of a calibration file: its check runs on it and records the result with the row's label."""

    def __init__(self, *, case: Case, check: str, label: str, where: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case, self.check, self.label, self.where = case, check, label, where
        marks = {
            "case": case.case_id,
            "label": label,
            "calibrates": check,
            **({"model": case.model} if case.model else {}),
        }
        self.add_marker(pytest.mark.llmeval(**marks))

    def runtest(self) -> None:
        from .api import evaluate

        context = current_context()
        started = time.perf_counter()
        result = evaluate(self.check, record=False, case=self.case.case_id, **check_fields(self.case))
        if context is not None:
            context.tags["seconds"] = round(time.perf_counter() - started, 4)
            context.record(result)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.where}: {self.check} on a {self.label} answer"


class _LabelFile(pytest.File):
    """The calibration file, as the parent of its rows' tests."""

    check: str = ""

    def collect(self) -> list[pytest.Item]:
        try:
            rows = read_case_rows(self.path, extra=("label", "check"))
        except (CaseFileError, OSError) as exc:
            raise pytest.UsageError(f"--llmeval-calibrate: {exc}") from None
        items: list[pytest.Item] = []
        seen: dict[str, str] = {}
        for index, (where, case, extra) in enumerate(rows):
            label = str(extra.get("label", "")).strip().lower()
            check = str(extra.get("check") or self.check).strip()
            if label not in ("good", "bad"):
                raise pytest.UsageError(
                    f"--llmeval-calibrate: {where}: 'label' must be good or bad; got {extra.get('label')!r:.80}"
                )
            if not check:
                raise pytest.UsageError(
                    f"--llmeval-calibrate: {where}: no check to calibrate: give the row a 'check' (a check name "
                    "such as groundedness) or the run -o llmeval_calibrate_check=NAME"
                )
            case_id = case.case_id or f"row{index + 1}"
            name = f"{check}:{case_id}" + (f":{case.model}" if case.model else "")
            if name in seen:
                raise pytest.UsageError(f"--llmeval-calibrate: {where}: duplicate row {name!r} (first at {seen[name]})")
            seen[name] = where
            items.append(
                LabeledRow.from_parent(
                    self, name=name, case=replace(case, case_id=case_id), check=check, label=label, where=where
                )
            )
        return items


def labeled_items(session: pytest.Session, settings: Settings) -> list[pytest.Item]:
    """The calibration file's rows as tests (a bad file or row is a usage error naming it)."""
    path = Path(session.config.invocation_params.dir, settings.calibrate)
    if not path.is_file():
        raise pytest.UsageError(f"--llmeval-calibrate: no such file: {path}")
    parent = _LabelFile.from_parent(session, path=path)
    parent.check = settings.calibrate_check
    return parent.collect()


def finish_calibration(
    records: Sequence[Mapping[str, Any]], settings: Settings, start: str
) -> tuple[dict[str, Any], str]:
    """The calibration run's entries (per check signature) and the record file written with them."""
    entries = calibrate(records, target_precision=settings.calibration_precision, alpha=0.05)
    labels_path = os.path.join(start, settings.calibrate)
    labels = {
        "path": settings.calibrate,
        "sha256": file_digest(labels_path),
        "rows": len(read_case_rows(labels_path, extra=("label", "check"))),
    }
    target = os.path.join(start, settings.calibration_file)
    if entries:
        write_calibration(target, entries, labels)
    return entries, target


class Requirement:
    """``calibration.required``: whether each check signature may gate, by the calibration record."""

    def __init__(self, path: str, floors: Floors) -> None:
        self.path, self.floors = path, floors
        try:
            self.record = read_calibration(path)
        except ValueError as exc:
            raise pytest.UsageError(f"calibration.required: {exc}") from None
        self._known: dict[str, tuple[bool, str]] = {}

    def decide(self, signature: Signature) -> tuple[bool, str]:
        key = signature.key
        if key not in self._known:
            checks: Mapping[str, Any] = self.record.get("checks") or {}
            others = [
                k
                for k, e in checks.items()
                if isinstance(e, Mapping) and e.get("check") == signature.evaluator and k != key
            ]
            self._known[key] = status(checks.get(key), self.floors, other=others)
        return self._known[key]

    @staticmethod
    def gating(records: list[Record]) -> list[Record]:
        """The records that may gate: all but the diagnostic ones."""
        return [record for record in records if not is_diagnostic(record)]

    def apply(self, results: list[Result]) -> list[Result]:
        """``results`` with those of a check that may not gate marked diagnostic: passed, their verdict kept, why
        said."""
        out = []
        for result in results:
            allowed, why = self.decide(result.signature)
            details = {
                **result.details,
                "calibration": {"status": "calibrated" if allowed else "diagnostic", "why": why},
            }
            if allowed:
                out.append(replace(result, details=details))
            else:
                out.append(
                    replace(result, passed=True, details=details, reason=f"diagnostic ({why}): {result.reason}"[:2000])
                )
        return out


def setup_calibration(config: pytest.Config, settings: Settings) -> Requirement | None:
    """The run's calibration requirement (``None``: none, or this is a calibration run, which measures raw verdicts)."""
    if not settings.require_calibration or settings.calibrate:
        return None
    return Requirement(os.path.join(config.invocation_params.dir, settings.calibration_file), run_floors(settings))


def run_floors(settings: Settings) -> Floors:
    """The floors a calibration must clear before its check may gate (``calibration.floors``; what it leaves out keeps
    `Floors`' default)."""
    given, default = dict(settings.calibration_floors), Floors()
    return Floors(
        given.get("min_kappa", default.min_kappa),
        int(given.get("min_rows", default.min_rows)),
        given.get("min_precision", default.min_precision),
    )


def calibration_section(
    config: pytest.Config,
    records: Sequence[Mapping[str, Any]],
    requirement: Requirement | None,
    floors: Floors | None = None,
) -> dict[str, Any] | None:
    """What the reports say of calibration: the calibration run's figures, and each check's status under the
    requirement (with its verdicts), or ``None`` when the run neither calibrated nor required calibration."""
    ran = config.stash.get(calibration_key, None)
    if ran is None and requirement is None:
        return None
    section: dict[str, Any] = {}
    if ran is not None:
        floors = requirement.floors if requirement is not None else floors or Floors()  # the run's (run_floors)
        entries = {
            key: {**entry, "may_gate": status(entry, floors)[0], "more_rows": more_rows(entry, floors)}
            for key, entry in ran[0].items()
        }
        section.update(entries=entries, file=ran[1], lines=calibration_lines(ran[0], floors))
    if requirement is not None:
        checks: dict[str, dict[str, Any]] = {}
        for record in records:
            found = (
                (record.get("details") or {}).get("calibration") if isinstance(record.get("details"), Mapping) else None
            )
            if not isinstance(found, Mapping) or not isinstance(record.get("signature"), Mapping):
                continue
            signature = Signature.from_dict(record["signature"])
            row = checks.setdefault(
                signature.key,
                {
                    "check": signature.evaluator,
                    "digest": signature.digest,
                    "status": found.get("status"),
                    "why": found.get("why"),
                    "pass": 0,
                    "fail": 0,
                    "unverified": 0,
                },
            )
            verdict = str(record.get("verdict") or ("pass" if record.get("passed") else "fail"))
            row[verdict] = row.get(verdict, 0) + 1
        section.update(
            required=True,
            file=requirement.path,
            floors=vars(requirement.floors),
            checks=list(checks.values()),
            status_lines=[
                f"{c['check']} ({c['digest']}): {'diagnostic, ' if c['status'] == 'diagnostic' else ''}{c['why']} "
                f"({c['pass']} pass, {c['fail']} fail, "
                f"{c['unverified']} unverified)"
                for c in checks.values()
            ],
        )
    return section
