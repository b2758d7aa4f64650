"""Comparisons the context's own dates or figures reverse ("A was born before B" where the context gives A the later
year): the reader on generated variants, then groundedness naming it as a concern, or failing on it when asked."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.order import reversed_orders

from tests.verdicts import kinds, one

GIVEN = ["Elena", "Tomas", "Ingrid", "Kwame", "Priya", "Mateo"]
FAMILY = ["Vasquez", "Lindqvist", "Okafor", "Brennan", "Takahashi", "Moreau"]
TITLES = ["Low Tide", "Glass Harbour", "Northern Lights", "Quiet Rooms", "Paper Kites"]

people = st.tuples(st.sampled_from(GIVEN), st.sampled_from(FAMILY)).map(" ".join)


def _born(name: str, year: int) -> str:
    return f"{name} (born 4 May {year}) is a member of the board."


@settings(max_examples=60, deadline=None)
@given(
    first=people,
    second=people,
    years=st.tuples(st.integers(1900, 2005), st.integers(1900, 2005)),
    template=st.sampled_from(
        ["{a} was born before {b}.", "{a} is older than {b}.", "{b} was born after {a}.", "{b} is younger than {a}."]
    ),
)
def test_a_time_order_is_reversed_when_the_context_gives_the_earlier_year_to_the_other(first, second, years, template):
    assume(first.split()[1] != second.split()[1] and first.split()[0] != second.split()[0] and years[0] != years[1])
    early, late = sorted(years)
    claim = template.format(a=first, b=second)  # says: first is the earlier
    right = [_born(first, early), _born(second, late)]
    wrong = [_born(first, late), _born(second, early)]
    assert reversed_orders(claim, None, right) == []
    [found] = reversed_orders(claim, None, wrong)
    assert {found.first, found.second} == {first, second}
    assert str(late) in found.describe("sentence 1") and str(early) in found.describe("sentence 1")


@settings(max_examples=40, deadline=None)
@given(
    titles=st.permutations(TITLES).map(lambda t: t[:2]),
    years=st.tuples(st.integers(1960, 2024), st.integers(1960, 2024)),
    short=st.booleans(),
)
def test_a_short_answer_makes_the_question_s_comparison(titles, years, short):
    assume(years[0] != years[1])
    first, second = titles
    question = f"Was {first} or {second} released first?"
    context = [f"The album {first} came out in {years[0]}.", f"Their record {second} followed in {years[1]}."]
    picked = first if years[0] > years[1] else second  # the later one, named as the first
    answer = picked if short else f"{picked} was released first."
    [found] = reversed_orders(answer, question, context)
    assert found.first == picked
    other = second if picked == first else first
    assert reversed_orders(other if short else f"{other} was released first.", question, context) == []


@settings(max_examples=40, deadline=None)
@given(counts=st.tuples(st.integers(2, 400), st.integers(2, 400)), more=st.booleans())
def test_more_or_fewer_is_read_from_the_numbers_before_the_same_noun(counts, more):
    assume(counts[0] != counts[1])
    context = [
        f"Abies is a genus of {counts[0]} species of conifers.",
        f"Chelone is a genus of {counts[1]} species of plants.",
    ]
    word = "more" if more else "fewer"
    claim = f"Chelone has {word} species than Abies."
    wrong = counts[1] < counts[0] if more else counts[1] > counts[0]
    assert bool(reversed_orders(claim, None, context)) == wrong


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # no year for one of them: nothing to read
        (
            "Ana Lindqvist was born before Tom Okafor.",
            ["Ana Lindqvist (born 1950) is a judge.", "Tom Okafor is a judge too."],
        ),
        # the same year, one without its day
        (
            "Ana Lindqvist is older than Tom Okafor.",
            ["Ana Lindqvist (born 1950) is a judge.", "Tom Okafor (born 3 May 1950) sits too."],
        ),
        # the two in one sentence: whose year is whose is not read
        ("Ana Lindqvist is older than Tom Okafor.", ["Tom Okafor and Ana Lindqvist were born in 1950 and 1960."]),
        # "more often" counts nothing
        (
            "Modern Drummer is published more often than Bookmarks.",
            ["Modern Drummer appears 12 times a year.", "Bookmarks appears 6 times a year."],
        ),
    ],
)
def test_no_order_is_read_where_the_figures_do_not_say_one(claim, context):
    assert reversed_orders(claim, None, context) == []


pytest.importorskip("sentence_transformers")


CONTEXT = [
    "Allan Dwan (3 April 1885 - 28 December 1981) was a Canadian-born film director.",
    "George E. Marshall (December 29, 1891 - February 17, 1975) was an American actor and director.",
]


def test_groundedness_names_a_reversed_order_and_fails_on_it_when_asked(make):
    question = "Who was born first, George Marshall or Allan Dwan?"
    wrong = "George Marshall was born before Allan Dwan."
    concern = one(make("groundedness"), actual=wrong, context=CONTEXT, question=question)
    assert concern.verdict == "unverified" and kinds(concern) == {"order"}, concern.reason
    assert "the context gives 'George Marshall' 1891 and 'Allan Dwan' 1885" in concern.reason
    failed = one(make("groundedness", fail_on="measured,order"), actual=wrong, context=CONTEXT, question=question)
    assert failed.verdict == "fail" and "reverses the context's order" in failed.reason, failed.reason
    for right in ("Allan Dwan was born before George Marshall.", "Allan Dwan"):
        result = one(make("groundedness", fail_on="measured,order"), actual=right, context=CONTEXT, question=question)
        assert "order" not in kinds(result) and result.verdict != "fail", result.reason
