"""The ``exact_match`` check: 1 when the answer equals one of the expected answers after normalisation."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from .rouge import Normalising

__all__ = ["assert_exact_match", "ExactMatch"]


def assert_exact_match(
    actual: str,
    expected: Any,
    *,
    ignore_case: bool = False,
    ignore_whitespace: bool = True,
    ignore_punctuation: bool = False,
    **kwargs: Any,
) -> Result:
    """The answer equals one of the expected answers after normalisation."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "ignore_case": ignore_case,
        "ignore_whitespace": ignore_whitespace,
        "ignore_punctuation": ignore_punctuation,
    }
    return check(ExactMatch, actual=actual, expected=expected, params=params, **kwargs)


class ExactMatch(Normalising):
    """1 when the answer equals one of the expected answers after normalisation.

    Parameters: ``ignore_case``, ``ignore_whitespace`` (collapse runs, strip; default on),
    ``ignore_punctuation``.
    """

    name = "exact_match"
    helper = "assert_exact_match"
    description = "The answer equals an expected answer (after normalisation)"
    metrics = (MetricSpec("exact_match", "1 when the answer equals an expected answer", primary=True),)

    def score(self, case: Case) -> Score:
        answer = self.norm(case.actual or "")
        for index, expected in enumerate(case.expected):
            if answer == self.norm(expected):
                return Score({"exact_match": 1.0}, f"equals expected answer #{index}", {"matched": index})
        shown = " | ".join(repr(self.norm(e)[:60]) for e in case.expected[:3])
        return Score({"exact_match": 0.0}, f"{answer[:60]!r} equals none of {shown}", {"matched": None})
