"""BLEU: every nltk smoothing method scores every input; tokens as nltk's word_tokenize makes them."""

from __future__ import annotations

import math
import warnings

import pytest
from nltk.tokenize import NLTKWordTokenizer, PunktSentenceTokenizer
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from pytest_llmeval import Case
from pytest_llmeval.checks.lexical.bleu import Bleu

PAIRS = [
    ("the cat sat on the mat", ["the cat sat on a mat"]),
    (
        "It is a guide to action which ensures that the military always obeys the commands of the party",
        ["It is a guide to action that ensures that the military will forever heed Party commands"],
    ),
    ("hello world", ["hello there"]),
    ("a b", ["a b"]),
    ("x", ["x"]),
    ("completely different words here", ["nothing in common at all"]),
    ("The cat sat. It purred.", ["The cat sat on the mat.", "A cat sat."]),
]


@pytest.mark.parametrize("smoothing", [f"method{i}" for i in range(8)])
@pytest.mark.parametrize("weights", [None, (1.0,), (0.5, 0.5), (0.2, 0.2, 0.2, 0.2, 0.2)])
@pytest.mark.parametrize("prediction, references", PAIRS)
def test_every_smoothing_method_scores_every_input(smoothing, weights, prediction, references):
    """method6 raised IndexError on every input (nltk's method6 indexes the trigram precision, and
    bleu1/bleu2 have fewer orders) and AssertionError without a trigram match."""
    [result] = Bleu(smoothing=smoothing, weights=weights).evaluate([Case(actual=prediction, expected=references)])
    for metric, value in result.metrics.items():
        assert value is None or (0.0 <= value <= 1.0 and not math.isnan(value)), metric
    if prediction == references[0]:
        assert result.metrics["bleu1"] == 1.0


def test_method6_is_nltks_where_nltk_applies_and_unsmoothed_below_trigrams():
    tok = Bleu().tokens
    hypothesis, reference = PAIRS[1][0], PAIRS[1][1][0]
    [result] = Bleu(smoothing="method6").evaluate([Case(actual=hypothesis, expected=reference)])
    [plain] = Bleu(smoothing="method0").evaluate([Case(actual=hypothesis, expected=reference)])
    for n in (3, 4):
        nltk_value = sentence_bleu(
            [tok(reference)], tok(hypothesis), weights=(1 / n,) * n, smoothing_function=SmoothingFunction().method6
        )
        assert result.metrics[f"bleu{n}"] == pytest.approx(nltk_value, abs=1e-12)
    assert round(result.metrics["bleu4"], 4) == 0.4136  # nltk's documented method6 example
    # method6 leaves unigram and bigram precisions as they are
    assert result.metrics["bleu1"] == plain.metrics["bleu1"] and result.metrics["bleu2"] == plain.metrics["bleu2"]
    # no trigram match: nltk asserts; the interpolation still gives a score, 0 without bigram matches
    [no_trigram] = Bleu(smoothing="method6").evaluate([Case(actual="hello world", expected="hello world again")])
    assert 0.0 < no_trigram.metrics["bleu3"] < 1.0
    [no_bigram] = Bleu(smoothing="method6").evaluate([Case(actual="world hello", expected="hello world")])
    assert no_bigram.metrics["bleu2"] < 1e-100 and no_bigram.metrics["bleu4"] < 1e-100


def _word_tokenize(text):
    words = NLTKWordTokenizer()
    return [token for sentence in PunktSentenceTokenizer().tokenize(text) for token in words.tokenize(sentence)]


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("Hello world. It is nice.", ["Hello", "world", ".", "It", "is", "nice", "."]),
        (
            "One sentence. Two sentences!\nThree on a line.",
            ["One", "sentence", ".", "Two", "sentences", "!", "Three", "on", "a", "line", "."],
        ),
        (
            "Dr. Smith paid $3.50 at 5 p.m. on Monday.",
            ["Dr.", "Smith", "paid", "$", "3.50", "at", "5", "p.m.", "on", "Monday", "."],
        ),
        ("", []),
    ],
)
def test_tokens_follow_word_tokenize(text, tokens):
    """ "world." kept its period (the Treebank tokenizer splits only a text's last period)."""
    assert Bleu().tokens(text) == tokens
    if "Dr." not in text:
        assert _word_tokenize(text) == tokens


def test_sentence_periods_do_not_cost_matches():
    [result] = Bleu().evaluate([Case(actual="The cat sat. The dog ran.", expected="The cat sat . The dog ran .")])
    assert result.metrics["bleu4"] == 1.0
    # sentences are found in the text as written (capitals start them), then lower-cased
    [lower] = Bleu(lowercase=True).evaluate(
        [Case(actual="THE CAT SAT. THE DOG RAN.", expected="the cat sat . the dog ran .")]
    )
    assert lower.metrics["bleu4"] == 1.0
    assert Bleu.version != "1"


def test_scores_equal_nltk_on_word_tokenize_tokens():
    prediction, reference = "The cat sat. The dog ran away.", "The cat sat on the mat. The dog ran."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sentence_bleu(
            [_word_tokenize(reference)], _word_tokenize(prediction), smoothing_function=SmoothingFunction().method1
        )
    [result] = Bleu().evaluate([Case(actual=prediction, expected=reference)])
    assert result.metrics["bleu4"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "prediction, reference",
    [
        ("I'Ll come tomorrow. We'LL see.", "i'll come tomorrow. we'll see."),
        ("They DON'T know. It isN'T here.", "they don't know. it isn't here."),
    ],
)
def test_lowercase_tokenizes_then_lowers_as_nltk_users_do(prediction, reference):
    """NLTK's order: word_tokenize on the text as written, then each token lower-cased (the contraction rules read
    case)."""
    bleu = Bleu(lowercase=True)
    assert bleu.tokens(prediction) == [token.lower() for token in _word_tokenize(prediction)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sentence_bleu(
            [[t.lower() for t in _word_tokenize(reference)]],
            [t.lower() for t in _word_tokenize(prediction)],
            smoothing_function=SmoothingFunction().method1,
        )
    [result] = bleu.evaluate([Case(actual=prediction, expected=reference)])
    assert result.metrics["bleu4"] == pytest.approx(expected)
