"""The ``word_budget`` check: the answer fits a budget of words."""

from typing import Any

from pytest_llmeval.kit import Evaluator, MetricSpec, Result, Score, check, check_kwargs


def assert_word_budget(actual: str, *, budget: int = 5, **kwargs: Any) -> Result:
    """The answer has at most ``budget`` words."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(WordBudget, actual=actual, params={"budget": budget}, **kwargs)


class WordBudget(Evaluator):
    name = "word_budget"
    helper = "assert_word_budget"
    description = "The answer fits a budget of words"
    requires = ("actual",)
    metrics = (
        MetricSpec("within_budget", "1.0 within the budget, budget / words over it", threshold=1.0, primary=True),
    )
    defaults = {"budget": 5}

    def score(self, case):
        words = len(case.actual.split())
        budget = self.params["budget"]
        return Score(
            {"within_budget": min(1.0, budget / words) if words else 1.0}, reason=f"{words} words, budget {budget}"
        )
