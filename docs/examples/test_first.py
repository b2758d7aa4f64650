# test_first.py: a first test of an answer your RAG application gives
from pytest_llmeval import assert_grounded, assert_matches

CONTEXT = ["The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."]


def my_rag_app(question: str) -> str:  # your application; here, a recorded answer
    return "The museum opens at 9 a.m. and closes at 5 p.m."


def test_opening_hours():
    answer = my_rag_app("When is the Harbour Museum open?")
    assert_matches(answer, '"9 a.m." AND NOT "10 a.m."')
    assert_grounded(answer, CONTEXT, question="When is the Harbour Museum open?")
