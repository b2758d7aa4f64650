"""The leaderboard and perturbation flips as JUnit ``<testsuite>`` properties (allowed by every junit_family).

pytest's JUnit writer is found among the registered plugins by what it offers
(``add_global_property``, the method behind the public ``record_testsuite_property``
fixture); no pytest internals are imported and pytest's file is never rewritten.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..text.basics import replace_surrogates
from .rows import ReportView

__all__ = ["junit_writer", "add_suite_properties"]


#: Flips listed at most as suite properties; every report has them all.
MAX_FLIP_PROPERTIES = 200


def junit_writer(config: pytest.Config) -> Any:
    """pytest's JUnit XML writer of this run (``--junitxml``), or ``None``."""
    for plugin in config.pluginmanager.get_plugins():
        if callable(getattr(plugin, "add_global_property", None)) and hasattr(plugin, "logfile"):
            return plugin
    return None


def add_suite_properties(config: pytest.Config, v: ReportView) -> None:
    """``llmeval.checks``, ``llmeval.passed``, ``llmeval.unverified``, ``llmeval.<model>.<check>.<metric>.mean`` ...,
    ``llmeval.flip.N`` and, against a baseline, ``llmeval.verdict`` and ``llmeval.verdict_line`` (from the report
    model)."""
    xml = junit_writer(config)
    if xml is None:
        return

    def add(name: str, value: Any) -> None:
        # pytest writes the file as UTF-8: a model name with a lone surrogate would abort it.
        xml.add_global_property(
            replace_surrogates(name), replace_surrogates(value) if isinstance(value, str) else value
        )

    if v.gate_verdict != "none":
        add("llmeval.gate", v.gate_verdict)
        add("llmeval.gate_line", v.gate)
    add("llmeval.checks", v.headline.checks)
    add("llmeval.passed", v.headline.passed)
    if v.headline.unverified:
        add("llmeval.unverified", v.headline.unverified)
    if v.headline.escalated:
        add("llmeval.escalated", v.headline.escalated)
    if v.best_model:
        add("llmeval.best_model", v.best_model.name)
    if v.baseline is not None:
        add("llmeval.verdict", v.baseline.verdict)
        add("llmeval.verdict_line", v.baseline.verdict_line)
    for board in v.leaderboard:
        for row in board.rows:
            # A test without a model is no model: its rows are llmeval.<check>.<metric>.*
            model = "" if row.model_name is None else f"{row.model_name}."
            prefix = f"llmeval.{model}{board.check}.{board.metric}"
            if row.mean_value is not None:
                add(f"{prefix}.mean", round(row.mean_value, 6))
            add(f"{prefix}.pass_rate", round(row.pass_rate_value, 6))
            add(f"{prefix}.count", row.count)
            if row.ci_low is not None and row.ci_high is not None:
                add(f"{prefix}.ci", f"{row.ci_low:.6f}..{row.ci_high:.6f}")
            if row.pass_ci_low is not None and row.pass_ci_high is not None:
                add(f"{prefix}.pass_rate_ci", f"{row.pass_ci_low:.6f}..{row.pass_ci_high:.6f}")
    if v.judge_spend:  # what the judge cost (new calls; replayed verdicts are free)
        add("llmeval.judge_calls", sum(row.calls for row in v.judge_spend))
        add("llmeval.judge_cost", round(sum(float(row.cost) for row in v.judge_spend), 6))
    if v.judge_limit:
        add("llmeval.judge_spend_limit", v.judge_limit)
    if v.perturbation is not None:
        flips = v.perturbation.flips
        add("llmeval.perturbed_checks", v.perturbation.checks)
        add("llmeval.flips", flips.total)
        for index, flip in enumerate(flips.rows[:MAX_FLIP_PROPERTIES], 1):
            add(f"llmeval.flip.{index}", f"{flip.test or flip.case_id}: {flip.describe()}")
