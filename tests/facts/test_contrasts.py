"""Contradictions a person sees at once (opposite predicates, a name with one word changed), invented clauses, and
claims a record field states whole: the pure readers on generated variants, then groundedness naming each as
evidence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.contrasts import (
    GROUPS,
    OPPOSITES,
    ClauseIndex,
    changed_name,
    head_index,
    invented_clauses,
    opposite,
)
from pytest_llmeval.facts.layer import content_stems
from pytest_llmeval.facts.fields import confirming_field
from pytest_llmeval.facts.records import read_record

from tests.verdicts import kinds, one

#: (word, its opposite) for every pair of groups, one word of each.
PAIRS = sorted((min(GROUPS[a]), min(GROUPS[b])) for a, b in (sorted(pair) for pair in OPPOSITES))

SUBJECTS = [
    "The pharmacy",
    "The ferry terminal",
    "Quarterly revenue",
    "The city council",
    "The harbour ferry",
    "Membership",
]
TAILS = ["on national holidays", "in March", "for the second year", "during the renovation", "after the audit"]


@settings(max_examples=60, deadline=None)
@given(pair=st.sampled_from(PAIRS), subject=st.sampled_from(SUBJECTS), tail=st.sampled_from(TAILS), flip=st.booleans())
def test_an_opposite_predicate_of_the_same_thing_is_found_and_the_same_one_is_not(pair, subject, tail, flip):
    said, instead = pair if flip else pair[::-1]
    index = ClauseIndex([f"{subject} was {instead} {tail}."])
    [found] = index.contrasts(f"{subject} was {said} {tail}.")
    assert (found.said, found.instead) == (said, instead)
    assert found.describe("sentence 1").startswith(f"sentence 1 says {said!r} where the context says {instead!r}")
    assert index.contrasts(f"{subject} was {instead} {tail}.") == []
    # a negation on one side turns the opposite into agreement ("not open" is "closed")
    assert index.contrasts(f"{subject} was not {said} {tail}.") == []


@pytest.mark.parametrize(
    ("word", "other"),
    [
        ("nonrefundable", "refundable"),
        ("non-refundable", "refundable"),
        ("unavailable", "available"),
        ("ineligible", "eligible"),
        ("illegal", "legal"),
        ("irregular", "regular"),
        ("insufficient", "sufficient"),
    ],
)
def test_a_negative_prefix_makes_an_opposite(word, other):
    assert opposite(word, other) and opposite(other, word)


@pytest.mark.parametrize(
    ("word", "other"),
    [
        ("unless", "less"),
        ("under", "der"),
        ("open", "opened"),
        ("invent", "vent"),
        ("discover", "cover"),
        ("income", "come"),
        ("informed", "formed"),
    ],
)
def test_a_word_that_merely_begins_like_a_negative_is_no_opposite(word, other):
    assert not opposite(word, other)


def test_another_subject_or_other_words_around_the_predicate_are_no_contrast():
    index = ClauseIndex(
        [
            "Arsenal lost to Chelsea in the final.",
            "The gift shop is closed on Mondays.",
            "The pharmacy is closed on national holidays and open every weekday.",
        ]
    )
    assert index.contrasts("Chelsea won the final against Arsenal.") == []  # the same event told from the other side
    assert index.contrasts("The museum is open on Mondays.") == []  # another thing the context speaks of
    [found] = index.contrasts("The pharmacy is open on national holidays.")
    assert found.context == "The pharmacy is closed on national holidays"


NAMES = [("Marie", "Pierre"), ("Harold", "Gordon"), ("Agnes", "Beatrice"), ("Tomas", "Viktor")]
SURNAMES = ["Curie", "Lindqvist", "Okafor", "Moreau"]


@settings(max_examples=40, deadline=None)
@given(given_names=st.sampled_from(NAMES), surname=st.sampled_from(SURNAMES))
def test_a_person_with_the_context_surname_and_another_given_name_is_a_changed_name(given_names, surname):
    right, wrong = given_names
    names = [((right.lower(), surname.lower()), f"{right} {surname}")]
    assert (
        changed_name((wrong.lower(), surname.lower()), f"{wrong} {surname}", names, lambda w: False)
        == f"{right} {surname}"
    )
    # a short form of the same given name is not another person
    assert changed_name((right[:3].lower(), surname.lower()), f"{right[:3]} {surname}", names, lambda w: False) is None


@settings(max_examples=40, deadline=None)
@given(
    field=st.sampled_from([("Physics", "Chemistry"), ("Medicine", "Literature"), ("Warsaw", "Krakow")]),
    head=st.sampled_from(["Prize", "University", "Institute"]),
)
def test_a_compound_name_whose_complement_differs_is_changed_but_one_whose_head_differs_is_not(field, head):
    said, instead = field
    names = [(("nobel", head.lower(), instead.lower()), f"Nobel {head} of {instead}")]
    keys = ("nobel", head.lower(), said.lower())
    assert head_index(keys, f"Nobel {head} of {said}") == 1
    assert changed_name(keys, f"Nobel {head} of {said}", names, lambda w: False) == f"Nobel {head} of {instead}"
    assert (
        changed_name(
            ("summer", "games"), "Summer Games", [(("summer", "olympics"), "Summer Olympics")], lambda w: False
        )
        is None
    )
    # the changed word found elsewhere in the context is no evidence of a changed name
    assert changed_name(keys, f"Nobel {head} of {said}", names, lambda w: w == said.lower()) is None


@settings(max_examples=30, deadline=None)
@given(
    joint=st.sampled_from([", and", ", which", "; also,", " and also"]),
    invented=st.sampled_from(
        ["shipping costs are also reimbursed", "loyalty members receive a voucher", "gift wrapping comes free"]
    ),
)
def test_a_clause_sharing_no_word_with_the_context_is_invented_and_a_supported_one_is_not(joint, invented):
    context = ["Refunds are issued within 5 business days to the original payment method."]
    stems = {s for sentence in context for s in content_stems(sentence)}
    [(part, words)] = invented_clauses(
        f"Refunds are issued within 5 business days{joint} {invented}.", stems, set(), content_stems
    )
    assert part.endswith(f"{invented}.") and words and all(w in invented for w in words)
    assert (
        invented_clauses(
            f"Refunds are issued within 5 business days{joint} to the original payment method.",
            stems,
            set(),
            content_stems,
        )
        == []
    )


def test_a_record_field_that_states_the_whole_claim_confirms_it():
    record = read_record(
        {"hours": {"Monday": "9:00-17:00", "Sunday": "closed"}, "prices": {"paperback": 8.5, "hardcover": 21}}
    )
    assert confirming_field(record, "The shop is closed on Sundays.", []) == "hours.Sunday is 'closed'"
    from pytest_llmeval.facts.collect import extract_facts

    paperback = "A paperback costs $8.50."
    assert confirming_field(record, paperback, extract_facts(paperback)) == "prices.paperback is 8.5"
    hardcover = "A hardcover costs $8.50."
    assert confirming_field(record, hardcover, extract_facts(hardcover)) is None  # the price is another field's
    assert confirming_field(record, "The shop is closed on Sundays and public holidays.", []) is None


pytest.importorskip("sentence_transformers")


@pytest.mark.parametrize(
    ("context", "answer", "kind", "quoted"),
    [
        (
            ["The pharmacy is closed on national holidays and open every weekday."],
            "The pharmacy is open on national holidays.",
            "antonym",
            "sentence 1 says 'open' where the context says 'closed': 'The pharmacy is closed on national holidays'",
        ),
        (
            ["The city council rejected the stadium proposal in March."],
            "The city council approved the stadium proposal in March.",
            "antonym",
            "says 'approved' where the context says 'rejected'",
        ),
        (
            ['{"hours": {"Monday": "9:00-17:00", "Sunday": "closed"}}'],
            "The shop is open on Sundays.",
            "antonym",
            "says 'open' where the context says 'closed': 'hours Sunday: closed.'",
        ),
        (
            ["Marie Curie received the Nobel Prize in Chemistry in 1911."],
            "Jacques Curie received the Nobel Prize in Chemistry in 1911.",
            "changed_name",
            "'Jacques Curie' (sentence 1) is not the context's name: it says 'Marie Curie'",
        ),
        (
            ["Marie Curie received the Nobel Prize in Chemistry in 1911."],
            "Marie Curie received the Nobel Prize in Medicine in 1911.",
            "changed_name",
            "it says 'the Nobel Prize in Chemistry'",
        ),
        (
            ["Returns are accepted within 30 days of delivery."],
            "Returns are accepted within 30 days, and postage is also paid by the store.",
            "clause",
            "sentence 1 adds a clause of its own: 'postage is also paid by the store.'",
        ),
    ],
)
def test_groundedness_names_each_contradiction_as_evidence(make, context, answer, kind, quoted):
    result = one(make("groundedness", fail_on="all"), actual=answer, context=context)
    assert result.verdict == "fail" and kind in kinds(result) and quoted in result.reason, result.reason


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (['{"hours": {"Monday": "9:00-17:00", "Sunday": "closed"}}'], "The shop is closed on Sundays."),
        (['{"prices": {"paperback": 8.5, "hardcover": 21}}'], "A paperback costs $8.50."),
        (
            ["The 2024 Summer Olympics took place in Paris from 26 July to 11 August."],
            "The 2024 Summer Games were held in Paris.",
        ),
    ],
)
def test_faithful_answers_of_the_same_shapes_are_not_failed(make, context, answer):
    result = one(make("groundedness", fail_on="all"), actual=answer, context=context)
    assert result.verdict != "fail" and not kinds(result), result.reason
    if context[0].startswith("{"):
        assert result.verdict == "pass" and "the record states it" in result.reason, result.reason


MONTH_NAMES = ["January", "March", "June", "September", "November"]


@settings(max_examples=40, deadline=None)
@given(
    first=st.integers(1, 14),
    length=st.integers(1, 12),
    month=st.sampled_from(MONTH_NAMES),
    joint=st.sampled_from(["to", "-", "and", "until"]),
    year=st.integers(1990, 2030),
)
def test_a_range_of_days_states_both_ends_and_a_year_added_to_a_yearless_date_is_no_evidence(
    first, length, month, joint, year
):
    from pytest_llmeval.facts.collect import extract_facts
    from pytest_llmeval.facts.extract import FactIndex

    last = first + length
    spaced = f" {joint} " if joint != "-" else "-"
    index = FactIndex(f"The festival runs from {first}{spaced}{last} {month}.")
    for day in (first, last):
        [date] = [f for f in extract_facts(f"It opens on {day} {month}.") if f.kind == "date"]
        assert index.supports(date)
    [outside] = [f for f in extract_facts(f"It opens on {last + 1} {month}.") if f.kind == "date"]
    assert not index.supports(outside)
    [with_year] = [f for f in extract_facts(f"It opens on {first} {month} {year}.") if f.kind == "date"]
    assert index.yearless(with_year) and not FactIndex(f"It opened on {first} {month} {year - 1}.").yearless(with_year)
