"""The JSON report: every result, the aggregates and the run's metadata; read back with :func:`load`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from ..result import Result

__all__ = ["chunks", "dumps", "load", "results", "schema", "validate"]

FORMAT = "pytest-llmeval-report"


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON text; lone surrogates in answers are escaped, so any ``str`` round-trips."""
    return "".join(chunks(report))


def chunks(report: dict[str, Any]) -> Iterator[str]:
    """The report's JSON text in pieces, as :func:`dumps` writes it, for streaming to a file."""
    from ..text import escape_surrogates

    encoder = json.JSONEncoder(indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False, default=str)
    buffer: list[str] = []
    size = 0
    for piece in encoder.iterencode(report):
        buffer.append(piece)
        size += len(piece)
        if size >= 1 << 16:
            yield escape_surrogates("".join(buffer))  # a surrogate is one character: never split by a piece boundary
            buffer, size = [], 0
    yield escape_surrogates("".join(buffer)) + "\n"


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


def schema() -> dict[str, Any]:
    """The JSON Schema of the report format (``report.schema.json``, shipped in the package)."""
    from importlib import resources

    loaded: dict[str, Any] = json.loads(resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8"))
    return loaded


def validate(report: Any) -> str | None:
    """The first place where ``report`` breaks the report schema, as ``results[3].metrics: ...``; ``None`` if it fits."""
    import jsonschema

    errors = jsonschema.Draft202012Validator(schema()).iter_errors(report)
    # The first in document order: results[2] before results[10], the top level before any record.
    first = min(errors, key=lambda e: [str(p).zfill(12) if isinstance(p, int) else p for p in e.absolute_path], default=None)
    if first is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path).lstrip(".") or "(top level)"
    return f"{where}: {first.message[:200]}"


def results(report: dict[str, Any]) -> list[Result]:
    """The :class:`Result` objects stored in a report, in run order."""
    return [Result.from_dict(record) for record in report.get("results", [])]
