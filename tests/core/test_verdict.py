"""One decision: a check's decide() returns a Verdict (outcome, who decided, the evidence), and the failure message,
the record and the reports quote it."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, Result, Signature
from pytest_llmeval.core.verdict import DECIDERS, Measure, Verdict
from pytest_llmeval.run.check import format_failure

WRONG = ("Refunds are issued within 10 business days.", "Refunds are issued within 5 business days of the return.")
RIGHT = ("Refunds are issued within 5 business days.", "Refunds are issued within 5 business days of the return.")


@pytest.mark.parametrize(
    ("outcome", "by", "evidence", "error"),
    [
        ("maybe", "rules", (), "outcome must be one of pass, fail, unverified"),
        ("fail", "oracle", (), "decided_by must be one of rules, embedding, verifier, detector, judge"),
        ("fail", "rules", "a string", "evidence must be a tuple of str"),
    ],
)
def test_a_verdict_refuses_what_it_cannot_mean(outcome, by, evidence, error):
    with pytest.raises((ValueError, TypeError), match=error):
        Verdict(outcome, by, evidence)


def test_groundedness_decides_in_its_own_decide(make):
    """Named evidence of a failing kind: the rules decide, and the verdict quotes the evidence; a supported answer:
    the embedding model decides; a concern alone leaves it unverified by the rules, weak support by the embedding
    model."""
    check = make("groundedness")
    wrong, right = check.evaluate([Case(actual=WRONG[0], context=WRONG[1]), Case(actual=RIGHT[0], context=RIGHT[1])])
    assert (wrong.verdict, wrong.decided_by) == ("fail", "rules")
    assert (right.verdict, right.decided_by) == ("pass", "embedding")
    concern, reworded = check.evaluate(
        [
            Case(actual="Beta Labs acquired Acme Corp in 2021.", context=["Acme Corp acquired Beta Labs in 2021."]),
            Case(actual="Youngsters get in at no cost.", context=["Entry is free for children under 12."]),
        ]
    )
    assert (concern.verdict, concern.decided_by) == ("unverified", "rules"), concern.reason
    assert (reworded.verdict, reworded.decided_by) == ("unverified", "embedding"), reworded.reason
    [score] = check.score_batch([Case(actual=WRONG[0], context=WRONG[1])])
    failed = ["evidence"]
    verdict = check.decide(failed, False, score)
    assert verdict.outcome == "fail" and verdict.decided_by == "rules"
    assert any("'10'" in item and "'5'" in item for item in verdict.evidence)


def test_who_decided_is_in_the_message_and_survives_the_record(make):
    [wrong] = make("groundedness").evaluate([Case(actual=WRONG[0], context=WRONG[1])])
    assert "  decided by: rules (evidence 1 > 0)" in format_failure(wrong).splitlines()
    again = Result.from_dict(wrong.to_dict())
    assert again == wrong and again.decided_by == "rules" and again.decision == wrong.decision


def test_the_verdict_carries_the_metrics_that_decided_with_value_and_threshold(make):
    """The failure rests on the evidence metric (which failed), not the primary support (which passed); a pass on
    every metric held to a threshold; an unverified answer on the weak metric that missed."""
    check = make("groundedness")
    wrong, right, reworded = check.evaluate(
        [
            Case(actual=WRONG[0], context=WRONG[1]),
            Case(actual=RIGHT[0], context=RIGHT[1]),
            Case(actual="Youngsters get in at no cost.", context=["Entry is free for children under 12."]),
        ]
    )
    assert wrong.decision.metrics == (Measure("evidence", 1.0, 0.0, higher_is_better=False),)
    assert wrong.metrics["support"] >= wrong.thresholds["support"]  # the primary passed: it did not decide
    assert {m.metric for m in right.decision.metrics} == set(right.thresholds) and all(
        m.met for m in right.decision.metrics
    )
    [support] = reworded.decision.metrics
    assert support.metric == "support" and support.met is False and support.value == reworded.metrics["support"]
    assert all(r.decision.overruled is None for r in (wrong, right, reworded))


def test_a_later_tier_makes_a_new_verdict_over_the_old_one_and_rewrites_nothing():
    offline = Result(
        "groundedness",
        {"support": 0.61},
        primary="support",
        passed=True,
        thresholds={"support": 0.7},
        higher_is_better={"support": True},
        signature=Signature("groundedness", "1"),
        decision=Verdict("unverified", "embedding", metrics=(Measure("support", 0.61, 0.7),)),
    )
    judged = offline.overruled_by(
        "fail",
        "judge",
        evidence=("names a city the context does not",),
        metrics=(Measure("faithfulness", 0.2, 0.5),),
        unverified="pass",
        reason="the judge said no",
        details={},
    )
    assert (judged.verdict, judged.decided_by, judged.passed) == ("fail", "judge", False)
    assert judged.decision.overruled == offline.decision and [v.decided_by for v in judged.decision.chain()] == [
        "judge",
        "embedding",
    ]
    assert offline.verdict == "unverified"  # the result it came from is unchanged
    assert Result.from_dict(judged.to_dict()) == judged
    message = format_failure(judged)
    assert "  decided by: judge (faithfulness 0.200 < 0.500)" in message.splitlines()
    assert "  overruled: unverified by embedding (support 0.610 < 0.700)" in message.splitlines()
    with pytest.raises(ValueError, match="disagree with the decision"):
        Result(
            "groundedness",
            {"support": 0.61},
            primary="support",
            passed=False,
            thresholds={},
            higher_is_better={},
            signature=Signature("groundedness", "1"),
            verdict="fail",
            decision=offline.decision,
        )
    undecided = Result(
        "length",
        {"chars": 3.0},
        primary="chars",
        passed=True,
        thresholds={},
        higher_is_better={},
        signature=Signature("length", "1"),
    )
    with pytest.raises(ValueError, match="no decision to overrule"):  # never a guessed decider below the new one
        undecided.overruled_by("fail", "judge", unverified="pass", reason="", details={})


def test_a_record_of_the_previous_version_reads_with_its_verdict_as_the_decision():
    """A record of version 1 (before the decision travelled whole) reads back: its verdict and decider are the
    decision."""
    old = {
        "record": 1,
        "evaluator": "groundedness",
        "metrics": {"support": 0.9, "evidence": 1.0},
        "primary": "support",
        "passed": False,
        "verdict": "fail",
        "decided_by": "rules",
        "thresholds": {"support": 0.7, "evidence": 0.0},
        "higher_is_better": {"support": True, "evidence": False},
        "signature": {"evaluator": "groundedness", "version": "7"},
        "reason": "'10' is not what the context says",
    }
    result = Result.from_dict(old)
    assert result.decision == Verdict("fail", "rules") and result.verdict == "fail"
    assert result.to_dict()["record"] == 2 and result.to_dict()["decision"]["overruled"] is None


@pytest.mark.parametrize(
    ("measure", "said"),
    [
        (Measure("support", 0.753, 0.7), "support 0.753 >= 0.700"),
        (Measure("evidence", 2, 0, higher_is_better=False), "evidence 2 > 0"),
        (Measure("bleu", None, 0.3), "bleu n/a"),
        (Measure("rouge", 0.5), "rouge 0.500"),
    ],
)
def test_a_measure_says_its_value_against_its_threshold(measure, said):
    assert str(measure) == said
    assert Measure.from_dict(measure.to_dict()) == measure


@pytest.mark.parametrize(
    ("fields", "error"), [(("", 1.0), "metric must be a non-empty str"), (("x", "high"), "value must be a number")]
)
def test_a_measure_refuses_what_it_cannot_mean(fields, error):
    with pytest.raises(TypeError, match=error):
        Measure(*fields)


def test_rules_checks_say_rules_and_judges_say_judge():
    from pytest_llmeval import Registry

    registry = Registry(entry_points=False)
    assert registry.create("exact_match").decider() == "rules"
    assert registry.create("faithfulness").decider() == "judge"
    assert registry.create("semantic_similarity").decider() == "embedding"
    assert registry.create("toxicity").decider() == "detector"
    assert set(DECIDERS) == {"rules", "embedding", "verifier", "detector", "judge"}


def test_a_result_refuses_an_unknown_decider():
    [result] = (
        __import__("pytest_llmeval")
        .Registry(entry_points=False)
        .create("exact_match")
        .evaluate([Case(actual="a", expected="a")])
    )
    record = result.to_dict()
    with pytest.raises(ValueError, match="decided_by must be one of"):
        Result.from_dict({**{k: v for k, v in record.items() if k != "decision"}, "decided_by": "oracle"})  # version 1
    with pytest.raises(ValueError, match="decided_by must be one of"):
        Result.from_dict({**record, "decision": {**record["decision"], "decided_by": "oracle"}})
    with pytest.raises(ValueError, match="disagree with the decision"):
        Result.from_dict({**record, "decided_by": "judge"})


def test_the_markdown_report_says_who_decided_a_failure(pytester):
    pytester.makepyfile(
        "from pytest_llmeval import assert_exact_match\n\ndef test_x():\n    assert_exact_match('4', '5')\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.md")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*decided by: rules*"])
    assert "| (rules) " in (pytester.path / "r.md").read_text(encoding="utf-8")
