# test_first_failure.py: the same check on an answer that changed a fact
from pytest_llmeval import assert_grounded

CONTEXT = ["The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."]


def test_changed_age():
    assert_grounded("Entry is free for children under 16.", CONTEXT)
