# test_grounded.py
from pytest_llmeval import assert_grounded

CONTEXT = ["The 2024 Summer Olympics were held in Paris, France, from 26 July to 11 August 2024."]


def test_faithful_answer():
    assert_grounded("The 2024 Summer Olympics took place in Paris from 26 July to 11 August.", CONTEXT)


def test_hallucinated_city():
    assert_grounded("The 2024 Summer Olympics were held in Berlin, Germany.", CONTEXT)
