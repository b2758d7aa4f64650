"""The ``[tool.llmeval]`` table of ``pyproject.toml``: every setting of the plugin, with sub-tables as coverage.py, ruff
and mypy have them.

::

    [tool.llmeval]
    unverified = "fail"
    fail_on = ["number", "name", "negation"]

    [tool.llmeval.judge]
    model = "gpt-4o-mini"
    retries = 1

    [tool.llmeval.thresholds]
    groundedness = { support = 0.75 }

A setting's place in the table is `place()` of its option (``judge.retries`` for ``judge_retries``; the command line
keeps only what changes from run to run). A value is what its option reads as text (``"on"``, ``0.05``), a TOML
boolean, number or array of them, or for a setting of ``NAME=VALUE`` items an inline table (``judge.for =
{ faithfulness = "gpt-4o" }``). An unknown key or table is an error that names it, the table and the keys allowed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = ["TABLE", "place", "read_table", "table_texts", "table_keys"]

#: Where the table lives in pyproject.toml.
TABLE = "tool.llmeval"

#: Settings that sit in a sub-table under another name; the others sit in the sub-table their key starts with
#: (``judge_retries``: ``judge.retries``), or at the top.
_PLACES = {
    "cache_dir": "cache.dir",
    "gate": "gate.mode",
    "baseline": "gate.baseline",
    "baseline_tolerance": "gate.baseline_tolerance",
    "fail_on_regression": "gate.fail_on_regression",
    "alpha": "gate.alpha",
    "flip_delta": "gate.flip_delta",
    "max_unverified": "gate.max_unverified",
    "max_errors": "gate.max_errors",
    "indeterminate": "gate.indeterminate",
    "min_pass_rate": "gate.min_pass_rate",
    "min_mean": "gate.min_mean",
    "calibrate": "calibration.labels",
    "calibrate_check": "calibration.check",
    "require_calibration": "calibration.required",
    "detector": "detector.model",
}
_SUBTABLES = ("judge", "embedding", "detector", "calibration", "record")


def place(key: str) -> str:
    """Where a setting sits in ``[tool.llmeval]``: ``judge.retries``, ``gate.alpha``, ``thresholds`` (a sub-table of
    checks), ``unverified`` (at the top).

    >>> place("judge_retries"), place("alpha"), place("unverified"), place("calibration_file")
    ('judge.retries', 'gate.alpha', 'unverified', 'calibration.file')
    """
    if key in _PLACES:
        return _PLACES[key]
    table, sep, rest = key.partition("_")
    return f"{table}.{rest}" if sep and table in _SUBTABLES else key


def table_keys(keys: Sequence[str]) -> dict[str, dict[str, str]]:
    """The table's layout: for each sub-table (``""``: the top), its keys and the setting each is."""
    layout: dict[str, dict[str, str]] = {}
    for key in keys:
        table, _, name = place(key).rpartition(".")
        layout.setdefault(table, {})[name] = key
    return layout


def read_table(config: pytest.Config) -> tuple[Mapping[str, Any], Path | None]:
    """``[tool.llmeval]`` of the run's ``pyproject.toml`` (the ini file when it is one, else the rootdir's), and that
    file; an empty table and ``None`` without one. A file TOML cannot read is a usage error naming it."""
    inipath = config.inipath
    path = inipath if inipath is not None and inipath.name == "pyproject.toml" else config.rootpath / "pyproject.toml"
    if not path.is_file():
        return {}, None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - pytest itself installs tomli before 3.11
        import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise pytest.UsageError(f"llmeval: cannot read {path}: {exc}") from None
    table: Any = data
    for part in TABLE.split("."):
        table = table.get(part, {}) if isinstance(table, Mapping) else {}
    if not isinstance(table, Mapping):
        raise pytest.UsageError(f"llmeval: [{TABLE}] in {path} must be a table; got {type(table).__name__}")
    return table, path


def _text(value: Any, where: str, *, items: bool) -> str | list[str]:
    """A TOML value as the text its option reads: ``true`` -> ``"true"``, ``[0.15, 0.6]`` -> ``"0.15,0.6"`` (a list of
    texts for a repeatable setting), ``{ a = 1 }`` -> ``"a=1"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return [str(value)] if items else str(value)
    if isinstance(value, Mapping):
        pairs = [f"{name}={_text(inner, f'{where}.{name}', items=False)}" for name, inner in value.items()]
        return pairs if items else ",".join(pairs)
    if isinstance(value, list):
        texts = [_text(inner, where, items=False) for inner in value]
        return [str(t) for t in texts] if items else ",".join(str(t) for t in texts)
    raise pytest.UsageError(
        f"llmeval: {where} must be a string, number, boolean, array or inline table; got {type(value).__name__}"
    )


def _thresholds(value: Any, where: str) -> list[str]:
    """``[tool.llmeval.thresholds]``: ``CHECK = { METRIC = NUMBER }`` (or ``"CHECK.METRIC" = NUMBER``) as
    ``CHECK.METRIC=NUMBER`` texts."""
    if not isinstance(value, Mapping):
        raise pytest.UsageError(f"llmeval: {where} must be a table of checks, e.g. groundedness = {{ support = 0.75 }}")
    out: list[str] = []
    for check, metrics in value.items():
        if isinstance(metrics, Mapping):
            out.extend(
                f"{check}.{metric}={_text(number, f'{where}.{check}.{metric}', items=False)}"
                for metric, number in metrics.items()
            )
        else:
            out.append(f"{check}={_text(metrics, f'{where}.{check}', items=False)}")
    return out


def table_texts(
    table: Mapping[str, Any], keys: Sequence[str], repeatable: Sequence[str], path: Path | None
) -> dict[str, tuple[str | list[str], str]]:
    """Each setting the table gives: its text (a list for ``repeatable`` settings) and where it was written
    (``judge.retries in [tool.llmeval] of /repo/pyproject.toml``). An unknown key or sub-table is a usage error that
    names it and what is allowed there."""
    layout = table_keys(keys)
    found: dict[str, tuple[str | list[str], str]] = {}
    source = f"[{TABLE}] of {path}" if path is not None else f"[{TABLE}]"

    def unknown(name: str, table: str, allowed: Sequence[str]) -> pytest.UsageError:
        within = f"[{TABLE}.{table}]" if table else f"[{TABLE}]"
        return pytest.UsageError(
            f"llmeval: unknown key {name!r} in {within} of {path}; allowed: {', '.join(sorted(allowed))}"
        )

    for name, value in table.items():
        if name in layout[""]:
            entries: list[tuple[str, str, Any]] = [("", name, value)]
        elif name in layout and name != "":
            if not isinstance(value, Mapping):
                raise pytest.UsageError(
                    f"llmeval: {name} in {source} must be a table ([{TABLE}.{name}]); "
                    f"its keys: {', '.join(sorted(layout[name]))}"
                )
            entries = [(name, inner, inner_value) for inner, inner_value in value.items()]
        else:
            raise unknown(name, "", [*layout[""], *(f"{t} (table)" for t in layout if t)])
        for table_name, inner, inner_value in entries:
            key = layout[table_name].get(inner)
            if key is None:
                raise unknown(inner, table_name, list(layout[table_name]))
            where = f"{place(key)} in {source}"
            if key == "thresholds":
                found[key] = (_thresholds(inner_value, where), where)
            else:
                found[key] = (_text(inner_value, where, items=key in repeatable), where)
    return found
