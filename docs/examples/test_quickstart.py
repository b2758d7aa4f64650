# test_answers.py
import pytest
from pytest_llmeval import assert_json, assert_matches, assert_no_pii, assert_rouge


def my_rag_app(question: str) -> str:  # your application; here, a recorded answer
    return "Brazil revenue was 15,969 million in 2023."


def my_app(request: str) -> str:
    return '{"id": 1042, "total": 99.5}'


@pytest.mark.llmeval(model="acme-large", case="brazil-revenue")
def test_brazil_revenue():
    answer = my_rag_app("What was the revenue in Brazil in 2023?")
    assert_matches(answer, '"15,969" AND NOT "Real"')
    assert_rouge(answer, "Brazil revenue was 15,969 million in 2023.", threshold=0.4)
    assert_no_pii(answer)


def test_order_as_json():
    assert_json(my_app("order 1042 as JSON"), {"type": "object", "required": ["id", "total"]})
