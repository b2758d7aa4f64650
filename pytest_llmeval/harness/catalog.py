"""The catalog of checks, derived from each evaluator class's declared metadata.

One source feeds ``--llmeval-evaluators``, the docs' check tables (a test keeps them
current) and the contract harness: the registry's names, and on each class its
``description``, ``helper``, ``requires`` / ``uses``, ``metrics``, ``extra``,
``needs_judge`` and ``gpu``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator
    from .registry import Registry

__all__ = [
    "Entry",
    "entries",
    "catalog_lines",
    "readme_table",
    "EXAMPLE_FIELDS",
    "EXAMPLE_PARAMS",
    "EXAMPLE_NEEDS",
    "example_fields",
    "example_code",
    "helper_signature",
]

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
        out.append(
            Entry(
                name,
                cls.helper,
                cls.description,
                tuple(cls.requires),
                tuple(cls.uses),
                primary.name,
                primary.threshold,
                primary.higher_is_better,
                kind,
                cls.extra,
                cls.gpu,
                source,
            )
        )
    return out


def catalog_lines(registry: Registry) -> list[str]:
    """The catalog as terminal lines (``pytest --llmeval-evaluators``)."""
    lines = []
    for entry in entries(registry):
        helper = f"{entry.helper}(...)" if entry.helper else f"assert_check({entry.name!r}, ...)"
        threshold = (
            "" if entry.threshold is None else f" {'>=' if entry.higher_is_better else '<='} {entry.threshold:g}"
        )
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
        helper = f"`{entry.helper}`" if entry.helper else f'`assert_check("{entry.name}")`'
        passes = "" if entry.threshold is None else f"{'≥' if entry.higher_is_better else '≤'} {entry.threshold:g}"
        calibrated = (getattr(registry.resolve(entry.name).primary_metric(), "calibrated", None) or {}).get(
            DEFAULT_MODEL_FAMILY
        )
        if calibrated is not None and passes and calibrated != entry.threshold:
            passes += f" ({calibrated:g} with the default all-MiniLM-L6-v2)"
        needs = ", ".join(entry.requires) + (f" (+ {', '.join(entry.uses)})" if entry.uses else "")
        kind = entry.kind + (" (a GPU helps)" if entry.gpu else "")
        lines.append(f"| `{entry.name}` | {helper} | `{entry.primary}` | {passes} | {needs} | {kind} | {entry.extra} |")
    return lines


#: The case every check's documented example scores (a RAG answer with its question, context, reference and a
#: condition); a check reads the fields it requires or uses.
EXAMPLE_FIELDS: dict[str, Any] = {
    "actual": "Brazil revenue was 15,969 million in 2023. Contact the team for details.",
    "expected": ["Brazil revenue was 15,969 million in 2023."],
    "question": "What was the revenue in Brazil?",
    "context": ["Annual report: Brazil revenue was 15,969 million."],
    "conditions": '"15,969" AND NOT "Real"',
}

#: What a check's example adds to `EXAMPLE_FIELDS` where those cannot show it (a list of steps, tool calls, timings).
EXAMPLE_EXTRA: dict[str, dict[str, Any]] = {
    "step_alignment": {
        "context": ["To export:\n1. Open the app.\n2. Tap Export.\n3. Pick a folder."],
        "actual": "Open the app, tap Export, then pick a folder.",
    },
    "agent_sanity": {"metadata": {"artifacts": ["report.md"]}},
    "tool_correctness": {"metadata": {"tools_called": ["search"], "expected_tools": ["search"]}},
    "generation": {"metadata": {"latency_ms": 120.0, "prompt_tokens": 10, "completion_tokens": 5}},
}


#: The parameters a check's example needs (a judge check graded on a criterion, a DAG of questions).
EXAMPLE_PARAMS: dict[str, dict[str, Any]] = {
    "dag": {"dag": {"judge": "Is the answer polite?", "children": {"yes": 10, "no": 0}}},
    "g_eval": {"criteria": "Coherence - the answer is well structured and easy to follow."},
    "prometheus": {
        "criteria": "Is the answer accurate and helpful?",
        "rubric": [
            "Wrong and unhelpful.",
            "Mostly wrong.",
            "Partly right.",
            "Right with small gaps.",
            "Right, complete and helpful.",
        ],
    },
}

#: Examples that need weights no package ships (downloaded from the hub, or a local folder passed as the parameter).
EXAMPLE_NEEDS: dict[str, str] = {
    "hallucination": "HHEM's weights from the hub (or model= a local folder)",
    "bleurt": "a BLEURT checkpoint (model=)",
    "moverscore": "a BERT model from the hub (or model= a local folder)",
    "fairness_bias": "its classifier from the hub (or model= a local folder)",
    "prompt_injection": "its classifier from the hub (or model= a local folder)",
    "summarization": "an NLI model from the hub (or nli_model= a local folder)",
}


def example_fields(cls: type[Evaluator]) -> dict[str, Any]:
    """The case fields of ``cls``'s documented example: what it requires or uses of `EXAMPLE_FIELDS`, and its extra."""
    wanted = set(cls.requires) | set(cls.uses) | {"actual"}
    fields = {key: value for key, value in EXAMPLE_FIELDS.items() if key in wanted}
    fields.update(EXAMPLE_EXTRA.get(cls.name, {}))
    return fields


def example_code(cls: type[Evaluator]) -> str:
    """A script that runs ``cls`` once on its example case and prints the verdict (the docs' check pages show it, and
    the tests run it)."""
    given = {**example_fields(cls), **({"params": EXAMPLE_PARAMS[cls.name]} if cls.name in EXAMPLE_PARAMS else {})}
    arguments = ",\n".join(f"    {key}={value!r}" for key, value in given.items())
    return (
        f"from pytest_llmeval import evaluate\n\nresult = evaluate(\n    {cls.name!r},\n{arguments},\n)\n"
        "print(result.verdict, result.reason)\n"
    )


def helper_signature(cls: type[Evaluator]) -> str | None:
    """The helper's signature as Python shows it (``assert_grounded(actual: str, context: Any, *, ...)``); ``None``
    without a helper."""
    if not cls.helper:
        return None
    import importlib
    import inspect

    helper = getattr(importlib.import_module(cls.__module__), cls.helper, None)
    if helper is None:
        return None
    signature = inspect.signature(helper)
    parts, starred = [], False
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not starred:
            parts.append("*")
            starred = True
        prefix = (
            "*"
            if parameter.kind is parameter.VAR_POSITIONAL
            else "**"
            if parameter.kind is parameter.VAR_KEYWORD
            else ""
        )
        starred = starred or parameter.kind is parameter.VAR_POSITIONAL
        text = prefix + parameter.name
        if parameter.annotation is not parameter.empty:
            text += f": {parameter.annotation}"  # as written (postponed annotations are their source text)
        if parameter.default is not parameter.empty:
            text += f" = {parameter.default!r}"
        parts.append(text)
    returns = "" if signature.return_annotation is signature.empty else f" -> {signature.return_annotation}"
    return f"{cls.helper}({', '.join(parts)}){returns}"
