"""One decision: a check's decide() returns a Verdict (outcome, who decided, the evidence), and the failure message,
the record and the reports quote it."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, Result
from pytest_llmeval.core.verdict import DECIDERS, Verdict
from pytest_llmeval.run.check import format_failure

WRONG = ("Refunds are issued within 10 business days.", "Refunds are issued within 5 business days of the return.")
RIGHT = ("Refunds are issued within 5 business days.", "Refunds are issued within 5 business days of the return.")


@pytest.mark.parametrize(("outcome", "by", "evidence", "error"), [
    ("maybe", "rules", (), "outcome must be one of pass, fail, unverified"),
    ("fail", "oracle", (), "decided_by must be one of rules, embedding, verifier, detector, judge"),
    ("fail", "rules", "a string", "evidence must be a tuple of str"),
])
def test_a_verdict_refuses_what_it_cannot_mean(outcome, by, evidence, error):
    with pytest.raises((ValueError, TypeError), match=error):
        Verdict(outcome, by, evidence)


def test_groundedness_decides_in_its_own_decide(make):
    """Named evidence of a failing kind: the rules decide, and the verdict quotes the evidence; a supported answer:
    the embedding model decides; a concern alone leaves it unverified by the rules, weak support by the embedding model."""
    check = make("groundedness")
    wrong, right = check.evaluate([Case(actual=WRONG[0], context=WRONG[1]), Case(actual=RIGHT[0], context=RIGHT[1])])
    assert (wrong.verdict, wrong.decided_by) == ("fail", "rules")
    assert (right.verdict, right.decided_by) == ("pass", "embedding")
    concern, reworded = check.evaluate([Case(actual="Sale items are refundable.", context=["Sale items are not refundable."]),
                                        Case(actual="Youngsters get in at no cost.", context=["Entry is free for children under 12."])])
    assert (concern.verdict, concern.decided_by) == ("unverified", "rules"), concern.reason
    assert (reworded.verdict, reworded.decided_by) == ("unverified", "embedding"), reworded.reason
    [score] = check.score_batch([Case(actual=WRONG[0], context=WRONG[1])])
    failed = ["evidence"]
    verdict = check.decide(failed, False, score)
    assert verdict.outcome == "fail" and verdict.decided_by == "rules"
    assert any("'10'" in item and "'5'" in item for item in verdict.evidence)


def test_who_decided_is_in_the_message_and_survives_the_record(make):
    [wrong] = make("groundedness").evaluate([Case(actual=WRONG[0], context=WRONG[1])])
    assert "  decided by: rules" in format_failure(wrong).splitlines()
    again = Result.from_dict(wrong.to_dict())
    assert again == wrong and again.decided_by == "rules"


def test_rules_checks_say_rules_and_judges_say_judge():
    from pytest_llmeval import Registry

    registry = Registry(entry_points=False)
    assert registry.create("exact_match").decider() == "rules"
    assert registry.create("faithfulness").decider() == "judge"
    assert registry.create("semantic_similarity").decider() == "embedding"
    assert registry.create("toxicity").decider() == "detector"
    assert set(DECIDERS) == {"rules", "embedding", "verifier", "detector", "judge"}


def test_a_result_refuses_an_unknown_decider():
    [result] = __import__("pytest_llmeval").Registry(entry_points=False).create("exact_match").evaluate([Case(actual="a", expected="a")])
    with pytest.raises(ValueError, match="decided_by must be one of"):
        Result.from_dict({**result.to_dict(), "decided_by": "oracle"})


def test_the_markdown_report_says_who_decided_a_failure(pytester):
    pytester.makepyfile("from pytest_llmeval import assert_exact_match\n\ndef test_x():\n    assert_exact_match('4', '5')\n")
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.md")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*decided by: rules*"])
    assert "| (rules) " in (pytester.path / "r.md").read_text(encoding="utf-8")
