"""The JSON report: every result, the aggregates and the run's metadata; read back with `load()`."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from json.encoder import encode_basestring
from typing import Any

from ..core.result import Result

__all__ = ["chunks", "dumps", "load", "load_baseline", "results", "schema", "validate", "FORMAT", "VERSION", "assemble"]


FORMAT = "pytest-llmeval-report"


#: The report's format version.
VERSION = 1


def assemble(
    results: list[Any],
    *,
    run: dict[str, Any],
    summary: dict[str, Any],
    tests: dict[str, str],
    baseline: dict[str, Any] | None = None,
    models: dict[str, Any] | None = None,
    judge: dict[str, Any] | None = None,
    gate: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report: a function of the run's records (``results``, each with its test's ``outcome``) and what is
    known about the run (``run``: times, versions, exit status; ``summary``: the aggregate of the records;
    ``tests``: every test's outcome; ``baseline``: the comparison; ``models`` / ``judge``: their use; ``gate``: the
    run's gate, `pytest_llmeval.report.gate`). Every other report is written from this one."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "run": run,
        "models": models or {},
        "judge": judge or {},
        "summary": summary,
        "baseline": baseline,
        "tests": tests,
        "gate": gate or {},
        "results": results,
    }


def dumps(report: dict[str, Any]) -> str:
    """The report as JSON text; lone surrogates in answers are escaped, so any ``str`` round-trips."""
    return "".join(chunks(report))


def chunks(report: dict[str, Any]) -> Iterator[str]:
    """The report's JSON text in pieces, as `dumps()` writes it, for streaming to a file."""
    from ..text.basics import escape_surrogates

    buffer: list[str] = []
    size = 0
    for piece in _pieces(report):
        buffer.append(piece)
        size += len(piece)
        if size >= 1 << 16:
            yield escape_surrogates("".join(buffer))  # a surrogate is one character: never split by a piece boundary
            buffer, size = [], 0
    yield escape_surrogates("".join(buffer)) + "\n"


#: How the report is written: ``json.dumps(report, **OPTIONS)`` (then lone surrogates escaped).
OPTIONS: dict[str, Any] = {"indent": 2, "sort_keys": False, "ensure_ascii": False, "allow_nan": False, "default": str}


def _pieces(report: dict[str, Any]) -> Iterator[str]:
    """``json.dumps(report, **OPTIONS)`` in pieces, the results record by record.

    Tens of thousands of records share most of their values (one signature object per
    check, see `RecordStore`): a shared value's text is
    made once. A value's text at nesting level N is its text at level 0 with 2N more
    spaces after each line break (strings hold no raw line break: JSON escapes it).
    """
    encoder = json.JSONEncoder(**OPTIONS)
    results = report.get("results") if type(report) is dict else None
    if type(results) is not list or not results or any(type(key) is not str for key in report):
        yield from encoder.iterencode(report)
        return
    for index, (key, value) in enumerate(report.items()):
        yield ("{\n  " if index == 0 else ",\n  ") + encode_basestring(key) + ": "
        if value is results:
            yield from _records(results, encoder)
        else:
            yield encoder.encode(value).replace("\n", "\n  ")
    yield "\n}"


def _records(records: list[Any], encoder: json.JSONEncoder) -> Iterator[str]:
    """The results' list at level 1 of the report, as ``encoder`` writes it."""
    texts: dict[int, str] = {}  # id -> text at level 3, for values met more than once (the report keeps them alive)
    seen: set[int] = set()
    yield "["
    for index, record in enumerate(records):
        parts = ["\n    {" if index == 0 else ",\n    {"]
        if type(record) is dict and record:
            for key, value in record.items():
                if type(key) is not str:
                    break
                kind = type(value)
                if kind is str:
                    text = encode_basestring(value)
                elif value is None or value is True or value is False or kind is int:
                    text = (
                        "null"
                        if value is None
                        else "true"
                        if value is True
                        else "false"
                        if value is False
                        else int.__repr__(value)
                    )
                elif kind is float and math.isfinite(value):
                    text = float.__repr__(value)
                elif (kind is dict or kind is list) and value:
                    known = texts.get(id(value))
                    if known is None:
                        known = encoder.encode(value).replace("\n", "\n      ")
                        if id(value) in seen:
                            texts[id(value)] = known
                        seen.add(id(value))
                    text = known
                else:
                    # an empty container, a tuple, another type (``default``), a float JSON has no number for (raises)
                    text = encoder.encode(value).replace("\n", "\n      ")
                parts.append(("\n      " if len(parts) == 1 else ",\n      ") + encode_basestring(key) + ": " + text)
            else:
                parts.append("\n    }")
                yield "".join(parts)
                continue
        # not a dict of str keys: as json writes it
        yield parts[0][:-1] + encoder.encode(record).replace("\n", "\n    ")
    yield "\n  ]"


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a JSON report; ``ValueError`` if the file is not one."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except ValueError as exc:
            raise ValueError(f"{os.fspath(path)} is not a JSON file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'{os.fspath(path)} is not a pytest-llmeval report (no "format": "{FORMAT}")')
    if data.get("version") != 1:
        raise ValueError(f"{os.fspath(path)}: unsupported report version {data.get('version')!r}")
    return data


def schema() -> dict[str, Any]:
    """The JSON Schema of the report format (``report.schema.json``, shipped in the package)."""
    from importlib import resources

    loaded: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    )
    return loaded


def validate(report: Any) -> str | None:
    """The first place where ``report`` breaks the report schema, as ``results[3].metrics: ...``; ``None`` if it
    fits."""
    import jsonschema

    errors = jsonschema.Draft202012Validator(schema()).iter_errors(report)
    # The first in document order: results[2] before results[10], the top level before any record.
    first = min(
        errors, key=lambda e: [str(p).zfill(12) if isinstance(p, int) else p for p in e.absolute_path], default=None
    )
    if first is None:
        return None
    where = (
        "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path).lstrip(".") or "(top level)"
    )
    return f"{where}: {first.message[:200]}"


def results(report: dict[str, Any]) -> list[Result]:
    """The `Result` objects stored in a report, in run order."""
    return [Result.from_dict(record) for record in report.get("results", [])]


def load_baseline(path: str) -> dict[str, Any]:
    """The baseline report; ``ValueError`` naming the file when it cannot be used."""
    try:
        report = load(path)
    except OSError as exc:
        raise ValueError(f"cannot read the baseline {path!r}: {exc.strerror or exc}") from None
    problem = validate(report)
    if problem is not None:
        raise ValueError(f"the baseline {path!r} is not a usable report: {problem}")
    for index, record in enumerate(report["results"]):
        if record["primary"] not in record["metrics"]:
            raise ValueError(
                f"the baseline {path!r} is not a usable report: results[{index}]: primary metric "
                f"{record['primary']!r} is not among its metrics"
            )
    return report
