import pytest
from pytest_llmeval import Case, assert_similar

CASES = [
    Case(
        actual="Canberra is the capital.",
        expected="The capital is Canberra.",
        context=["Canberra is Australia's capital."],
    )
]


@pytest.fixture(scope="session", autouse=True)
def warm(llmeval_scorers):
    llmeval_scorers.warm(text for case in CASES for text in (case.actual, *case.context))


def test_similar():
    assert_similar(CASES[0].actual, CASES[0].expected)
