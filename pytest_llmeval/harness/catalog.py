"""The catalog of checks, derived from each evaluator class's declared metadata.

One source feeds ``--llmeval-evaluators``, the docs' check tables (a test keeps them
current) and the contract harness: the registry's names, and on each class its
``description``, ``helper``, ``requires`` / ``uses``, ``metrics``, ``extra``,
``needs_judge`` and ``gpu``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import Registry

__all__ = ["Entry", "entries", "catalog_lines", "readme_table"]

#: The embedding model family the default thresholds are calibrated for (the embedded all-MiniLM-L6-v2).
DEFAULT_MODEL_FAMILY = "all-minilm-l6-v2"


@dataclass(frozen=True)
class Entry:
    """One registered check, as its class declares it."""

    name: str
    helper: str
    description: str
    requires: tuple[str, ...]
    uses: tuple[str, ...]
    primary: str
    threshold: float | None
    higher_is_better: bool
    kind: str  # "judge", "model" or "rules"
    extra: str
    gpu: bool
    source: str  # "built-in", or where a plugin registered it


def entries(registry: Registry) -> list[Entry]:
    """Every check the registry knows, built-in and registered, in name order."""
    from .registry import BUILTIN_EVALUATORS

    out = []
    for name in registry.names():
        try:
            cls = registry.resolve(name)
        except (ImportError, TypeError) as exc:
            out.append(Entry(name, "", f"(cannot be loaded: {exc})", (), (), "", None, True, "?", "", False, "?"))
            continue
        primary = cls.primary_metric()
        kind = "judge" if cls.needs_judge else ("model" if cls.uses_models else "rules")
        source = "built-in" if name in BUILTIN_EVALUATORS else f"{cls.__module__}:{cls.__qualname__}"
        out.append(Entry(name, cls.helper, cls.description, tuple(cls.requires), tuple(cls.uses), primary.name,
                         primary.threshold, primary.higher_is_better, kind, cls.extra, cls.gpu, source))
    return out


def catalog_lines(registry: Registry) -> list[str]:
    """The catalog as terminal lines (``pytest --llmeval-evaluators``)."""
    lines = []
    for entry in entries(registry):
        helper = f"{entry.helper}(...)" if entry.helper else f"assert_check({entry.name!r}, ...)"
        threshold = "" if entry.threshold is None else f" {'>=' if entry.higher_is_better else '<='} {entry.threshold:g}"
        needs = ", ".join(entry.requires) + (f" (+ {', '.join(entry.uses)})" if entry.uses else "")
        tags = [entry.kind] + ([f"extra {entry.extra}"] if entry.extra else []) + (["gpu"] if entry.gpu else [])
        if entry.source != "built-in":
            tags.append(f"from {entry.source}")
        lines.append(f"{entry.name}: {helper}; {entry.primary}{threshold}; needs {needs}; {', '.join(tags)}")
        lines.append(f"    {entry.description}")
    return lines


def readme_table(registry: Registry) -> list[str]:
    """The docs' table of built-in checks (Markdown lines; docs/checks/index.md)."""
    lines = ["| check | helper | primary metric | passes at | needs | kind | extra |", "|---|---|---|---|---|---|---|"]
    for entry in entries(registry):
        if entry.source != "built-in":
            continue
        helper = f"`{entry.helper}`" if entry.helper else f"`assert_check(\"{entry.name}\")`"
        passes = "" if entry.threshold is None else f"{'≥' if entry.higher_is_better else '≤'} {entry.threshold:g}"
        calibrated = (getattr(registry.resolve(entry.name).primary_metric(), "calibrated", None) or {}).get(DEFAULT_MODEL_FAMILY)
        if calibrated is not None and passes and calibrated != entry.threshold:
            passes += f" ({calibrated:g} with the default all-MiniLM-L6-v2)"
        needs = ", ".join(entry.requires) + (f" (+ {', '.join(entry.uses)})" if entry.uses else "")
        kind = entry.kind + (" (a GPU helps)" if entry.gpu else "")
        lines.append(f"| `{entry.name}` | {helper} | `{entry.primary}` | {passes} | {needs} | {kind} | {entry.extra} |")
    return lines
