"""repeat=auto[:MAX]: a case is drawn again only while its K-of-MAX verdict is undecided (curtailed sampling)."""

from __future__ import annotations

import pytest

from pytest_llmeval.harness.markers import parse_repeat

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match

PASSING = {{"steady": {{1, 2, 3, 4, 5}}, "flaky": {{2, 3, 5}}, "broken": {{4}}}}


@pytest.mark.llmeval({marker})
@pytest.mark.parametrize("case", ["steady", "flaky", "broken"])
def test_answer(case, llmeval_draw):
    assert_exact_match("Paris" if llmeval_draw in PASSING[case] else "Lyon", "Paris")
"""


@pytest.mark.parametrize(
    ("value", "parsed"), [(3, (3, False)), ("3", (3, False)), ("auto", (5, True)), ("auto:7", (7, True))]
)
def test_repeat_values(value, parsed):
    assert parse_repeat(value, "here") == parsed


@pytest.mark.parametrize("value", [0, "auto:1", "auto:x", "often", True])
def test_a_bad_repeat_names_the_place_and_the_form(value):
    with pytest.raises(pytest.UsageError, match=r"here: repeat takes an integer from 1 to 1000, or auto\[:MAX\]"):
        parse_repeat(value, "here")


@pytest.mark.parametrize("how", ["marker", "option", "xdist-loadgroup"])
def test_draws_stop_once_the_case_is_decided(pytester, how):
    args = ["-p", "no:randomly", "--llmeval-report=r.json"]
    pytester.makepyfile(SUITE.format(marker="repeat='auto:5'" if how != "option" else ""))
    if how == "option":
        args.append("--llmeval-repeat=auto:5")
    if how.startswith("xdist"):
        pytest.importorskip("xdist")
        args += ["-n", "2", "--dist", "loadgroup"]
    result = pytester.runpytest(*args)
    # majority of 5 (3): steady passes after draws 1-3; flaky after 5 (draws 2, 3, 5 pass); broken fails after draw 3
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1
    result.stdout.fnmatch_lines(
        [
            "*case test_*.py::test_answer[[]broken[]] failed: 3 of its 5 draws failed, so fewer than the 3 it "
            "needs can pass (min_pass)*"
        ]
    )
    if not how.startswith("xdist"):
        assert outcomes["passed"] == 3 + 5 + 2 and outcomes["skipped"] == 2 + 0 + 2  # 11 draws of 15
        result.stdout.fnmatch_lines(
            ["llmeval repeat=auto: 11 draws of 3 case(s), where fixed repeats would run 15 (27% fewer)*"]
        )
    assert result.ret == 1


def test_under_the_aggregate_gate_a_failed_case_is_recorded_not_red(pytester):
    pytester.makepyfile(SUITE.format(marker="repeat='auto:5'"))
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-gate=aggregate")
    result.assert_outcomes(passed=11, skipped=4)
    assert result.ret == 0
