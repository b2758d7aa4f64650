import pytest
from pytest_llmeval import assert_matches, cases


@pytest.mark.parametrize("case", cases("qa.jsonl"))  # ids: acme-large-capital-au, ...
def test_facts(case):
    assert_matches(case.actual, case.conditions)
