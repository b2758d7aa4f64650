import pytest
from pytest_llmeval import assert_grounded

from rag_app import answer


@pytest.mark.llmeval(record=True)  # the model calls answer() makes are recorded once, then replayed
def test_museum_prices():
    reply, context = answer("How much is a guided tour of the museum?")
    assert_grounded(reply, context)
