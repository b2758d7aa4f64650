import pytest

deepeval_metrics = pytest.importorskip("deepeval.metrics")
from deepeval.test_case import LLMTestCaseParams  # noqa: E402

from pytest_llmeval import assert_metric  # noqa: E402


def test_correct(llmeval_deepeval_judge):
    metric = deepeval_metrics.GEval(
        name="Correctness",
        criteria="The answer is correct.",
        model=llmeval_deepeval_judge,
        evaluation_params=[LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
    )
    # or test_case=LLMTestCase(...)
    assert_metric(metric, actual="Canberra", question="What is the capital of Australia?")
