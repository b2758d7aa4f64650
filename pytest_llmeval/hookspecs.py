"""Hooks other plugins and ``conftest.py`` files can implement (all keyword-only, subsets allowed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .registry import Registry

hookspec = pytest.hookspec


@hookspec
def pytest_llmeval_register_evaluators(registry: Registry) -> None:
    """Register extra evaluators by name before the session starts.

    Example ``conftest.py``::

        def pytest_llmeval_register_evaluators(registry):
            registry.register("my_check", "my_package.checks:MyCheck")
    """


@hookspec
def pytest_llmeval_update_report(config: pytest.Config, report: dict[str, Any]) -> None:
    """Change the JSON report in place before any report file is written (controller only).

    Example ``conftest.py``::

        def pytest_llmeval_update_report(config, report):
            report["run"]["commit"] = os.environ.get("GITHUB_SHA")
    """
