"""Looping detection: unique sentences, longest repeated substring, compression ratio."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval import Case
from pytest_llmeval.checks.text_stats.looping import (
    Looping,
    compression_ratio,
    longest_repeated_substring,
    unique_sentence_ratio,
)
from pytest_llmeval.text.basics import split_sentences


def _brute(text: str) -> int:
    n = len(text)
    for length in range(n // 2, 0, -1):
        first: dict[str, int] = {}
        for i in range(n - length + 1):
            piece = text[i : i + length]
            if piece in first and i - first[piece] >= length:
                return length
            first.setdefault(piece, i)
    return 0


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab c.", max_size=60))
def test_longest_repeated_substring_equals_brute_force(text):
    substring, count = longest_repeated_substring(text)
    assert len(substring) == _brute(text)
    if substring:
        assert count == text.count(substring) >= 2


def test_unicode_and_loops():
    assert longest_repeated_substring("héllo wörld héllo wörld") == ("héllo wörld", 2)
    substring, count = longest_repeated_substring("Refunds are possible. " * 6)
    assert count * len(substring) == len("Refunds are possible. " * 6)


def test_unique_sentences_ignores_short_ones():
    ratio, details = unique_sentence_ratio("Yes. Yes. Yes. This is a real sentence. This is a real sentence.")
    assert ratio == 0.5 and details["sentences"] == 2 and details["most_repeated_count"] == 2
    assert unique_sentence_ratio("")[0] == 1.0


def test_compression_ratio_matches_zlib():
    text = "abc def ghi " * 50
    assert compression_ratio(text) == len(zlib.compress(text.encode(), 9)) / len(text.encode())
    assert compression_ratio("") == 1.0
    assert compression_ratio("x") == 1.0  # capped


def test_looping_evaluator():
    looped, fine = Looping().evaluate(
        [
            Case(actual="I am sorry, I cannot help with that. " * 8),
            Case(actual="Refunds are granted within 30 days. Keep your receipt. Contact support for help."),
        ]
    )
    assert not looped.passed and looped.score == pytest.approx(1 / 8)
    assert looped.metrics["longest_repeated_substring"] > 0.9
    assert "x8" in looped.reason
    assert fine.passed and fine.score == 1.0 and fine.metrics["longest_repeated_substring"] < 0.2


def test_megabyte_answer_gets_a_score():
    text = "The model answered correctly. " * 33_000
    [result] = Looping().evaluate([Case(actual=text)])
    assert not result.passed and result.metrics["compression_ratio"] < 0.01


def test_sentence_splitter_keeps_abbreviations():
    assert split_sentences("Dr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3.") == [
        "Dr. Smith went to Washington.",
        "He arrived at 5 p.m. on Jan. 3.",
    ]
    assert split_sentences("It was 5 p.m. Then we left. I met J. R. R. Tolkien!\n\nNew paragraph") == [
        "It was 5 p.m.",
        "Then we left.",
        "I met J. R. R. Tolkien!",
        "New paragraph",
    ]
    assert split_sentences("") == []


def test_sentence_splitter_keeps_list_items_and_decimals():
    assert split_sentences("Steps:\n1. Open the app.\n2. Click Settings.\n3. Choose Export") == [
        "Steps:",
        "1. Open the app.",
        "2. Click Settings.",
        "3. Choose Export",
    ]
    assert split_sentences("- first item\n- second item\n* third") == ["- first item", "- second item", "* third"]
    assert split_sentences("Pi is 3.14. Version 2.0 shipped.") == ["Pi is 3.14.", "Version 2.0 shipped."]
    assert split_sentences("I counted to 10. Then I stopped.") == ["I counted to 10.", "Then I stopped."]
