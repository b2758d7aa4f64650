"""K of N: a repeated case passes when at least ``min_pass`` of its draws pass.

The draws of such a case record their checks without failing their tests (their records carry ``draws`` and
``min_pass`` in their tags). On the controller, as each draw's call report comes in (from any xdist worker),
`CaseDraws.decide` counts the case's passing draws; when the last of its draws is in and fewer than ``min_pass``
passed, that draw's report becomes the case's one failure, saying why, before pytest counts it. A flaky draw within
K turns nothing red.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ..core.result import verdict_of
from ..run.recording import RECORD_PROPERTY, decode_record

__all__ = ["CaseDraws"]


class CaseDraws:
    """The draws seen so far of each case that passes on K of N, and the cases whose verdict is certain.

    A case is decided as soon as its verdict cannot change (curtailed sampling): K draws passed, or more than N - K
    failed. With ``mark`` (the controller, or a run without workers) the draw that makes a failure certain reports
    it; ``repeat=auto`` skips the draws of a decided case that are still to run in this process.
    """

    def __init__(self, *, mark: bool = True) -> None:
        self.mark = mark
        self._seen: dict[str, list[bool]] = {}
        self._decided: set[str] = set()

    def decided(self, case: str) -> bool:
        return case in self._decided

    def decide(self, report: pytest.TestReport) -> None:
        """Count a draw's call report; the last draw of a case that failed K of N reports the failure."""
        if report.when != "call":
            return
        records = []
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY:
                try:
                    records.append(decode_record(value))
                except (ValueError, RecursionError):  # not a record: the session counts it
                    continue
        tags: Mapping[str, Any] = next(
            (r.get("tags") or {} for r in records if "min_pass" in (r.get("tags") or {})), {}
        )
        if not tags:
            return
        draws, needed = int(tags["draws"]), int(tags["min_pass"])
        case = str(next((r.get("case_id") for r in records if r.get("case_id")), report.nodeid))
        passed = report.passed and not any(verdict_of(r) == "fail" for r in records)
        if case in self._decided:
            return  # a draw that ran after its case was decided (on another worker): it changes nothing
        seen = self._seen.setdefault(case, [])
        seen.append(passed)
        failed = len(seen) - sum(seen)
        if sum(seen) >= needed:
            self._decided.add(case)
        elif failed > draws - needed:
            self._decided.add(case)
            if self.mark:
                report.outcome = "failed"
                report.longrepr = (
                    f"llmeval: case {case} failed: {failed} of its {draws} draws failed, so fewer than "
                    f"the {needed} it needs can pass (min_pass); the failed checks of each draw are in the reports"
                )
