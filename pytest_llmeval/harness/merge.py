"""Merging CI shards: the JSON reports of several runs taken as if one run had made them (``--llmeval-merge``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest

__all__ = ["Shards", "merge_reports"]


@dataclass
class Shards:
    """What the shards' reports hold, for the session to take as its own."""

    outcomes: dict[str, str] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    judge_skips: int = 0
    worker_judges: list[dict[str, Any]] = field(default_factory=list)
    worker_models: dict[str, Any] = field(default_factory=dict)


def _report_files(paths: list[str]) -> list[str]:
    """The reports named: a JSON file as given, a folder as every ``report.json`` beneath it (the shards' downloaded
    artifacts), in name order."""
    files: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            files.append(path)
            continue
        found = sorted(
            os.path.join(folder, "report.json") for folder, _, names in os.walk(path) if "report.json" in names
        )
        if not found:
            raise pytest.UsageError(f"--llmeval-merge: the folder {path} holds no report.json")
        files += found
    return files


def merge_reports(paths: list[str]) -> Shards:
    """The records, outcomes and statistics of the shards' reports at ``paths``, as if one run had made them."""
    from ..report.jsonfile import load, validate

    session = Shards()
    seen: dict[str, str] = {}
    for path in _report_files(paths):
        try:
            report = load(path)
        except (OSError, ValueError) as exc:
            raise pytest.UsageError(f"--llmeval-merge: {exc}") from None
        problem = validate(report)
        if problem is not None:
            raise pytest.UsageError(f"--llmeval-merge: {path} is not a usable report: {problem}")
        for nodeid in report.get("tests", {}):
            if nodeid in seen:
                raise pytest.UsageError(
                    f"--llmeval-merge: {nodeid} ran in both {seen[nodeid]} and {path}; "
                    "shards must split the tests, not repeat them"
                )
            seen[nodeid] = path
        session.outcomes.update(report.get("tests", {}))
        for record in report.get("results", []):  # the outcome is the run's (tests), set by the report
            session.records.append({k: v for k, v in record.items() if k != "outcome"})
        judge = report.get("judge") or {}
        session.judge_skips += int(judge.get("skipped_checks", 0) or 0)
        session.worker_judges.append(
            {
                **{
                    key: judge.get(key, 0)
                    for key in ("calls", "prompt_tokens", "completion_tokens", "cost", "parse_failures")
                },
                "parse_failures_by_evaluator": judge.get("parse_failures_by_evaluator", {}),
                "json_mode_downgrades": judge.get("json_mode_downgrades", []),
                "cache": {
                    "hits": judge.get("cache_hits", 0),
                    "misses": judge.get("cache_misses", 0),
                    "corrupt": judge.get("corrupt_cache_files", []),
                },
            }
        )
        models = report.get("models") or {}
        shard = os.path.basename(path)
        for worker, stats in {"controller": models.get("controller"), **(models.get("workers") or {})}.items():
            if stats:
                session.worker_models[f"{shard}:{worker}"] = stats
    return session
