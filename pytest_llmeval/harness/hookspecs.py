"""Hooks other plugins and ``conftest.py`` files can implement (all keyword-only, subsets allowed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .registry import Registry
    from .options import Settings


hookspec = pytest.hookspec


@hookspec(historic=True)
def pytest_llmeval_register_evaluators(registry: Registry) -> None:
    """Register extra evaluators by name.

    Historic: a plugin or ``conftest.py`` registered later (a ``conftest.py`` in a
    sub-folder, found during collection) is called too, before its tests run.

    Example ``conftest.py``::

        def pytest_llmeval_register_evaluators(registry):
            registry.register("my_check", "my_package.checks:MyCheck")
    """


@hookspec(firstresult=True)
def pytest_llmeval_generate_report(
    config: pytest.Config,
    results: list[dict[str, Any]],
    run: dict[str, Any],
    summary: dict[str, Any],
    baseline: dict[str, Any] | None,
    tests: dict[str, str],
    models: dict[str, Any],
    judge: dict[str, Any],
    gate: dict[str, Any],
) -> dict[str, Any] | None:
    """The JSON report, from the run's records (``results``) and what is known about the run (controller only).

    The first non-``None`` result wins; the plugin's own implementation is
    ``pytest_llmeval.report.jsonfile.assemble``. Every other report (Markdown, HTML, JUnit properties, the
    pull-request comment) is written from this one, so a plugin that returns its own report must keep its shape
    (``report.schema.json``). To add a field, ``pytest_llmeval_update_report`` is simpler.
    """


@hookspec
def pytest_llmeval_update_report(config: pytest.Config, report: dict[str, Any]) -> None:
    """Change the JSON report in place before any report file is written (controller only).

    Called once in every run with results, reports asked for or not: the report model that the terminal
    summary, the JUnit properties and every report file render is read from the report after this hook.

    The records in ``report["results"]`` share their repeated values (signature, thresholds,
    metrics, details, tags) to stay small: to change one record's nested value, give that
    record a new dict (``record["details"] = {**record["details"], "note": ...}``) rather than
    changing the shared one, which would change every record that shares it.

    Example ``conftest.py``::

        def pytest_llmeval_update_report(config, report):
            report["run"]["commit"] = os.environ.get("GITHUB_SHA")
    """


@hookspec(firstresult=True)
def pytest_llmeval_make_judge(config: pytest.Config, settings: Settings) -> Any:
    """The judge client for this run (an object with ``complete(messages, schema=...)``), or ``None`` for no judge.

    The first non-``None`` result wins; the plugin's own implementation builds an
    OpenAI-protocol client from the ``llmeval_judge_*`` settings. Called on first use.
    """


@hookspec
def pytest_llmeval_judge_prompts(config: pytest.Config, check: str, prompts: dict[str, str]) -> dict[str, str] | None:
    """Replace some of a judge check's prompts for this run: return ``{name: template}`` (or ``None``).

    ``prompts`` are the check's prompts by name (its module's ``PROMPTS``); a replacement may use only the
    ``{fields}`` of the template it replaces. Called once per judge check instance; later plugins win over
    earlier ones, and a call's own ``prompts=`` wins over the hook. The effective prompts' version is in the
    check's signature.

    Example ``conftest.py``::

        def pytest_llmeval_judge_prompts(config, check, prompts):
            if check == "faithfulness":
                return {"claims": prompts["claims"].replace("short", "atomic")}
    """
