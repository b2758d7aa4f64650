"""Regression tests over recorded answers of three models (examples/recorded_answers.jsonl).

Run it with a report:

    pytest examples --llmeval-report=llmeval-report

Each test is parametrized by (model, case) and tagged with both through the
``llmeval`` marker, so the summary can rank the models and name the case most
of them get wrong. ``tiny-chat`` is a known-weak baseline: its tests are marked
``xfail`` so it is tracked on the leaderboard without failing the build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_llmeval import (
    assert_grounded,
    assert_json,
    assert_matches,
    assert_no_pii,
    assert_no_sensitive_data,
    assert_not_looping,
    assert_rouge,
    load_cases,
)

CASES = load_cases(Path(__file__).with_name("recorded_answers.jsonl"))
BASELINE_MODELS = {"tiny-chat"}

ORDER_SCHEMA = {
    "type": "object",
    "required": ["id", "total", "currency"],
    "properties": {
        "id": {"type": "integer"},
        "total": {"type": "number", "minimum": 0},
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
    },
}


def cases(select=lambda case: True, hallucinations=False):
    """Params for the selected cases; with ``hallucinations``, a recorded hallucination must be caught (strict xfail)."""
    params = []
    for case in CASES:
        if not select(case):
            continue
        marks = [pytest.mark.llmeval(model=case.model, case=case.case_id, category=case.metadata["category"])]
        if hallucinations and "recorded_hallucination" in case.metadata:
            # The answer reads well and embeds close to the context; only its facts are wrong.
            marks.append(pytest.mark.xfail(reason=f"recorded hallucination: {case.metadata['recorded_hallucination']}", strict=True))
        elif case.model in BASELINE_MODELS:
            marks.append(pytest.mark.xfail(reason="known-weak baseline model", strict=False))
        params.append(pytest.param(case, id=f"{case.model}-{case.case_id}", marks=marks))
    return params


@pytest.mark.parametrize("case", cases(lambda c: c.conditions is not None))
def test_required_facts(case):
    """The answer states the facts the case requires, and nothing it forbids."""
    assert_matches(case.actual, case.conditions, question=case.question)


@pytest.mark.parametrize("case", cases(lambda c: c.metadata["category"] != "json"))
def test_close_to_reference(case):
    """The answer stays close to the reference answer (ROUGE-L F1 of at least 0.3)."""
    assert_rouge(case.actual, case.expected, use_stemmer=True, threshold=0.3)


@pytest.mark.parametrize("case", cases(lambda c: c.metadata["category"] == "json"))
def test_structured_output(case):
    """Structured answers are JSON that follows the order schema."""
    assert_json(case.actual, ORDER_SCHEMA)


@pytest.mark.parametrize("case", cases())
def test_no_leaks(case):
    """No answer repeats personal data or secrets, even when the retrieved context has them."""
    assert_no_pii(case.actual)
    assert_no_sensitive_data(case.actual)


@pytest.mark.parametrize("case", cases())
def test_not_looping(case):
    """No answer goes into a loop."""
    assert_not_looping(case.actual)


@pytest.mark.parametrize("case", cases(lambda c: bool(c.context) and c.metadata["category"] != "privacy", hallucinations=True))
def test_grounded_in_context(case):
    """RAG answers state only facts the retrieved context states, and stay close to it.

    The numbers, dates and names of the answer must be in the context (acme-small's
    recorded "completed in 1899" is caught and named, although the sentence embeds
    close to the context); closeness uses the embedded all-MiniLM-L6-v2.
    """
    assert_grounded(case.actual, case.context, question=case.question, threshold=0.6)
