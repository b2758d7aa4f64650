from pytest_llmeval import assert_dag

FORMAT = {
    "task": "List the section headings",
    "output": "headings",
    "then": {
        "judge": "Are intro, body and conclusion all present?",
        "children": {
            "no": 0,
            "yes": {
                "judge": "Are they in order?",
                "children": {"yes": 10, "two out of order": 4, "all out of order": 2},
            },
        },
    },
}


def test_essay_format():
    answer = "Introduction ... Body ... Conclusion ..."
    assert_dag(answer, FORMAT)  # asks the judge (--llmeval-judge-model); skipped when there is none
