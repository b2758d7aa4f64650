"""The fact layer: extraction, normalisation and support look-ups (no model needed)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.collect import extract_facts
from pytest_llmeval.facts.extract import FactIndex, check_facts, unsupported_facts
from pytest_llmeval.facts.numerals import parse_number
from pytest_llmeval.facts.parsing import canonical_numbers, detokenize_numbers


def texts(text):
    return [f.text for f in extract_facts(text)]


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("1,280", 1280.0),
        ("1280", 1280.0),
        ("15.9 million", 15_900_000.0),
        ("15,900,000", 15_900_000.0),
        ("twenty-one", 21.0),
        ("12", 12.0),
        ("3.5bn", 3.5e9),
        (".5", 0.5),
    ],
)
def test_numbers_are_read_with_their_magnitude(written, value):
    assert parse_number(written)[0] == pytest.approx(value)


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The tower is 1,280 metres tall.", "It rises 1280 m above the valley."),
        ("Revenue was 15.9 million.", "Revenue reached 15,900,000 in 2023."),
        ("It took two days.", "Shipping takes 48 hours."),
        ("The route is 1.28 km long.", "The route measures 1,280 metres."),
        ("Growth was 45 percent.", "Growth: 45%."),
        ("It raised $3.5 billion.", "The company raised 3.5 billion dollars."),
        ("He was born on 6 May 1825.", "Born May 6, 1825, in Leeds."),
        ("Released on 1825-05-06.", "released 6 May 1825"),
        ("Open until 6 p.m.", "Opening hours: 10:00 to 18:00."),
        ("There are twelve members.", "The board has 12 members."),
        ("Sales were about 16 billion.", "Sales were 15,969 million."),
        ("She is American.", "She was born in America."),
        ("He moved to the U.S. in 1990.", "In 1990 he emigrated to the US."),
        ("José Martí wrote it.", "Written by Jose Marti."),
        ("The ZURICH office closed.", "The zurich office"),
        ("250 people died in 2019.", "In 2019, 250 people died."),
        ("About 2.5M people live there.", "About 2.5 million people live there."),
        ("The deal was worth 5m euros.", "It was worth €5 million."),
        ("Twenty people came.", "20 people came."),
        ("Approximately 330 metres.", "It is 330 m tall."),
        ("Canadians and Italians came.", "Visitors from Canada and Italy came."),
        ("The orbit part is 24 mm long.", "Lengths are 1\u00a0mm in the globe and 24\u00a0mm in the orbit."),
        ("Sales exceeded 1.73 million.", "By March 2004 sales exceeded 1.73\u202fmillion."),
        ("The area is 232,752 km.", "The total area of Bengal is 232,752 \u00a0km."),
        ("It premiered on June 10, 1865.", "It premiered on 10\u00a0June 1865 in Munich."),
        ("Babylon fell in 539 BC.", "In 539 B.C., the armies of Cyrus conquered Babylon."),
        ("HunterGirl was the oldest.", "Of the three finalists, Hunter Girl was the oldest."),
        ("They won Super Bowl XXX.", "The cowboys last won a superbowl in 1996: XXX, Dallas 27."),
        ("Peter Parker is Spider Man.", "Peter Parker is Spiderman."),
        ("The Stoic philosophy spread.", "Stoicism played a key role."),
        ("He was a Buddhist monk.", "Buddhism reached Japan in 552."),
    ],
)
def test_the_same_fact_written_two_ways_is_supported(answer, context):
    assert unsupported_facts(answer, context) == [], [f.text for f in unsupported_facts(answer, context)]


@pytest.mark.parametrize(
    ("answer", "context", "named"),
    [
        ("The tower is 500 metres tall.", "The tower is 330 metres tall.", "500 metres"),
        ("The capital of Australia is Sydney.", "The capital of Australia is Canberra.", "Sydney"),
        ("Revenue was 15.2 million.", "Revenue was 15.9 million.", "15.2 million"),
        ("It was finished in 1899.", "It was finished in 1889.", "1899"),
        ("It opened on 7 May 1825.", "It opened on 6 May 1825.", "7 May 1825"),
        ("The price is €40.", "The price is $40.", "€40"),
        ("It is 330 feet tall.", "It is 330 metres tall.", "330 feet"),
        ("Lance plays at the Lucas Oil Stadium.", "Lance plays at Bankers Life Fieldhouse.", "Lucas Oil Stadium"),
        ("In 2021, 250 people were injured.", "In 2021, 900 people were injured.", "250"),
        ("It was signed by President Parker.", "It was signed by President Carter in a park.", "President Parker"),
        ("Paula Smith won.", "Paul Smith won.", "Paula Smith"),
        ("The temperature was -40 degrees.", "The temperature was 40 degrees.", "-40 degrees"),
    ],
)
def test_a_changed_fact_is_named(answer, context, named):
    assert named in [f.text for f in unsupported_facts(answer, context)]


def test_tokenised_numbers_are_joined():
    assert detokenize_numbers("viewed 235, 000 times, in 98. 7 per cent") == "viewed 235,000 times, in 98.7 per cent"
    assert unsupported_facts("It was viewed 235,000 times.", "viewed more than 235, 000 times") == []


def test_sentence_initial_words_and_titles():
    assert texts("Patti Smith is Irish-American.") == ["Patti Smith", "Irish-American"]
    assert texts("However, the report was late.") == []
    assert "President" not in " ".join(f.value[0] for f in extract_facts("President Obama spoke.") if f.kind == "name")
    # a title the context leaves out does not make the name unsupported
    assert unsupported_facts("President Obama spoke.", "Barack Obama spoke in Chicago.") == []


def test_negation_disagreement_is_found_clause_by_clause():
    index = FactIndex("The kettle is not dishwasher safe. Wipe it clean with a damp cloth.")
    [check] = check_facts(["The kettle is dishwasher safe."], index)
    assert check.polarity == "The kettle is not dishwasher safe."
    [agree] = check_facts(["The kettle isn't dishwasher safe."], index)
    assert agree.polarity is None
    other_clause = FactIndex("Grealish has not been fined, and will be in the squad for the trip to Manchester.")
    [fine] = check_facts(["Grealish will be in the squad for the trip to Manchester."], other_clause)
    assert fine.polarity is None


def test_canonical_numbers_make_one_token_per_value():
    assert canonical_numbers("4,500 mAh") == canonical_numbers("4500 mAh")
    assert canonical_numbers("58%").split() == canonical_numbers("58 percent").split()


# -- properties ---------------------------------------------------------------------------------

WORDS = st.sampled_from("the tower river company museum report opened built stands rose fell near in of at".split())
NAMES = st.sampled_from(["Paris", "Canberra", "Marie Curie", "Lake Victoria", "Bankers Life Fieldhouse", "Oslo"])
UNITS = st.sampled_from(["", " metres", " km", " kg", " percent", " million", " hours"])


@st.composite
def fact_sentences(draw):
    parts = [draw(WORDS).capitalize()]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["word", "word", "number", "name", "year"]))
        if kind == "word":
            parts.append(draw(WORDS))
        elif kind == "name":
            parts.append(draw(NAMES))
        elif kind == "year":
            parts.append(str(draw(st.integers(1100, 2099))))
        else:
            number = draw(st.integers(0, 10_000_000))
            parts.append(f"{number:,}{draw(UNITS)}" if draw(st.booleans()) else f"{number}{draw(UNITS)}")
    return " ".join(parts) + "."


@settings(max_examples=200, deadline=None)
@given(fact_sentences())
def test_a_text_supports_its_own_facts(sentence):
    assert unsupported_facts(sentence, sentence) == []


@settings(max_examples=200, deadline=None)
@given(st.integers(1000, 10**9), st.sampled_from(["metres", "kg", "percent", "people"]))
def test_reformatting_a_number_keeps_it_supported(number, unit):
    context = f"The count was {number:,} {unit} last year."
    assert unsupported_facts(f"It was {number} {unit}.", context) == []
    assert unsupported_facts(f"It was {number:,} {unit}.", context) == []


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 10**6),
    st.sampled_from(["mm", "km", "kg", "million", "percent", "metres"]),
    st.sampled_from(["\u00a0", "\u202f", "\u2009", " \u00a0", "\u00a0 "]),
)
def test_a_unit_after_a_no_break_space_is_read_as_after_a_space(number, unit, space):
    """Text pasted from the web sets a unit apart by a no-break or thin space; the number and its unit are one fact."""
    assert unsupported_facts(f"It is {number:,} {unit}.", f"It measures {number:,}{space}{unit}.") == []
    assert [
        f.text for f in unsupported_facts(f"It is {number + 1:,} {unit}.", f"It measures {number:,}{space}{unit}.")
    ] != []


def test_a_capital_b_before_c_is_no_billion():
    """ "539 B.C." is a year before Christ, not 539 billion; "7B" and "$5 B." stay billions."""
    assert [(f.kind, f.value) for f in extract_facts("In 539 B.C., Babylon fell.") if f.kind != "name"] == [
        ("number", 539.0)
    ]
    assert [f.value for f in extract_facts("Revenue hit 7B. It cost $5 B.") if f.kind != "name"] == [7e9, 5e9]


def test_a_name_is_not_found_by_a_longer_word_it_begins():
    """Doctrines and words written as one are the only longer forms found: "Walker" is not "walking", "Stoic" is
    "Stoicism"."""
    context = FactIndex("They were walking home. Stoicism spread. Hunter Girl sang.")
    found = {f.text: context.supports(f) for f in extract_facts("Walker, a Stoic, met HunterGirl.")}
    assert found["Walker"] is False and found["Stoic"] is True and found["HunterGirl"] is True


def test_two_words_of_a_name_written_as_one_in_the_context_support_only_those_two():
    """ "Super Bowl" is found by "superbowl"; "Spider Woman" is not found by "Spiderman", nor "Super Bowl LIX" where
    the context has no "LIX"."""
    context = FactIndex("The Cowboys won the superbowl. Peter Parker is Spiderman.")
    found = {
        f.text: context.supports(f)
        for f in extract_facts("Then Spider Woman watched Super Bowl LIX. The Super Bowl ended.")
    }
    assert found == {"Spider Woman": False, "Super Bowl LIX": False, "Super Bowl": True}, found


@given(st.integers(1000, 10**9), st.data())
def test_changing_a_digit_makes_a_number_unsupported(number, data):
    digits = list(str(number))
    position = data.draw(st.integers(0, len(digits) - 1))
    replacement = data.draw(
        st.sampled_from([d for d in "0123456789" if d != digits[position] and (position or d != "0")])
    )
    digits[position] = replacement
    changed = int("".join(digits))
    context = f"The total was {number:,} units."
    assert [f.text for f in unsupported_facts(f"The total was {changed:,} units.", context)] == [f"{changed:,}"]


CODE_POINTS = st.lists(st.integers(0, 0x10FFFF), max_size=120).map(lambda cps: "".join(map(chr, cps)))


@settings(max_examples=300, deadline=None)
@given(st.one_of(CODE_POINTS, st.text(max_size=200)), st.one_of(CODE_POINTS, st.text(max_size=200)))
def test_any_text_is_checked_without_error(answer, context):
    facts = extract_facts(answer)
    assert all(isinstance(f.text, str) for f in facts)
    for check in check_facts([answer], FactIndex(context)):
        assert set(check.unsupported) <= set(check.facts)


def test_extraction_finishes_on_adversarial_input():
    """Runs of backtracking bait are read to the end (timings: ``benchmarks/bench_core.py``)."""
    for text in ("1," * 20_000, "$ " * 20_000 + "1", "May " * 20_000, "A " * 20_000, "1:1:" * 10_000, "9. " * 20_000):
        facts = extract_facts(text)
        assert all(isinstance(f.text, str) for f in facts), re.escape(text[:20])
        FactIndex(text)


def test_not_only_and_numbered_no_are_not_negations():
    assert (
        FactIndex("Tesla builds electric cars and batteries.").polarity_conflict(
            "Tesla not only builds electric cars but also batteries."
        )
        is None
    )
    assert (
        FactIndex("The Prime Minister lives at 10 Downing Street.").polarity_conflict(
            "The Prime Minister lives at No. 10 Downing Street."
        )
        is None
    )


def test_whitespace_runs_and_many_dates_are_read():
    """Inputs that once took minutes (timings: ``benchmarks/bench_core.py``)."""
    assert (
        FactIndex("Revenue" + " " * 40_000 + "12 million dollars in 2023.").polarity_conflict(
            "Revenue was 12 million dollars in 2023."
        )
        is None
    )
    FactIndex("".join(f"2024-01-05 12:{i % 60:02d} processed {i} items\n" for i in range(10_000)))


def test_facts_with_braces_are_described():
    from pytest_llmeval.facts.layer import describe_fact

    [fact] = [f for f in extract_facts("Revenue {was} 5 million.") if f.kind == "number"]
    assert describe_fact(fact, "sentence 1") == "'5 million' (sentence 1) is not stated in the context"
    [name] = [f for f in extract_facts("It was {Paris}.") if f.kind == "name"]
    assert "{Paris}" not in describe_fact(name, "sentence 1") or "appears nowhere" in describe_fact(name, "sentence 1")


def test_unlinked_pairs_are_nearby_words_the_source_never_says_together():
    from pytest_llmeval.facts.layer import Cooccurrence, PairIndex, unlinked_pairs

    source = PairIndex(["Jackie Chan starred in the film.", "The voice was provided by Tom Hanks."])
    together = Cooccurrence(source.stems)
    coverage, missing = unlinked_pairs("Jackie Chan voiced the film.", together)
    assert coverage == 0.75 and missing == []  # "voiced" is not in the source: no pair of it is checked
    coverage, missing = unlinked_pairs("Jackie Chan provided the voice.", together)
    assert coverage == 1.0 and set(missing) == {
        ("Chan", "provided"),
        ("Chan", "voice"),
        ("Jackie", "provided"),
        ("Jackie", "voice"),
    }
    # words of one name ("Tom Hanks") are no pair; words further apart than the window are not paired
    assert set(unlinked_pairs("Tom Hanks starred.", together)[1]) == {("Hanks", "starred"), ("starred", "Tom")}
    far = "Jackie " + " ".join(f"word{i}" for i in range(5)) + " voice"
    assert unlinked_pairs(far, together)[1] == []
    # a long sentence is read in one pass (pairs within the window only)
    long = " ".join(["Jackie", "voice"] * 5000)
    assert unlinked_pairs(long, together)[1] == [("Jackie", "voice")]


@pytest.mark.parametrize("answer", ["A lamp is 30 euros here.", "Lamp: 30 euros."])
def test_the_figure_named_instead_is_the_one_for_the_same_item(answer):
    """'It says ...' names the context's figure for the thing the answer talks about (the lamp's 50 euros), not the
    closest number in the same unit (the chair's 12 euros)."""
    from pytest_llmeval.facts.collect import extract_facts
    from pytest_llmeval.facts.extract import FactIndex

    index = FactIndex(["Chairs are 12 euros each. A lamp is 50 euros. Lamp: 50 euros."])
    [fact] = [f for f in extract_facts(answer) if f.unit]
    assert index.counterpart(fact, answer).text == "50 euros"
    assert index.counterpart(fact).text == "12 euros"  # without the sentence: the closest, as before
