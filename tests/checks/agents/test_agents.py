"""METEOR (parity with nltk) and tool correctness (deepeval's definition, natively)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval import LLMEvalAssertionError, Registry, assert_meteor, assert_tools_called
from pytest_llmeval.core.case import Case

WORDS = st.sampled_from(["the", "cat", "cats", "sat", "sitting", "on", "a", "mat", "mats", "dog", "ran", "quickly"])


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12), st.lists(WORDS, min_size=1, max_size=12))
def test_meteor_equals_nltk_with_the_same_matchers(hypothesis, reference):
    from nltk.translate.meteor_score import single_meteor_score

    from pytest_llmeval.checks.lexical.meteor import _wordnet

    [result] = (
        Registry(entry_points=False)
        .create("meteor")
        .evaluate([Case(actual=" ".join(hypothesis), expected=" ".join(reference))])
    )
    assert result.metrics["meteor"] == pytest.approx(single_meteor_score(reference, hypothesis, wordnet=_wordnet()[0]))


def test_meteor_best_of_several_expected_and_named_failure():
    result = assert_meteor("The cat sat on the mat.", ["A dog ran.", "The cat sat on the mat."])
    assert result.metrics["meteor"] > 0.9 and result.details["per_expected"][0] < 0.5
    assert "wordnet" in json.dumps(result.signature.to_dict())  # scores with and without synonyms never mix
    with pytest.raises(LLMEvalAssertionError, match="METEOR 0.0[0-9]+ against expected answer 1, "):
        assert_meteor("Completely unrelated words.", "The cat sat on the mat.")
    with pytest.raises(ValueError, match="parameter 'alpha' must be a non-negative number"):
        Registry(entry_points=False).create("meteor", alpha=-1)


class ToolCall:  # the shape of deepeval's ToolCall
    def __init__(self, name, input_parameters=None, output=None):
        self.name, self.input_parameters, self.output = name, input_parameters, output


def test_tool_correctness_follows_deepeval():
    # the seed's example: every expected tool called (an extra call does not lower the score)
    assert assert_tools_called([ToolCall("WebSearch"), ToolCall("ToolQuery")], [ToolCall("WebSearch")]).score == 1.0
    with pytest.raises(
        LLMEvalAssertionError, match="1 of 3 expected tools called; missing or wrong: \\['Book', 'Pay'\\]"
    ):
        assert_tools_called(["Search"], ["Search", "Book", "Pay"])
    args = assert_tools_called(
        [{"name": "Book", "arguments": {"city": "Paris", "days": 2}}],
        [{"name": "Book", "arguments": {"city": "Paris", "days": 3}}],
        match_arguments=True,
    )
    assert args.score == 0.5  # one of two expected arguments given alike
    ordered = assert_tools_called(["B", "A", "C"], ["A", "B", "C"], consider_ordering=True, threshold=0.5)
    assert ordered.score == pytest.approx(2 / 3)
    with pytest.raises(LLMEvalAssertionError, match="expected exactly \\['A', 'B'\\]"):
        assert_tools_called(["A", "B", "C"], ["A", "B"], exact_match=True)
    assert assert_tools_called(["A"], ["A"], exact_match=True).score == 1.0
    outputs = assert_tools_called(
        [{"name": "Calc", "output": 4}], [{"name": "Calc", "output": 5}], match_output=True, threshold=0.0
    )
    assert outputs.score == 0.0
    assert assert_tools_called([], []).score == 1.0
    with pytest.raises(TypeError, match="argument 'tools_called' must be a list of tool calls"):
        assert_tools_called("Search", ["Search"])
    with pytest.raises(TypeError, match="every tool call in 'expected_tools' needs a name"):
        assert_tools_called(["A"], [{"arguments": {}}])
