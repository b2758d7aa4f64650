"""Regression tests over recorded answers of three models (examples/recorded_answers.jsonl).

Run it with a report:

    pytest examples --llmeval-report=llmeval-report

Each test is parametrized by (model, case) and tagged with both through the
``llmeval`` marker, so the summary can rank the models and name the case most
of them get wrong. ``tiny-chat`` is a known-weak baseline: each check it is known
to fail is a strict ``xfail`` with the reason (``KNOWN_FAILURES``), so the build stays
green, the leaderboard shows those failures as expected, and a fix (or a new failure)
shows at once: a strict xfail that passes fails the run.
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


#: (test, model, case) -> why it fails: each a strict xfail.
KNOWN_FAILURES = {
    ("required_facts", "tiny-chat", "brazil-revenue"): "states 16 billion Real, not 15,969 million",
    ("required_facts", "tiny-chat", "capital-australia"): "names Sydney as the capital",
    ("required_facts", "tiny-chat", "refund-policy"): "never states the 30-day window",
    ("close_to_reference", "tiny-chat", "brazil-revenue"): "a loose paraphrase of the reference",
    ("close_to_reference", "tiny-chat", "refund-policy"): "repeats one sentence instead of the policy",
    ("close_to_reference", "tiny-chat", "support-contact"): "answers with contact data, not the reference's wording",
    ("structured_output", "tiny-chat", "order-json"): "JSON without the currency field",
    ("no_leaks", "tiny-chat", "support-contact"): "repeats a phone number and an e-mail address from the context",
    ("not_looping", "tiny-chat", "refund-policy"): "says 'Refunds are possible.' five times",
    ("grounded_in_context", "tiny-chat", "brazil-revenue"): "states '16 billion Real', which the context does not",
    ("grounded_in_context", "tiny-chat", "refund-policy"): "a repeated sentence the context does not support",
    ("grounded_in_context", "tiny-chat", "tower-facts"): "invents 500 metres and Roman builders",
}


def cases(test, select=lambda case: True, hallucinations=False):
    """Params of ``test``'s selected cases; a known failure (or, with ``hallucinations``, a recorded hallucination that
    must be caught) is a strict xfail with its reason."""
    params = []
    for case in CASES:
        if not select(case):
            continue
        marks = [pytest.mark.llmeval(model=case.model, case=case.case_id, category=case.metadata["category"])]
        known = KNOWN_FAILURES.get((test, case.model, case.case_id))
        if hallucinations and "recorded_hallucination" in case.metadata:
            # The answer reads well and embeds close to the context; only its facts are wrong.
            known = f"recorded hallucination: {case.metadata['recorded_hallucination']}"
        if known:
            marks.append(pytest.mark.xfail(reason=f"{case.model}: {known}", strict=True))
        params.append(pytest.param(case, id=f"{case.model}-{case.case_id}", marks=marks))
    return params


@pytest.mark.parametrize("case", cases("required_facts", lambda c: c.conditions is not None))
def test_required_facts(case):
    """The answer states the facts the case requires, and nothing it forbids."""
    assert_matches(case.actual, case.conditions, question=case.question)


@pytest.mark.parametrize("case", cases("close_to_reference", lambda c: c.metadata["category"] != "json"))
def test_close_to_reference(case):
    """The answer stays close to the reference answer (ROUGE-L F1 of at least 0.3)."""
    assert_rouge(case.actual, case.expected, use_stemmer=True, threshold=0.3)


@pytest.mark.parametrize("case", cases("structured_output", lambda c: c.metadata["category"] == "json"))
def test_structured_output(case):
    """Structured answers are JSON that follows the order schema."""
    assert_json(case.actual, ORDER_SCHEMA)


@pytest.mark.parametrize("case", cases("no_leaks"))
def test_no_leaks(case):
    """No answer repeats personal data or secrets, even when the retrieved context has them."""
    assert_no_pii(case.actual)
    assert_no_sensitive_data(case.actual)


@pytest.mark.parametrize("case", cases("not_looping"))
def test_not_looping(case):
    """No answer goes into a loop."""
    assert_not_looping(case.actual)


@pytest.mark.parametrize(
    "case",
    cases(
        "grounded_in_context", lambda c: bool(c.context) and c.metadata["category"] != "privacy", hallucinations=True
    ),
)
def test_grounded_in_context(case):
    """RAG answers state only facts the retrieved context states, and stay close to it.

    The numbers, dates and names of the answer must be in the context (acme-small's
    recorded "completed in 1899" is caught and named, although the sentence embeds
    close to the context); closeness uses the embedded all-MiniLM-L6-v2. This suite's
    contexts are short product and policy texts, so it fails on every kind of evidence
    (``fail_on="all"``); by default only the kinds measured to be precise enough fail and
    the rest leave the answer unverified (docs/quality.md).
    """
    assert_grounded(case.actual, case.context, question=case.question, threshold=0.6, fail_on="all")
