"""pytest-llmeval: LLM and RAG evaluation as ordinary pytest tests.

>>> from pytest_llmeval import assert_matches
>>> assert_matches("Brazil revenue was 15,969 million", '"15,969" AND NOT "Real"').passed
True

Importing this package loads only the standard library, pytest and light
modules; evaluators import their libraries when first used.
"""

from __future__ import annotations

from ._version import __version__
from .assertions import (
    LLMEvalAssertionError,
    assert_accurate,
    assert_context_ranked,
    assert_context_relevant,
    assert_grounded,
    assert_relevant,
    assert_similar,
    assert_similar_sentences,
    assert_bleu,
    assert_check,
    assert_edit_distance,
    assert_exact_match,
    assert_json,
    assert_matches,
    assert_no_encoded_leak,
    assert_no_pii,
    assert_no_sensitive_data,
    assert_not_looping,
    assert_rouge,
    evaluate,
)
from .case import Case, load_cases
from .conditions import ConditionSyntaxError, parse_condition
from .evaluators.base import Evaluator, MetricSpec, MissingInputError, Score
from .registry import Registry, UnknownEvaluatorError
from .result import Result, Signature

__all__ = [
    "__version__",
    "Case",
    "ConditionSyntaxError",
    "Evaluator",
    "LLMEvalAssertionError",
    "MetricSpec",
    "MissingInputError",
    "Registry",
    "Result",
    "Score",
    "Signature",
    "UnknownEvaluatorError",
    "assert_accurate",
    "assert_bleu",
    "assert_check",
    "assert_context_ranked",
    "assert_context_relevant",
    "assert_grounded",
    "assert_relevant",
    "assert_similar",
    "assert_similar_sentences",
    "assert_edit_distance",
    "assert_exact_match",
    "assert_json",
    "assert_matches",
    "assert_no_encoded_leak",
    "assert_no_pii",
    "assert_no_sensitive_data",
    "assert_not_looping",
    "assert_rouge",
    "evaluate",
    "load_cases",
    "parse_condition",
]
