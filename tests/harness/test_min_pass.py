"""K of N: a repeated case passes when at least K of its draws pass; one red test for a case that failed, none for a
flaky draw within K; the same under xdist; marker, option and ini."""

from __future__ import annotations

import pytest

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match

PASSING = {{"steady": {{1, 2, 3}}, "flaky": {{2, 3}}, "broken": {{3}}}}


@pytest.mark.llmeval(repeat=3{marker})
@pytest.mark.parametrize("case", ["steady", "flaky", "broken"])
def test_answer(case, llmeval_draw):
    assert_exact_match("Paris" if llmeval_draw in PASSING[case] else "Lyon", "Paris")
"""


@pytest.mark.parametrize("how", ["marker", "option", "ini", "xdist"])
def test_a_case_passes_on_k_of_its_n_draws(pytester, how):
    args = ["-p", "no:randomly", "--llmeval-report=r.json"]
    pytester.makepyfile(SUITE.format(marker=", min_pass=2" if how in ("marker", "xdist") else ""))
    if how == "option":
        args.append("--override-ini=llmeval_min_pass=2")
    if how == "ini":
        pytester.makeini("[pytest]\nllmeval_min_pass = 2\n")
    if how == "xdist":
        pytest.importorskip("xdist")
        args += ["-n", "2"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=8, failed=1)  # steady 3/3 and flaky 2/3 pass; broken 1/3 is one red test
    result.stdout.fnmatch_lines(
        [
            "*llmeval: case test_*.py::test_answer[[]broken[]] failed: 2 of its 3 draws failed, so fewer "
            "than the 2 it needs can pass (min_pass)*"
        ]
    )
    assert result.ret == 1


def test_without_min_pass_every_failing_draw_is_red(pytester):
    pytester.makepyfile(SUITE.format(marker=""))
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=6, failed=3)


def test_min_pass_above_the_draws_is_a_usage_error(pytester):
    pytester.makepyfile(SUITE.format(marker=", min_pass=4"))
    result = pytester.runpytest("-p", "no:randomly")
    result.stdout.fnmatch_lines(
        ["*min_pass (the draws that must pass) takes an integer from 1 to the test's 3 draws; got 4*"]
    )
    assert result.ret != 0
