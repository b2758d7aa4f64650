"""The per-seed coverage audit (tests.seed_coverage) names only real things and counts honestly."""

from __future__ import annotations

import pathlib
import re

import pytest

import pytest_llmeval
from pytest_llmeval.harness.registry import Registry
from tools.docs_pages import current
from tests.seed_coverage import (
    CATALOG_NAMES,
    IMPLEMENTED,
    SEED_COVERAGE,
    SEEDS,
    STATUSES,
    Coverage,
    coverage_counts,
    coverage_table,
    missing,
)

README = pathlib.Path(__file__).resolve().parents[1] / "docs" / "coverage.md"
HELPER = re.compile(r"\b((?:assert|record|measure)_[a-z0-9_]+)")

#: What the audit found unimplemented; a change here is a change of the audit, made on purpose.
EXPECTED_MISSING: set[tuple[str, str]] = set()


def rows(seed: str) -> list[Coverage]:
    return [r for r in SEED_COVERAGE if r.seed == seed]


def test_statuses_are_known_and_rows_well_formed() -> None:
    for row in SEED_COVERAGE:
        assert row.seed in SEEDS, row
        assert row.status in STATUSES, row
        assert row.how.strip(), f"{row.item}: say how (or why not)"
        assert "|" not in row.how and "|" not in row.item, row
        if row.status == "check":
            assert row.evaluators, f"{row.item}: a check names its evaluators"
        if row.status in ("out of scope", "missing"):
            assert not row.evaluators, f"{row.item}: nothing implements it, so it names no evaluator"


def test_every_evaluator_resolves() -> None:
    registry = Registry(entry_points=False)
    names = set(registry.names())
    for row in SEED_COVERAGE:
        for name in row.evaluators:
            assert name in names, f"{row.seed} {row.item}: {name!r} is not registered"
            registry.resolve(name)


def test_every_helper_named_exists() -> None:
    exported = set(pytest_llmeval.__all__)
    named = {(row.seed, row.item, helper) for row in SEED_COVERAGE for helper in HELPER.findall(row.how)}
    assert named, "the audit names helpers"
    unknown = sorted(n for n in named if n[2] not in exported)
    assert not unknown, f"helpers not in pytest_llmeval.__all__: {unknown}"


def test_no_duplicate_items() -> None:
    keys = [(r.seed, r.item) for r in SEED_COVERAGE]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


def test_seed_000_every_catalog_evaluator_is_a_check() -> None:
    evaluators = [r for r in rows("000") if r.item.endswith(" Evaluator")]
    assert len(evaluators) == 44
    assert all(r.status == "check" for r in evaluators), [r.item for r in evaluators if r.status != "check"]


def test_seed_002_judge_checks_and_format() -> None:
    checks = [r for r in rows("002") if not r.item.startswith("dataset:")]
    # Accuracy, Facts Compare, SQL Eval, RAG Context Recall, RAG Context Precision, RAG Hallucination
    assert len(checks) == 6
    assert all(r.status in IMPLEMENTED for r in rows("002"))


def test_seed_003_all_22_rows() -> None:
    total, done, out = coverage_counts()["003"]
    assert (total, done, out) == (22, 22, 0)


def test_seed_001_in_scope_items_implemented() -> None:
    for row in rows("001"):
        assert row.status in IMPLEMENTED or (
            row.status == "out of scope" and row.item.startswith(("detection:", "segmentation:"))
        ), row


def test_seed_004_out_of_scope_are_benchmarks_and_platforms() -> None:
    out = [r.item for r in rows("004") if r.status == "out of scope"]
    assert out == [
        "benchmark: GLUE",
        "benchmark: SuperGLUE",
        "benchmark: HellaSwag",
        "benchmark: TruthfulQA",
        "benchmark: MMLU",
        "evaluation platforms (Azure AI Foundry, OpenAI Evals, W&B, LangSmith, TruLens, Vertex AI, Bedrock, Parea, "
        "Opik)",
    ]


def test_missing_items_are_the_known_ones() -> None:
    assert {(r.seed, r.item) for r in missing()} == EXPECTED_MISSING


def test_counts_add_up() -> None:
    counts = coverage_counts()
    assert list(counts) == list(SEEDS)
    assert sum(c[0] for c in counts.values()) == len(SEED_COVERAGE)
    for seed, (total, done, out) in counts.items():
        assert total - done - out == sum(r.status == "missing" for r in rows(seed)), seed


def test_table_shape() -> None:
    lines = coverage_table()
    counts = coverage_counts()
    assert lines[0].startswith("| catalog |")
    for seed, (total, done, out) in counts.items():
        assert f"| {CATALOG_NAMES[seed]} | {SEEDS[seed]} | {total} | {done} | {out} | {total - done - out} |" in lines
    assert sum(line.startswith("| ") and " | " in line for line in lines) == 1 + len(SEEDS) + len(SEEDS) + len(
        SEED_COVERAGE
    )


def test_the_docs_page_is_current() -> None:
    text = current(README, "coverage")
    assert text is not None, "docs/coverage.md has no <!-- coverage:start --> ... <!-- coverage:end --> block"
    assert text.split("\n") == coverage_table(), "docs/coverage.md is stale; run: python tools/docs_pages.py --write"


@pytest.mark.parametrize("seed", list(SEEDS))
def test_each_seed_has_items(seed: str) -> None:
    assert rows(seed)
