"""The claim verifier reading what the groundedness rules leave unverified (docs/verifier.md).

It is off by default. Here one call switches it on with ``verifier="on"``; ``--llmeval-verifier=on`` does the same
for a whole run. The rules fail the invented number below on their own, so the verifier never reads it. The reworded
answer gives the rules nothing to fault or confirm, so the verifier reads it claim by claim against the best windows
of the context. It fails a claim only below its card's ``fail_below`` and passes an answer only when every claim
reaches ``pass_at``. Anything between stays unverified, with the verifier's reading in the report: each claim's
support and its closest window (``details.verifier``).
"""

from __future__ import annotations

import pytest

from pytest_llmeval import assert_grounded, evaluate

CONTEXT = [
    "Orders can be returned within 30 days of delivery for a full refund. Refunds go back to the original payment "
    "method within 5 business days. Sale items cannot be returned."
]


@pytest.mark.llmeval(case="refund-reworded")
def test_reworded_answer_goes_to_the_verifier():
    answer = "Returned orders are refunded to the card or account you paid with."
    result = evaluate("groundedness", actual=answer, context=CONTEXT, verifier="on", record=False)
    assert result.signature.params["verifier"].startswith("verifier ")  # the verifier is part of the signature
    if result.verdict == "unverified":  # the rules could not decide: the verifier read it
        reading = result.details["verifier"]
        assert reading["claims"][0]["claim"] == answer and reading["claims"][0]["closest"].startswith("Orders can be")
    assert_grounded(answer, CONTEXT, verifier="on")


@pytest.mark.llmeval(case="refund-invented-number")
def test_the_rules_decide_before_the_verifier():
    result = evaluate(
        "groundedness", actual="Refunds arrive within 14 business days.", context=CONTEXT, verifier="on", record=False
    )
    assert result.verdict == "fail" and result.decided_by == "rules" and "verifier" not in result.details
