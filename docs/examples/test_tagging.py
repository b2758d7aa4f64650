import pytest

answer, reference = "Canberra is the capital of Australia.", "The capital of Australia is Canberra."


def pick_model() -> str:
    return "acme-large"


@pytest.mark.llmeval(model="acme-large", case="q17", perturbation="typos")
def test_q17(llmeval):
    llmeval.check("exact_match", actual="Canberra", expected="canberra", params={"ignore_case": True})


def test_dynamic(llmeval):  # the fixture
    llmeval.model = pick_model()
    llmeval.check("rouge", actual=answer, expected=reference, threshold=0.4)
    assert llmeval.results[-1].passed
