"""Evidence kinds earn the right to fail by measurement: fail_on, concerns, record contexts, sentences that claim
nothing, refusals and Markdown answers, as groundedness reads them."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.kinds import (
    FAILING,
    KIND_IDS,
    MIN_FIRINGS,
    MIN_PRECISION,
    measured_failing,
    pooled_precision,
    resolve_fail_on,
    wilson_lower_bound,
)

from tests.verdicts import kinds, one


def test_fail_on_takes_measured_all_none_or_kinds_and_names_what_it_expects():
    assert resolve_fail_on(None) == resolve_fail_on("measured") == FAILING
    assert resolve_fail_on("all") == frozenset(KIND_IDS) and resolve_fail_on("none") == frozenset()
    assert resolve_fail_on("number, role swap") == resolve_fail_on(["number", "role_swap"]) == {"number", "role_swap"}
    with pytest.raises(ValueError, match="unknown evidence kind 'nmae'.*the kinds: number, changed_number"):
        resolve_fail_on("nmae")
    with pytest.raises(ValueError, match="argument 'fail_on' must be 'measured', 'all', 'none' or evidence kinds"):
        resolve_fail_on(3)


def row(kind, good_fired, bad_fired, good=100, bad=100, gates=True):
    return {"kind": kind, "gates": gates, "good_fired": good_fired, "bad_fired": bad_fired, "good": good, "bad": bad}


def test_a_kind_fails_when_the_lower_bound_of_its_pooled_precision_reaches_the_target():
    assert MIN_PRECISION == 0.85
    assert measured_failing([row("name", 1, 30), row("name", 2, 40)]) == {
        "name"
    }  # 3 / 70 of 200 each: 0.959, bound 0.902
    # no set vetoes: 0.70 on a small set moves the pooled figure by its share of the firings (0.957, bound 0.898)
    assert measured_failing([row("name", 0, 60), row("name", 3, 7)]) == {"name"}
    # a rare kind cannot reach the bound: 11 firings, all on bad answers, bound 0.803; 16 of them: 0.855
    assert measured_failing([row("time", 0, 6), row("time", 0, 5)]) == frozenset()
    assert measured_failing([row("time", 0, 8), row("time", 0, 8)]) == {"time"}
    assert measured_failing([row("time", 0, MIN_FIRINGS - 1)]) == frozenset()
    # precise, but on too few answers to be sure: 1 good and 20 bad, 0.952 with a bound of 0.812; with 40 bad, 0.898
    assert measured_failing([row("name", 1, 20)]) == frozenset()
    assert measured_failing([row("name", 1, 40)]) == {"name"}
    # a set whose labels do not judge support by the context alone is shown, not gated on
    assert measured_failing([row("name", 1, 30), row("name", 2, 40), row("name", 40, 40, gates=False)]) == {"name"}
    assert measured_failing([row("name", 40, 40, gates=False)]) == frozenset()
    # the two classes weigh 1:1: twice as many bad answers do not make a kind look precise
    assert measured_failing([row("date", 10, 40, good=100, bad=200)]) == frozenset()
    pooled = pooled_precision([row("date", 10, 40, good=100, bad=200), row("date", 0, 0, good=50, bad=0)])
    assert pooled["date"]["precision"] == pytest.approx(2 / 3) and pooled["date"]["lower"] == pytest.approx(
        0.551, abs=1e-3
    )


def test_the_bound_is_the_one_sided_95_percent_wilson_score_bound():
    proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint
    for bad, firings in ((16, 16), (15, 16), (70, 73), (1, 3), (0, 5)):
        low, _ = proportion_confint(bad, firings, alpha=0.10, method="wilson")  # a two-sided 90% interval's lower end
        assert wilson_lower_bound(bad / firings, firings) == pytest.approx(low)
    assert wilson_lower_bound(1.0, 0) == 0.0


def test_the_default_kinds_are_the_measured_ones():
    """``benchmarks/results/evidence_kinds.json`` is the committed measurement; tools/docs_pages.py writes FAILING."""
    import pathlib

    measured = json.loads(
        (pathlib.Path(__file__).parents[2] / "benchmarks" / "results" / "evidence_kinds.json").read_text()
    )
    assert measured_failing(measured) == FAILING
    assert {r["kind"] for r in measured} == set(KIND_IDS)


pytest.importorskip("sentence_transformers")

MUSEUM = [
    "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. from Monday to Friday. Entry is free for children under "
    "12."
]
RECORD = {
    "name": "Blue Door Cafe",
    "city": "Fresno",
    "state": "CA",
    "stars": 4.5,
    "review_count": 87,
    "hours": {"Monday": "10:0-20:0", "Sunday": "12:0-16:0"},
    "attributes": {"WiFi": None, "OutdoorSeating": True},
}


def test_evidence_of_a_kind_that_only_warns_leaves_the_answer_unverified_naming_the_concern(make):
    answer = dict(actual="The Harbour Museum opens at 9 a.m.; the curator is Maria Lopez.", context=MUSEUM)
    failing = one(make("groundedness", fail_on="all"), **answer)
    assert failing.verdict == "fail" and kinds(failing, fails=True) == {"name"}
    warned = one(make("groundedness", fail_on=["number"]), **answer)
    assert warned.verdict == "unverified" and warned.passed and kinds(warned, fails=False) == {"name"}
    assert warned.metrics["evidence"] == 0 and warned.metrics["concerns"] == 1
    assert (
        "concern (name: a kind that only warns, see fail_on): 'Maria Lopez' (sentence 1) appears nowhere"
        in warned.reason
    )
    assert warned.signature.params["fail_on"] == "number" and failing.signature.params["fail_on"] == ",".join(
        sorted(KIND_IDS)
    )


def test_a_changed_number_fails_at_any_size_naming_both(make):
    context = ["Refunds are issued within 5 business days of the return being received."]
    result = one(make("groundedness"), actual="Refunds are issued within 10 business days.", context=context)
    assert result.verdict == "fail", result.reason
    assert (
        "'10' (sentence 1) is not what the context says: it says '5' ('Refunds are issued within 5 business days"
        in result.reason
    )
    assert kinds(result) == {"changed_number"}
    # merely absent, a small count stays weak
    absent = one(
        make("groundedness"),
        actual="Refunds are issued within 10 business days.",
        context=["Refunds are issued quickly."],
    )
    assert "changed_number" not in kinds(absent)


def test_a_reworded_step_is_not_failed(make):
    result = one(
        make("groundedness"),
        actual="File the claim on the support page.",
        context=["A warranty claim can be filed on the support page within 30 days of purchase."],
    )
    assert result.verdict in ("pass", "unverified"), result.reason


@pytest.mark.parametrize("form", ["dict", "json", "literal"])
def test_a_record_context_is_read_as_facts_in_any_format(make, form):
    context = {"dict": RECORD, "json": json.dumps(RECORD), "literal": str(RECORD)}[form]
    grounded = make("groundedness", fail_on="all")
    right = one(
        grounded,
        actual="Blue Door Cafe in Fresno, California, opens at 10 am and closes at 8 pm on Mondays. "
        "It has a 4.5-star rating and outdoor seating.",
        context=context,
    )
    assert right.verdict != "fail", right.reason
    changed = one(grounded, actual="On Mondays it opens at 9 am.", context=context)
    assert (
        changed.verdict == "fail"
        and "'9 am' (sentence 1) is not what the record says: hours.Monday is '10:0-20:0'" in changed.reason
    )
    # the field named is the one the sentence speaks of where the number stands, not the first that fits
    days = one(grounded, actual="It opens at 10 am on Mondays and at 9 am on Sundays.", context=context)
    assert "'9 am' (sentence 1) is not what the record says: hours.Sunday is '12:0-16:0'" in days.reason, days.reason
    reviews = one(grounded, actual="It has a 4.5-star rating from 178 reviews.", context=context)
    assert "'178' (sentence 1) is not what the record says: review_count is 87" in reviews.reason, reviews.reason
    null = one(grounded, actual="The cafe offers free WiFi.", context=context)
    assert "null_field" in kinds(null) and "attributes.WiFi is not given" in null.reason
    assert "name" not in kinds(null)  # the key is named in the record, its value is not


@pytest.mark.parametrize(
    "answer",
    [
        "Based on the provided passages, the museum opens at 9 a.m. on weekdays.",
        "According to the context, entry is free for children under 12. I hope this helps!",
        "Here is a summary of the information in 25 words: the museum opens at 9 a.m. on weekdays.",
        "## Opening hours\n\n- **Opens:** 9 a.m.\n- **Closes:** 5 p.m.\n\nLet me know if you have any further "
        "questions.",
        "1. The museum opens at 9 a.m.\n2. It closes at 5 p.m.\n3. Children under 12 enter free.",
    ],
)
def test_words_about_the_answer_or_the_sources_are_not_checked(make, answer):
    result = one(make("groundedness", fail_on="all"), actual=answer, context=MUSEUM)
    assert result.verdict != "fail" and not kinds(result), result.reason


def test_a_refusal_is_recorded_and_left_unverified(make):
    result = one(
        make("groundedness", fail_on="all"),
        actual="The passages do not mention the ticket price for adults.",
        context=MUSEUM,
    )
    assert result.verdict == "unverified" and list(result.details["refusal"]) == [1] and "a refusal" in result.reason


@settings(max_examples=20, deadline=None)
@given(hour=st.integers(1, 11), minute=st.sampled_from([0, 15, 30, 45]), changed=st.integers(1, 11))
def test_a_time_written_another_way_is_the_same_fact_and_a_changed_one_fails(models, hour, minute, changed):
    from pytest_llmeval import Registry

    grounded = Registry(entry_points=False).create("groundedness", fail_on="all", entities="rules")
    grounded.bind(models)
    record = {"hours": {"Friday": f"{hour}:{minute}-{hour + 12}:{minute}"}}
    spoken = f"{hour}:{minute:02d} am" if minute else f"{hour} am"
    right = one(grounded, actual=f"On Friday it opens at {spoken}.", context=str(record))
    assert not kinds(right) & {"time", "changed_number"}, right.reason
    if changed != hour:
        wrong = one(grounded, actual=f"On Friday it opens at {changed} am.", context=str(record))
        assert wrong.verdict == "fail" and "hours.Friday" in wrong.reason, wrong.reason


@pytest.mark.subprocess
def test_the_run_chooses_the_failing_kinds(pytester: pytest.Pytester):
    pytester.makepyfile("""
        from pytest_llmeval import assert_grounded

        def test_curator():
            assert_grounded("The curator is Maria Lopez.", ["The museum opens at 9 a.m."], entities="rules")
    """)
    bad = pytester.runpytest("--llmeval-fail-on=nmae", "-p", "no:randomly")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--llmeval-fail-on*unknown evidence kind 'nmae'*"])
    assert pytester.runpytest("--llmeval-fail-on=name", "-p", "no:randomly").ret == pytest.ExitCode.TESTS_FAILED
    assert pytester.runpytest("--llmeval-fail-on=number", "-p", "no:randomly").ret == pytest.ExitCode.OK
    pytester.makeini("[pytest]\nllmeval_fail_on = measured, name\n")
    assert pytester.runpytest("-p", "no:randomly").ret == pytest.ExitCode.TESTS_FAILED  # the ini file's kinds
    # the command line wins
    assert pytester.runpytest("-p", "no:randomly", "--llmeval-fail-on=none").ret == pytest.ExitCode.OK


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["Silver", "Gold", "Diamond"]), st.sampled_from(["Play Button", "Creator Award", "Channel Plaque"])
)
def test_a_name_whose_other_words_the_question_gives_is_no_concern(make, tier, award):
    context = ["Silver: 100,000 subscribers. Gold: 1,000,000 subscribers. Diamond: 10,000,000 subscribers."]
    answer = f"The {tier} {award} is awarded at the subscriber count the channel reaches."
    asked = one(
        make("groundedness", fail_on="all"),
        actual=answer,
        context=context,
        question=f"When does a channel get each {award}?",
    )
    assert "name_part" not in kinds(asked), asked.reason
    unasked = one(make("groundedness", fail_on="all"), actual=answer, context=context)
    assert "name_part" in kinds(unasked), unasked.reason


def test_a_name_the_answer_cites_as_its_source_is_no_concern(make):
    context = ["The average weekly earnings for all employees in Australia is AU$1,344, according to the Bureau."]
    cited = one(
        make("groundedness", fail_on="all"),
        context=context,
        actual="According to Jobted Australia, the average weekly earnings for all employees is AU$1,344.",
    )
    assert not kinds(cited) & {"name", "name_part"}, cited.reason


@pytest.mark.parametrize(
    ("answer", "invented"),
    [
        ("Soybean is grown in many countries, and Brazil accounts for the largest production.", False),
        ("Keep the litter box clean, and never punish pets in one room.", False),
        ("Keep the litter box clean, and the cat prefers salmon biscuits daily.", True),
    ],
)
def test_a_clause_whose_words_the_context_holds_in_another_form_is_not_invented(make, answer, invented):
    context = [
        "Soybean is grown commercially in many countries, with the USA and Brazil accounting for 90% of the crop.",
        "Keep the litter box clean. Punishing your cat for accidents makes things worse.",
    ]
    result = one(make("groundedness", fail_on="all"), actual=answer, context=context)
    assert ("clause" in kinds(result)) is invented, result.reason


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ("The novel was written by Jacques Curie in 1911.", True),
        ("The novel was published by Harbour Press in 1911.", True),
        ("According to the Harbour Gazette, the novel appeared in 1911.", False),
        ("A study published in Nature says the novel appeared in 1911.", False),
    ],
)
def test_a_name_is_a_source_only_where_the_answer_cites_it(make, answer, named):
    context = ["The novel was written by Marie Curie and appeared in 1911 from Lindqvist Books."]
    result = one(make("groundedness", fail_on="all"), actual=answer, context=context)
    assert bool(kinds(result) & {"name", "name_part", "changed_name"}) is named, result.reason


@pytest.mark.parametrize(
    "answer",
    [
        "However, a Harbour Gazette survey found that two-thirds of readers cycle to work.",
        "The Lindqvist Institute's study shows that two-thirds of readers cycle to work.",
    ],
)
def test_a_name_the_answer_cites_before_its_finding_is_no_concern(make, answer):
    result = one(
        make("groundedness", fail_on="all"),
        actual=answer,
        context=["Two-thirds of readers cycle to work, and a third of them in the rain."],
    )
    assert not kinds(result) & {"name", "name_part"}, result.reason


def test_a_name_spelled_with_a_letter_doubled_is_the_context_s_name(make):
    context = ["Sourabh Raaj Jain (born 1 December 1985) is an Indian actor who played Lord Krishna in Mahabharat."]
    same = one(
        make("groundedness", fail_on="all"),
        actual="Saurabh Raj Jain played Lord Krishna in Mahabharat.",
        context=context,
    )
    assert not kinds(same) & {"name", "name_part", "changed_name"}, same.reason
    other = one(
        make("groundedness", fail_on="all"),
        actual="Saurabh Ravi Jain played Lord Krishna in Mahabharat.",
        context=context,
    )
    assert kinds(other) & {"name", "name_part", "changed_name"}, other.reason
