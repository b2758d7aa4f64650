"""The leaderboard and perturbation flips as JUnit ``<testsuite>`` properties (allowed by every junit_family).

pytest's JUnit writer is found among the registered plugins by what it offers
(``add_global_property``, the method behind the public ``record_testsuite_property``
fixture); no pytest internals are imported and pytest's file is never rewritten.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..text.basics import replace_surrogates

__all__ = ["junit_writer", "add_suite_properties"]


#: Flips listed at most as suite properties; every report has them all.
MAX_FLIP_PROPERTIES = 200


def junit_writer(config: pytest.Config) -> Any:
    """pytest's JUnit XML writer of this run (``--junitxml``), or ``None``."""
    for plugin in config.pluginmanager.get_plugins():
        if callable(getattr(plugin, "add_global_property", None)) and hasattr(plugin, "logfile"):
            return plugin
    return None


def add_suite_properties(config: pytest.Config, summary: Any, comparison: Any = None, gate: Any = None) -> None:
    """``llmeval.checks``, ``llmeval.passed``, ``llmeval.unverified``, ``llmeval.<model>.<check>.<metric>.mean`` ...,
    ``llmeval.flip.N`` and, against a baseline, ``llmeval.verdict`` and ``llmeval.verdict_line``."""
    from ..core.result import NO_MODEL

    xml = junit_writer(config)
    if xml is None:
        return

    def add(name: str, value: Any) -> None:
        # pytest writes the file as UTF-8: a model name with a lone surrogate would abort it.
        xml.add_global_property(
            replace_surrogates(name), replace_surrogates(value) if isinstance(value, str) else value
        )

    if gate is not None and gate.verdict != "none":
        add("llmeval.gate", gate.verdict)
        add("llmeval.gate_line", gate.line())
    add("llmeval.checks", summary.checks)
    add("llmeval.passed", summary.passed)
    if summary.unverified_count:
        add("llmeval.unverified", summary.unverified_count)
    if summary.escalated:
        add("llmeval.escalated", sum(summary.escalated.values()))
    if summary.best_model:
        add("llmeval.best_model", summary.best_model)
    if comparison is not None:
        add("llmeval.verdict", comparison.verdict)
        add("llmeval.verdict_line", comparison.verdict_line())
    for row in summary.rows:
        # A test without a model is no model: its rows are llmeval.<check>.<metric>.*
        prefix = (
            f"llmeval.{row.check}.{row.metric}"
            if row.model == NO_MODEL
            else f"llmeval.{row.model}.{row.check}.{row.metric}"
        )
        if row.mean is not None:
            add(f"{prefix}.mean", round(row.mean, 6))
        add(f"{prefix}.pass_rate", round(row.pass_rate, 6))
        add(f"{prefix}.count", row.count)
        if row.ci_low is not None and row.ci_high is not None:
            add(f"{prefix}.ci", f"{row.ci_low:.6f}..{row.ci_high:.6f}")
        add(f"{prefix}.pass_rate_ci", f"{row.pass_ci_low:.6f}..{row.pass_ci_high:.6f}")
    if summary.perturbed_checks:
        add("llmeval.perturbed_checks", summary.perturbed_checks)
        add("llmeval.flips", len(summary.flips))
        for index, flip in enumerate(summary.flips[:MAX_FLIP_PROPERTIES], 1):
            add(f"llmeval.flip.{index}", f"{flip.nodeid or flip.case_id}: {flip.describe()}")
