"""The JSON report: every result, the aggregates and the run's metadata; read back with :func:`load`."""

from __future__ import annotations

import json
import os
from typing import Any

from ..result import Result

__all__ = ["dumps", "load", "results"]

FORMAT = "pytest-llmeval-report"


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON text; lone surrogates in answers are escaped, so any ``str`` round-trips."""
    from ..text import escape_surrogates

    return escape_surrogates(json.dumps(report, indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False, default=str)) + "\n"


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a JSON report; ``ValueError`` if the file is not one."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except ValueError as exc:
            raise ValueError(f"{os.fspath(path)} is not a JSON file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{os.fspath(path)} is not a pytest-llmeval report (no \"format\": \"{FORMAT}\")")
    if data.get("version") != 1:
        raise ValueError(f"{os.fspath(path)}: unsupported report version {data.get('version')!r}")
    return data


def results(report: dict[str, Any]) -> list[Result]:
    """The :class:`Result` objects stored in a report, in run order."""
    return [Result.from_dict(record) for record in report.get("results", [])]
