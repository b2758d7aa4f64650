# Run with: pytest --llmeval-models=gpt-4o,local
import pytest
from pytest_llmeval import assert_matches


def ask_openai(question: str) -> str:  # your clients; here, recorded answers
    return "Canberra."


def ask_local_llm(question: str) -> str:
    return "The capital of Australia is Canberra."


@pytest.fixture(scope="session")
def llmeval_model_table():
    return {"gpt-4o": ask_openai, "local": ask_local_llm}


def test_capital(llmeval_generate):
    assert_matches(llmeval_generate("What is the capital of Australia?"), '"Canberra"')
