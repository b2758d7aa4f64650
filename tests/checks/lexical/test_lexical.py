"""ROUGE and BLEU parity with their reference libraries; exact match and edit distance."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize import NLTKWordTokenizer, PunktSentenceTokenizer
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
from rouge_score import rouge_scorer

from pytest_llmeval import Case, evaluate
from pytest_llmeval.checks.lexical.bleu import Bleu
from pytest_llmeval.checks.lexical.edit_distance import EditDistance, levenshtein
from pytest_llmeval.checks.lexical.exact_match import ExactMatch
from pytest_llmeval.checks.lexical.rouge import Rouge

PAIRS = [
    ("the cat sat on the mat", ["the cat sat on a mat"]),
    ("Brazil revenue was 15,969 million in 2023.", ["In 2023, Brazil revenue was 15,969 million US dollars."]),
    (
        "Refunds are available within 30 days.",
        ["You can get a refund within 30 days of purchase.", "Refunds: 30 days."],
    ),
    ("completely different words here", ["nothing in common at all"]),
    ("running runners ran", ["the runner runs"]),
    ("", ["non empty reference"]),
    ("One sentence. Two sentences!\nThree on a line.", ["One sentence.\nThree on a line. Two."]),
]


@pytest.mark.parametrize("use_stemmer", [False, True])
@pytest.mark.parametrize("prediction, references", PAIRS)
def test_rouge_matches_rouge_score(prediction, references, use_stemmer):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=use_stemmer)
    expected = scorer.score_multi(references, prediction)
    [result] = Rouge(use_stemmer=use_stemmer, split_summaries=False).evaluate(
        [Case(actual=prediction, expected=references)]
    )
    for kind in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
        assert round(result.metrics[kind], 6) == round(expected[kind].fmeasure, 6), kind


def test_rouge_lsum_splits_sentences_first():
    prediction = "The cat sat. The dog ran."
    reference = "The dog ran. The cat sat."
    scorer = rouge_scorer.RougeScorer(["rougeLsum"])
    split = scorer.score("The dog ran.\nThe cat sat.", "The cat sat.\nThe dog ran.")["rougeLsum"].fmeasure
    [result] = Rouge().evaluate([Case(actual=prediction, expected=reference)])
    assert result.metrics["rougeLsum"] == pytest.approx(split)
    assert result.metrics["rougeLsum"] > result.metrics["rougeL"]


def test_rouge_reference_values_pinned():
    # the rouge-score README example, pinned to 5 decimals
    [result] = Rouge().evaluate(
        [Case(actual="The quick brown dog jumps on the log.", expected="The quick brown fox jumps over the lazy dog")]
    )
    assert round(result.metrics["rouge1"], 5) == 0.70588
    assert round(result.metrics["rougeL"], 5) == 0.58824
    assert result.details["rougeL"]["reference"] == 0


def _word_tokenize(text):
    """nltk's word_tokenize (sentences, then the Treebank-style tokenizer on each); Punkt untrained,
    as its English model is a download: the same sentences for these abbreviation-free texts."""
    words = NLTKWordTokenizer()
    return [token for sentence in PunktSentenceTokenizer().tokenize(text) for token in words.tokenize(sentence)]


def _nltk_bleu(prediction, references, weights, smoothing="method1"):
    tok = _word_tokenize
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sentence_bleu(
            [tok(r) for r in references],
            tok(prediction),
            weights=weights,
            smoothing_function=getattr(SmoothingFunction(), smoothing),
        )


@pytest.mark.parametrize("smoothing", ["method0", "method1", "method4", "method7"])
@pytest.mark.parametrize("prediction, references", [p for p in PAIRS if p[0]])
def test_bleu_matches_nltk(prediction, references, smoothing):
    [result] = Bleu(smoothing=smoothing, weights=(0.5, 0.3, 0.2)).evaluate(
        [Case(actual=prediction, expected=references)]
    )
    for n in range(1, 5):
        assert round(result.metrics[f"bleu{n}"], 6) == round(
            _nltk_bleu(prediction, references, (1 / n,) * n, smoothing), 6
        )
    assert round(result.metrics["bleu"], 6) == round(_nltk_bleu(prediction, references, (0.5, 0.3, 0.2), smoothing), 6)


def test_bleu_identity_and_empty():
    [same] = Bleu().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on the mat")])
    assert same.metrics["bleu4"] == 1.0 and same.metrics["bleu"] is None
    [empty] = Bleu().evaluate([Case(actual="", expected="the cat")])
    assert empty.metrics["bleu1"] == 0.0 and not empty.passed


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"smoothing": "method9"}, ValueError, "parameter 'smoothing' must be one of 'method0'"),
        ({"weights": (0.5, 0.6)}, ValueError, "parameter 'weights' must be non-negative and sum to 1"),
        ({"weights": "abc"}, TypeError, "parameter 'weights' must be a sequence of numbers"),
        ({"lowercase": "yes"}, TypeError, "parameter 'lowercase' must be True or False"),
        (
            {"ngrams": 3},
            TypeError,
            "bleu: unknown parameter(s) ngrams; valid parameters: lowercase, smoothing, weights",
        ),
    ],
)
def test_bleu_bad_parameters(params, error, message):
    with pytest.raises(error) as info:
        Bleu(**params)
    assert message in str(info.value)


def test_exact_match_normalisation_and_several_answers():
    assert evaluate("exact_match", actual="  Paris ", expected="Paris").passed
    assert not evaluate("exact_match", actual="paris", expected="Paris").passed
    assert evaluate("exact_match", actual="paris", expected="Paris", params={"ignore_case": True}).passed
    result = evaluate(
        "exact_match",
        actual="Paris!",
        expected=["Lyon", "paris"],
        params={"ignore_case": True, "ignore_punctuation": True},
    )
    assert result.passed and result.details["matched"] == 1
    miss = ExactMatch().evaluate([Case(actual="Rome", expected=["Paris", "Lyon"])])[0]
    assert miss.reason == "'Rome' equals none of 'Paris' | 'Lyon'"


def _dp(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcé ", max_size=80), st.text(alphabet="abcé ", max_size=80))
def test_levenshtein_equals_dynamic_programming(a, b):
    assert levenshtein(a, b) == _dp(a, b)


def test_edit_distance_metrics():
    [result] = EditDistance().evaluate([Case(actual="colour", expected=["color", "collar"])])
    assert result.metrics["edits"] == 1.0
    assert result.metrics["similarity"] == pytest.approx(1 - 1 / 6)
    assert result.metrics["distance"] == pytest.approx(1 / 6)
    assert result.passed and result.details["reference"] == 0
    [empty] = EditDistance().evaluate([Case(actual="", expected="")])
    assert empty.metrics["similarity"] == 1.0


def test_edit_distance_lower_is_better_threshold():
    result = evaluate("edit_distance", actual="abcd", expected="abce", threshold=0.5, thresholds={"distance": 0.1})
    assert result.failed_metrics() == ["distance"] and not result.passed


def test_edit_distance_refuses_huge_pairs():
    with pytest.raises(ValueError, match="too long to compare by edit distance; use rouge or bleu"):
        EditDistance().evaluate([Case(actual="a" * 60_000, expected="b" * 40_000)])
