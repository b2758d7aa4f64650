"""Unverified tests as pytest shows them: a status of their own, and a summary section listing them.

A test that passed while one or more of its llmeval checks were *unverified* (nothing failing names evidence against
the answer, and nothing confirms it offline; ``--llmeval-unverified=pass``, the default) is reported through pytest's
public ``pytest_report_teststatus`` hook as ``unverified``, as pytest-rerunfailures reports ``rerun``: the progress
letter ``u``, the word ``UNVERIFIED`` under ``-v``, and ``N unverified`` on pytest's closing line (``40 passed,
5 unverified``). Only what pytest shows changes: the test passed for pytest (``report.passed``), so the exit status
and the JUnit XML (a passed test case with its properties) are those of a passed test. A test the run fails or skips
on an unverified answer (``--llmeval-unverified=fail|skip``, a check's ``unverified=``) is failed or skipped, not
unverified; a *diagnostic* result (``calibration.required``) gates nothing and makes no test unverified.

The verdicts are read from the report's ``user_properties`` (the records the test carries), so the status is the
same on xdist's controller, which gets the workers' reports, and for tests whose checks were deferred (their held
reports get their records before they are logged). Imported with the plugin, this module needs only the standard
library and pytest; the record layer is imported for a test with an unverified check.

The ``unverified test summary info`` section, just before pytest's ``short test summary info``, lists each unverified
test with the concern its check names (else what it could not confirm), one line each, cut to the terminal's width as
pytest cuts its own lines (whole in CI and under ``-vv``). It is shown by default and when pytest's ``-r`` holds ``u``,
``a`` or ``A``; another ``-r`` (``-rf``, ``-rN``) or ``--no-summary`` leaves it out.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

__all__ = ["UnverifiedStatus", "CATEGORY", "unverified_records", "shows_unverified", "summary_message", "trimmed"]


#: The category pytest counts these tests under (``5 unverified``), their progress letter and their word under ``-v``.
CATEGORY, LETTER, WORD = "unverified", "u", "UNVERIFIED"

#: pytest's default ``-r`` (``fE``): unverified tests are listed under it too.
_DEFAULT_REPORTCHARS = "fE"


def unverified_records(properties: Iterable[Any]) -> list[dict[str, Any]]:
    """The records among a test's ``user_properties`` whose verdict is unverified and that passed (what the run makes
    of an unverified answer by default); a diagnostic one aside.

    The verdict properties (``llmeval.<check>.verdict``) are looked at first: a test with no unverified one costs no
    JSON decoding.
    """
    pairs = [tuple(pair) for pair in properties if isinstance(pair, (tuple, list)) and len(pair) == 2]
    if not any(
        value == CATEGORY and isinstance(name, str) and name.startswith("llmeval.") and name.endswith(".verdict")
        for name, value in pairs
    ):
        return []
    from ..core.result import diagnostic, verdict_of
    from ..run.recording import RECORD_PROPERTY, decode_record

    found = []
    for name, value in pairs:
        if name != RECORD_PROPERTY:
            continue
        try:
            record = decode_record(value)
        except (ValueError, RecursionError):  # not a record: the session counts it and warns
            continue
        if verdict_of(record) == CATEGORY and record.get("passed") is True and not diagnostic(record.get("details")):
            found.append(dict(record))
    return found


def shows_unverified(reportchars: str) -> bool:
    """Whether ``-r`` asks for unverified tests: pytest's default, or chars that hold ``u``, ``a`` or ``A`` (and no
    ``N``
    after them, which resets the list as it does pytest's)."""
    shown = reportchars == _DEFAULT_REPORTCHARS
    for char in reportchars:
        if char in "uaA":
            shown = True
        elif char == "N":
            shown = False
    return shown


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip()


def _missed(record: Mapping[str, Any]) -> str:
    """The record's metrics that missed their thresholds: ``support 0.552 < threshold 0.700`` (`Measure`'s numbers)."""
    from ..core.result import missed_thresholds
    from ..core.verdict import Measure

    metrics, thresholds, directions = (record.get(field) for field in ("metrics", "thresholds", "higher_is_better"))
    if not (isinstance(metrics, Mapping) and isinstance(thresholds, Mapping)):
        return ""
    directions = directions if isinstance(directions, Mapping) else {}
    values = {name: float(value) for name, value in metrics.items() if isinstance(value, (int, float))}
    limits = {name: float(value) for name, value in thresholds.items() if isinstance(value, (int, float))}
    return "; ".join(
        Measure(name, values[name], limits[name], bool(directions.get(name, True))).against_threshold()
        for name in missed_thresholds(values, limits, directions)
    )


def summary_message(records: Iterable[Mapping[str, Any]]) -> str:
    """What a test's unverified records say, one per check: ``groundedness: concern (name): 'Berlin' (sentence 1)
    appears nowhere in the context``; a check that names no concern says what missed its threshold and its reason
    (``groundedness: not confirmed offline (support 0.552 < threshold 0.700): least supported sentence 1 ...``)."""
    from ..core.verdict import concerns
    from ..text.basics import counted

    parts = []
    for record in records:
        reason = str(record.get("reason") or "")
        named = concerns(reason, record.get("details"))
        if named:
            said = _first_line(named[0]) + (
                f" (and {counted(len(named) - 1, 'more concern')})" if len(named) > 1 else ""
            )
        else:
            missed, why = _missed(record), _first_line(reason)
            said = "not confirmed offline" + (f" ({missed})" if missed else "") + (f": {why}" if why else "")
        parts.append(f"{record.get('evaluator', '?')}: {said}")
    return "; ".join(dict.fromkeys(parts))


def _width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (East Asian) characters take two, combining ones none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def trimmed(message: str, available: int) -> str | None:
    """``" - message"`` within ``available`` columns, ending in ``...`` when cut (its first line only); ``None`` when
    not
    even `` - ...`` fits (pytest's own summary lines are cut so)."""
    message, head, ellipsis = _first_line(message), " - ", "..."
    if _width(head) + len(ellipsis) > available:
        return None
    if _width(head) + _width(message) <= available:
        return head + message
    room = available - len(ellipsis) - _width(head)
    message = message[:room]
    while _width(message) > room:
        message = message[:-1]
    return head + message + ellipsis


def _running_on_ci() -> bool:
    """As pytest tells a CI machine (``CI`` or ``BUILD_NUMBER`` set), where it writes its summary lines whole."""
    return any(os.environ.get(name) for name in ("CI", "BUILD_NUMBER"))


class UnverifiedStatus:
    """pytest's view of unverified tests (registered as the plugin ``llmeval-unverified``); see the module's
    docstring."""

    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
        """``unverified`` / ``u`` / ``UNVERIFIED`` for a passed test with an unverified check; anything else is left to
        pytest (an expected failure that passed stays ``XPASS``)."""
        if report.when != "call" or not report.passed or hasattr(report, "wasxfail"):
            return None
        if not unverified_records(getattr(report, "user_properties", ())):
            return None
        return CATEGORY, LETTER, (WORD, {"yellow": True})

    @pytest.hookimpl(trylast=True)  # after the llmeval summary: the list sits just above pytest's short summary
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or config.getoption("no_summary", False):
            return
        reports = terminalreporter.stats.get(CATEGORY, [])
        if not reports or not shows_unverified(str(config.getoption("reportchars", _DEFAULT_REPORTCHARS) or "")):
            return
        from ..text.basics import replace_surrogates

        writer = config.get_terminal_writer()
        whole = (_running_on_ci() or config.getoption("verbose", 0) >= 2) and not config.getoption(
            "force_short_summary", False
        )
        terminalreporter.write_sep("=", "unverified test summary info", yellow=True, bold=True)
        for report in reports:
            # Model answers may hold lone surrogates, which no terminal can print.
            message = replace_surrogates(summary_message(unverified_records(report.user_properties)))
            line = f"{WORD} {report.nodeid}"
            tail = f" - {message}" if whole else trimmed(message, writer.fullwidth - _width(line))
            terminalreporter.write_line(writer.markup(WORD, yellow=True) + line[len(WORD) :] + (tail or ""))
