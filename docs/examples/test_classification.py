import pytest
from pytest_llmeval import assert_classification, record_label

QUESTIONS = ["reset my password", "cancel my order", "where is my parcel", "change my password"]
EXPECTED = ["account", "orders", "shipping", "account"]


def route(question: str) -> str:  # the classifier under test
    return "account" if "password" in question else "orders" if "order" in question else "shipping"


def scores(question: str) -> dict[str, float]:
    label = route(question)
    return {name: 0.8 if name == label else 0.1 for name in ("account", "orders", "shipping")}


def test_router():
    predicted = [route(q) for q in QUESTIONS]
    assert_classification(EXPECTED, predicted, scores=[scores(q) for q in QUESTIONS], threshold=0.9)


@pytest.mark.parametrize("question, label", list(zip(QUESTIONS, EXPECTED)))
def test_intent(question, label):
    # gathered per model in every report
    record_label(label, route(question), scores=scores(question), model="router-v2")
