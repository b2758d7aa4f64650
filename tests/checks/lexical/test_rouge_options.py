"""ROUGE options: rouge_types (which types are computed) and f_measure="max_pr" (DataRobot's ROUGE-1 shape)."""

from __future__ import annotations

import pytest
from rouge_score import rouge_scorer

from pytest_llmeval import Case, assert_rouge
from pytest_llmeval.checks.lexical.rouge import ROUGE_TYPES, Rouge

from tests.checks.lexical.test_lexical import PAIRS


@pytest.mark.parametrize(
    "kinds", [["rouge1", "rougeL"], ["rougeL"], ["rougeLsum", "rouge2", "rougeL"], list(ROUGE_TYPES)]
)
@pytest.mark.parametrize("prediction, references", PAIRS)
def test_rouge_types_match_rouge_score_and_leave_the_rest_unscored(prediction, references, kinds):
    expected = rouge_scorer.RougeScorer(kinds).score_multi(references, prediction)
    [result] = Rouge(rouge_types=kinds, split_summaries=False).evaluate([Case(actual=prediction, expected=references)])
    for kind in ROUGE_TYPES:
        if kind in kinds:
            assert round(result.metrics[kind], 6) == round(expected[kind].fmeasure, 6), kind
        else:
            assert result.metrics[kind] is None and kind not in result.details and kind not in result.reason
    assert result.score == result.metrics["rougeL"]


@pytest.mark.parametrize("use_stemmer", [False, True])
@pytest.mark.parametrize("prediction, references", PAIRS)
def test_max_pr_is_the_larger_of_precision_and_recall(prediction, references, use_stemmer):
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=use_stemmer)
    per_target = [scorer.score(target, prediction) for target in references]
    [result] = Rouge(f_measure="max_pr", use_stemmer=use_stemmer, split_summaries=False).evaluate(
        [Case(actual=prediction, expected=references)]
    )
    for kind in ROUGE_TYPES:
        # with several references, the one where max(P, R) is highest
        want = max(max(s[kind].precision, s[kind].recall) for s in per_target)
        assert round(result.metrics[kind], 6) == round(want, 6), kind
        chosen = result.details[kind]
        assert max(chosen["precision"], chosen["recall"]) == pytest.approx(result.metrics[kind])
    assert "max of precision and recall" in result.reason


def test_seed_003_rouge1_shape():
    """DataRobot reports ROUGE-1 as max(precision, recall): a short answer inside the reference scores 1."""
    case = Case(actual="the cat sat", expected="the cat sat on the mat")
    [pr] = Rouge(rouge_types=["rouge1", "rougeL"], f_measure="max_pr").evaluate([case])
    [f1] = Rouge(rouge_types=["rouge1", "rougeL"]).evaluate([case])
    assert pr.metrics["rouge1"] == 1.0 and pr.details["rouge1"]["recall"] == pytest.approx(0.5)
    assert f1.metrics["rouge1"] == pytest.approx(2 / 3)
    assert pr.metrics["rouge2"] is None and pr.metrics["rougeLsum"] is None


def test_defaults_unchanged_and_out_of_the_signature():
    default = Rouge()
    assert Rouge.version == "1" and default.params["rouge_types"] == ROUGE_TYPES and default.params["f_measure"] == "f1"
    assert dict(default.signature().params) == {"use_stemmer": False, "split_summaries": True}
    assert Rouge(rouge_types=list(reversed(ROUGE_TYPES)), f_measure="f1").signature() == default.signature()
    subset = Rouge(rouge_types=["rougeL", "rouge1"])
    assert subset.signature() == Rouge(rouge_types=("rouge1", "rougeL")).signature() != default.signature()
    assert subset.signature().params["rouge_types"] == ("rouge1", "rougeL")
    assert Rouge(f_measure="max_pr").signature().params["f_measure"] == "max_pr"
    [a] = default.evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on a mat")])
    assert round(a.metrics["rouge1"], 4) == 0.8333 and a.primary == "rougeL"


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        (
            {"rouge_types": ["rouge1"]},
            ValueError,
            "rouge: parameter 'rouge_types' must include 'rougeL', the primary metric; got ['rouge1']",
        ),
        (
            {"rouge_types": ["rougeL", "rouge3"]},
            ValueError,
            "rouge: parameter 'rouge_types' must be one of 'rouge1', 'rouge2', 'rougeL', 'rougeLsum'; got 'rouge3'",
        ),
        ({"rouge_types": "rougeL"}, TypeError, "rouge: parameter 'rouge_types' must be a non-empty list of"),
        ({"rouge_types": []}, TypeError, "rouge: parameter 'rouge_types' must be a non-empty list of"),
        (
            {"f_measure": "recall"},
            ValueError,
            "rouge: parameter 'f_measure' must be one of 'f1', 'max_pr'; got 'recall'",
        ),
    ],
)
def test_bad_options_name_the_parameter(params, error, message):
    with pytest.raises(error) as info:
        Rouge(**params)
    assert message in str(info.value)


def test_a_threshold_on_a_type_left_out_is_refused():
    rouge = Rouge(rouge_types=["rouge1", "rougeL"])
    case = Case(actual="the cat sat", expected="the cat sat on the mat")
    with pytest.raises(ValueError, match="rouge: a threshold on 'rouge2', which parameter 'rouge_types' leaves out"):
        rouge.evaluate([case], thresholds={"rouge2": 0.5})
    [result] = rouge.evaluate([case], thresholds={"rougeL": None, "rouge1": 0.9, "rouge2": None})
    assert result.thresholds == {"rouge1": 0.9} and not result.passed


def test_helper_passes_the_options():
    result = assert_rouge(
        "the cat sat",
        "the cat sat on the mat",
        rouge_types=["rouge1", "rougeL"],
        f_measure="max_pr",
        thresholds={"rougeL": None, "rouge1": 0.9},
    )
    assert result.metrics["rouge1"] == 1.0 and result.metrics["rouge2"] is None
    assert result.signature.params["f_measure"] == "max_pr"
    with pytest.raises(ValueError, match="'rouge_types' must include 'rougeL'"):
        assert_rouge("the cat sat", "the cat sat on the mat", rouge_types=["rouge1"])
