import pytest
from pytest_llmeval import assert_grounded, assert_no_pii

CONTEXT = ["The museum opens at 9 am. A guided tour costs 8 euros and lasts 45 minutes."]


def answer(question: str) -> str:
    """Stands in for your application: the answer exists only when the test runs."""
    return {"price": "A guided tour costs 8 euros.", "length": "The tour lasts 45 minutes."}[question]


@pytest.mark.llmeval(defer=True)  # the checks queue; the run scores many tests' checks in one batch
@pytest.mark.parametrize("question", ["price", "length"])
def test_answer(question):
    reply = answer(question)
    assert_no_pii(reply)
    assert_grounded(reply, CONTEXT)


def test_reads_its_verdict(llmeval_deferred):
    result = assert_grounded("A guided tour costs 8 euros.", CONTEXT)
    assert result.verdict == "pass"  # reading the result scores it now
