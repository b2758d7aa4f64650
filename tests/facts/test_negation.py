"""Negation flips: an answer clause that denies what the context clause it restates asserts, or the reverse; and the
wordings that look negated but deny nothing the context says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.negation import clause_index, cue_scopes, negated, polarity_conflict

SUBJECTS = [
    "The museum",
    "Sale items",
    "The Standard plan",
    "The ferry",
    "Our clinic",
    "The library card",
    "The warranty",
    "Pets",
    "The east wing",
    "Late entries",
]
PREDICATES = [
    "open on public holidays",
    "refundable after thirty days",
    "covered by the insurance policy",
    "allowed in the reading room",
    "included in the annual membership",
    "available to overseas students",
    "dishwasher safe",
    "eligible for the spring discount",
]
VERB_PHRASES = [
    ("supports", "support", "database backups"),
    ("requires", "require", "a signed permit"),
    ("accepts", "accept", "cash payments"),
    ("serves", "serve", "breakfast before noon"),
]


def conflict(context: str, answer: str) -> str | None:
    return polarity_conflict(clause_index([context]), answer)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SUBJECTS), st.sampled_from(PREDICATES), st.booleans())
def test_a_copula_clause_with_its_negation_flipped_conflicts(subject, predicate, context_negated):
    said, flipped = f"{subject} is not {predicate}.", f"{subject} is {predicate}."
    context, answer = (said, flipped) if context_negated else (flipped, said)
    assert conflict(context, answer) == context
    assert conflict(context, context) is None


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["The company", "Our service", "The hotel", "The Basic tier"]),
    st.sampled_from(VERB_PHRASES),
    st.sampled_from(["does not", "doesn't", "never"]),
)
def test_a_verb_clause_with_its_negation_flipped_conflicts(subject, verb, cue):
    third, base, obj = verb
    denied = f"{subject} {cue} {third if cue == 'never' else base} {obj}."
    assert conflict(denied, f"{subject} {third} {obj}.") is not None
    assert conflict(f"{subject} {third} {obj}.", denied) is not None


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SUBJECTS), st.sampled_from(PREDICATES), st.sampled_from(["Monday", "the spring", "2019"]))
def test_not_until_dates_an_event_rather_than_denying_it(subject, predicate, when):
    assert not negated(f"{subject} was not {predicate} until {when}.")
    assert conflict(f"{subject} was not {predicate} until {when}.", f"{subject} was {predicate} in {when}.") is None


def test_whether_or_not_denies_nothing():
    assert not negated("The debate is about whether or not genetically modified foods should be labeled.")
    assert (
        conflict(
            "In the ongoing debate about whether or not genetically modified foods should be labeled, some "
            "maintain that consumers should know.",
            "There is ongoing debate about whether genetically modified foods should be labeled.",
        )
        is None
    )


def test_not_yet_bears_on_what_follows_and_no_longer_is_no_cue():
    assert conflict("The east wing is not yet open to visitors.", "The east wing is open to visitors.") is not None
    assert not negated("The call lasts no longer than five minutes.")


def test_a_denial_of_another_thing_is_no_conflict():
    """The negation must bear on what both clauses hold: "not in orbit around the Earth" says nothing against "orbits
    the Sun", and "not currently a character" nothing against "a fictional character"."""
    context = (
        "The James Webb Space Telescope is not in orbit around the Earth, like the Hubble Space Telescope is - it "
        "actually orbits the Sun."
    )
    assert conflict(context, "The James Webb Space Telescope orbits the Sun, 1.5 million kilometres away.") is None
    assert conflict(context, "The James Webb Space Telescope orbits the Earth.") is not None
    assert (
        conflict(
            'Abi Branning is a fictional character from the soap opera "EastEnders".',
            "Abi Branning is not currently a character on EastEnders.",
        )
        is None
    )


def test_an_answer_that_restates_the_context_clause_is_not_flipping_it():
    context = "I-75 is the longest Interstate Highway within Georgia."
    assert (
        conflict(
            context,
            "Although I-75 is the longest Interstate Highway within Georgia, it is not the longest highway in Georgia.",
        )
        is None
    )
    assert conflict(context, "I-75 is not the longest Interstate Highway within Georgia.") == context


@pytest.mark.parametrize(
    ("clause", "words"),
    [
        ("The kettle is not dishwasher safe at all", [("dishwasher", "safe")]),
        ("It was not founded until 1608", []),
        ("Nobody came", [("came",)]),
        ("It is not cheap, and never late", [("cheap", "late"), ("late",)]),
    ],
)
def test_a_cue_bears_on_the_two_content_words_after_it(clause, words):
    from pytest_llmeval.facts.names import word_stem

    assert cue_scopes(clause) == [{word_stem(w) for w in scope} for scope in words]
