"""One fact written two ways reads as one value; a changed value reads as another (times, numbers, names, dates)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.collect import extract_facts
from pytest_llmeval.facts.extract import unsupported_facts
from pytest_llmeval.facts.numerals import parse_number
from pytest_llmeval.facts.parsing import (
    Fact,
    clock_time_facts,
    date_facts,
    number_facts,
    weekday_facts,
    canonical_numbers,
)

NUMBER_KINDS = ("number", "percent", "money", "year")


def times(text):
    return [f.value for f in extract_facts(text) if f.kind == "time"]


def numbers(text):
    return [f for f in extract_facts(text) if f.kind in NUMBER_KINDS]


def values(text):
    return [f.value for f in numbers(text)]


def tokens(text):
    """The value tokens of ``text`` as :func:`canonical_numbers` writes them."""
    return re.findall(r"(?<!\S)n\d\S*", canonical_numbers(text))


# -- times of day -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "hours"),
    [
        ("10 am", 10),
        ("10am", 10),
        ("10 a.m.", 10),
        ("10 A.M.", 10),
        ("10 a. m.", 10),
        ("10:00", 10),
        ("10:0", 10),
        ("10:00 am", 10),
        ("8 pm", 20),
        ("8pm", 20),
        ("8 p.m.", 20),
        ("20:00", 20),
        ("20:0", 20),
        ("08:00 pm", 20),
        ("noon", 12),
        ("12 noon", 12),
        ("midday", 12),
        ("12 pm", 12),
        ("12:00", 12),
        ("midnight", 0),
        ("12 midnight", 0),
        ("12 am", 0),
        ("00:00", 0),
        ("0:00", 0),
        ("10.30 pm", 22.5),
        ("22:30", 22.5),
        ("10:30 p.m.", 22.5),
        ("10:5", 10 + 5 / 60),
        ("10:05", 10 + 5 / 60),
    ],
)
def test_a_time_of_day_is_seconds_since_midnight(written, hours):
    [fact] = [f for f in extract_facts(f"The shop opens at {written} on weekdays.") if f.kind == "time"]
    assert (fact.kind, fact.unit, fact.value) == ("time", "clock", pytest.approx(hours * 3600))
    assert numbers(f"The shop opens at {written} on weekdays.") == []


@pytest.mark.parametrize(
    "written",
    [
        "10 am to 8 pm",
        "10:0-20:0",
        "10:00–20:00",
        "10:00 - 20:00",
        "10am-8pm",
        "from 10 to 8 pm",
        "10-8pm",
        "between 10 am and 8 pm",
        "10 a.m. until 8 p.m.",
        "10:00 to 20:00",
    ],
)
def test_each_end_of_a_range_of_times_is_a_time(written):
    text = f"Opening hours: {written}, every day."
    assert times(text) == [10 * 3600, 20 * 3600]
    assert numbers(text) == []  # no stray "20", "-20" or "0"
    assert "n20 " not in canonical_numbers(text) and "nm20" not in canonical_numbers(text)
    assert tokens(text) == tokens("Opening hours: 10 am to 8 pm, every day.") == ["n36000clock", "n72000clock"]


@pytest.mark.parametrize(
    ("written", "hours"),
    [
        ("from 9am-5pm", [9, 17]),
        ("9-5pm", [9, 17]),
        ("9:0-17:0", [9, 17]),
        ("11-1 pm", [11, 13]),
        ("1-3 pm", [13, 15]),
        ("9 to 11:30 am", [9, 11.5]),
        ("1:30-3pm", [13.5, 15]),
        ("8 to midnight", [20, 0]),
        ("9am to noon", [9, 12]),
    ],
)
def test_an_end_without_am_or_pm_takes_the_other_ends(written, hours):
    assert times(f"We are open {written}.") == [h * 3600 for h in hours]


@pytest.mark.parametrize("text", ["They won 2:1 at home.", "A ratio of 3:1.", "at 9:5", "The 9 to 5 job."])
def test_scores_ratios_and_bare_hours_are_no_times(text):
    assert times(text) == []


def test_a_changed_time_is_named():
    assert unsupported_facts("The shop is open from 10 am to 8 pm.", "Opening hours: 10:0-20:0") == []
    assert [f.text for f in unsupported_facts("The shop is open from 10 am to 9 pm.", "Opening hours: 10:0-20:0")] == [
        "9 pm"
    ]
    assert unsupported_facts("It closes at noon.", "Closing time: 12:00.") == []


# -- names are no numbers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["COVID-19", "covid-19", "F-35", "B-52", "SARS-CoV-2", "T-1000", "MP3", "H1N1", "4G", "5G", "A4"]
)
def test_digits_joined_to_letters_are_part_of_a_name(name):
    text = f"The report on {name} came out."
    assert numbers(text) == []
    assert name in canonical_numbers(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("In mid-2020 it grew.", 2020),
        ("It runs Windows 11.", 11),
        ("A pre-1900 house.", 1900),
        ("It fell to -20 degrees.", -20),
    ],
)
def test_numbers_next_to_words_stay_numbers(text, value):
    assert values(text) == [value]


def test_a_hyphen_after_a_letter_is_no_minus_sign():
    assert all(v >= 0 for v in values("The F-35 and the Su-27 flew, 5-10 of them."))


# -- numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("twenty-one", 21),
        ("twenty one", 21),
        ("one hundred and twenty", 120),
        ("one hundred twenty", 120),
        ("a hundred", 100),
        ("a dozen", 12),
        ("two dozen", 24),
        ("half a dozen", 6),
        ("one million", 1e6),
        ("a million", 1e6),
        ("two thousand five hundred", 2500),
        ("two thousand and five", 2005),
        ("three hundred thousand", 3e5),
        ("1,300", 1300),
        ("1\u00a0300", 1300),
        ("1\u202f300", 1300),
        ("1 300 000", 1.3e6),
        ("1300.5", 1300.5),
        ("1/2", 0.5),
        ("3/4", 0.75),
        ("2 1/2", 2.5),
        ("1½", 1.5),
        ("¾", 0.75),
    ],
)
def test_numbers_in_words_and_digits(written, value):
    assert parse_number(written)[0] == pytest.approx(value)
    assert values(f"We counted {written} birds.") == [pytest.approx(value)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Half of them left.", 0.5),
        ("Half the votes.", 0.5),
        ("A third of them left.", 1 / 3),
        ("One-third left.", 1 / 3),
        ("Two thirds left.", 2 / 3),
        ("two-thirds of it", 2 / 3),
        ("Three quarters of them.", 0.75),
        ("a quarter of them", 0.25),
        ("one fifth of them", 0.2),
    ],
)
def test_fractions_in_words(text, value):
    assert values(text) == [pytest.approx(value)]


@pytest.mark.parametrize(
    "text",
    [
        "A third party came.",
        "In the third quarter.",
        "At a quarter past six.",
        "The second half began.",
        "Half-time came.",
        "He was one of them.",
        "A man came.",
    ],
)
def test_ordinals_and_words_of_no_number_are_no_fraction(text):
    assert [v for v in values(text) if v < 1] == []
    assert all(v >= 1 for v in values(text))


@pytest.mark.parametrize("written", ["45%", "45 percent", "45 per cent", "45 pct"])
def test_percentages(written):
    [fact] = numbers(f"Turnout was {written} last year.")
    assert (fact.kind, fact.value, fact.unit) == ("percent", 45, "%")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It rose 5-10% a year.", [("percent", 5, "%"), ("percent", 10, "%")]),
        ("It rose 5 to 10 percent.", [("percent", 5, "%"), ("percent", 10, "%")]),
        ("It is between 5 and 10 km long.", [("number", 5000, "m"), ("number", 10000, "m")]),
        ("It takes 2 to 3 hours.", [("number", 7200, "s"), ("number", 10800, "s")]),
        ("It cost $5-10 million.", [("money", 5e6, "USD"), ("money", 1e7, "USD")]),
        ("Between 2 and 3 million people.", [("number", 2e6, None), ("number", 3e6, None)]),
        ("From 500 to 1 million people.", [("number", 500, None), ("number", 1e6, None)]),
        (
            "Pages 5-10 and 1990-1995.",
            [("number", 5, None), ("number", 10, None), ("year", 1990, None), ("year", 1995, None)],
        ),
    ],
)
def test_each_end_of_a_number_range_is_a_fact_with_the_ranges_unit(text, expected):
    assert [(f.kind, f.value, f.unit) for f in numbers(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "about 1,300",
        "over 1300",
        "more than 1300",
        "nearly 1300",
        "approximately 1,300",
        "roughly 1300",
        "around 1300",
        "up to 1300",
        "almost 1300",
        "some 1,300",
        "at least 1300",
        "fewer than 1300",
        "~1300",
        "1300+",
        "1300-odd",
        "1,300 or so",
        "an estimated 1,300",
        "about one thousand three hundred",
    ],
)
def test_a_hedged_number_keeps_its_value_and_is_approximate(text):
    [fact] = numbers(f"There were {text} visitors.")
    assert fact.approx and fact.value == 1300


def test_a_plain_number_or_time_is_not_approximate():
    assert not any(f.approx for f in extract_facts("There were 1,300 visitors at 10 am, about whom nothing is known."))
    assert [f.approx for f in extract_facts("It opens around 10 am and closes at 6 pm.") if f.kind == "time"] == [
        True,
        False,
    ]
    assert Fact("number", "5", 5.0).approx is False


# -- durations ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("2 hours", "120 minutes"),
        ("1.5 hours", "90 minutes"),
        ("two days", "48 hours"),
        ("2 hours 30 minutes", "150 minutes"),
        ("2 hours and 30 minutes", "2.5 hours"),
        ("half an hour", "30 minutes"),
        ("one and a half hours", "90 minutes"),
        ("2h", "120 min"),
    ],
)
def test_a_duration_in_other_units_is_the_same_duration(left, right):
    assert values(f"It took {left}.") == values(f"It took {right}.")
    assert unsupported_facts(f"It took {left}.", f"It took {right}.") == []


def test_a_changed_duration_is_another():
    assert values("It took 2 hours.") != values("It took 3 hours.")
    assert values("It took 1.5 hours.") != values("It took 80 minutes.")


# -- dates and weekdays -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written", ["6 May 1825", "May 6, 1825", "1825-05-06", "the 6th of May 1825", "06.05.1825", "1825/05/06"]
)
def test_dates_written_several_ways(written):
    assert [f.value for f in extract_facts(f"It opened on {written}.") if f.kind == "date"] == [(1825, 5, 6)]


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("25/12/2020", (2020, 12, 25)),
        ("12/25/2020", (2020, 12, 25)),
        ("05/05/2020", (2020, 5, 5)),
        ("25.12.2020", (2020, 12, 25)),
    ],
)
def test_dates_in_digits_whose_order_is_clear(written, value):
    assert [f.value for f in date_facts(f"On {written} it snowed.")] == [value]
    assert numbers(f"On {written} it snowed.") == []


def test_dates_in_digits_whose_order_is_not_clear_are_left_as_numbers():
    assert date_facts("On 05/06/2021 it snowed.") == ()


def test_weekdays():
    assert [(f.kind, f.value) for f in weekday_facts("Open Mon-Fri, and Saturdays; closed on Sun. and Monday.")] == [
        ("weekday", 0),
        ("weekday", 4),
        ("weekday", 5),
        ("weekday", 6),
        ("weekday", 0),
    ]
    assert weekday_facts("The Sun reported that they sat down. Wed in June.") == ()


# -- properties ---------------------------------------------------------------------------------


def twelve_hour(hour, minute, draw):
    half = "am" if hour < 12 else "pm"
    h12 = hour % 12 or 12
    forms = [
        f"{h12}:{minute:02d} {half}",
        f"{h12}:{minute:02d}{half}",
        f"{h12}:{minute:02d} {half[0]}.m.",
        f"{h12}:{minute:02d} {half.upper()}",
    ]
    if minute == 0:
        forms += [f"{h12} {half}", f"{h12}{half}", f"{h12} {half[0].upper()}.M."]
        forms += ["noon", "12 noon"] if hour == 12 else ["midnight"] if hour == 0 else []
    return draw(st.sampled_from(forms))


def twenty_four_hour(hour, minute, draw):
    forms = [f"{hour}:{minute:02d}", f"{hour:02d}:{minute:02d}", f"{hour:02d}:{minute}"]
    return draw(st.sampled_from(forms))


CLOCKS = st.tuples(st.integers(0, 23), st.integers(0, 59))


@settings(max_examples=300, deadline=None)
@given(CLOCKS, st.data())
def test_a_time_written_any_way_is_one_value(clock, data):
    hour, minute = clock
    render = data.draw(st.sampled_from([twelve_hour, twenty_four_hour]))
    written = render(hour, minute, data.draw)
    assert times(f"The museum opens at {written} today.") == [hour * 3600 + minute * 60], written


@settings(max_examples=200, deadline=None)
@given(CLOCKS, CLOCKS, st.data())
def test_a_range_of_times_written_any_way_is_two_values_and_no_number(start, end, data):
    render = data.draw(st.sampled_from([twelve_hour, twenty_four_hour]))
    join = data.draw(st.sampled_from(["-", "–", " - ", " to ", " until "]))
    text = f"Open {render(*start, data.draw)}{join}{render(*end, data.draw)} daily."
    assert times(text) == [start[0] * 3600 + start[1] * 60, end[0] * 3600 + end[1] * 60], text
    assert numbers(text) == [], text


@settings(max_examples=200, deadline=None)
@given(CLOCKS, CLOCKS, st.data())
def test_a_changed_time_is_another_fact(said, stated, data):
    assume(said != stated)
    render = data.draw(st.sampled_from([twelve_hour, twenty_four_hour]))
    answer = f"The museum opens at {render(*said, data.draw)} today."
    context = f"The museum opens at {render(*stated, data.draw)} today."
    assert times(answer) != times(context)
    assert [f.kind for f in unsupported_facts(answer, context)] == ["time"]


ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def words(number, joiner="-", conjunction=" and "):
    """``number`` (below a million) in English words."""
    if number < 20:
        return ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return TENS[tens] + (joiner + ONES[ones] if ones else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{ONES[hundreds]} hundred" + (conjunction + words(rest, joiner) if rest else "")
    thousands, rest = divmod(number, 1000)
    return f"{words(thousands, joiner, conjunction)} thousand" + (
        (conjunction if rest < 100 else " ") + words(rest, joiner, conjunction) if rest else ""
    )


def renderings(number):
    forms = [str(number), f"{number:,}", f"{number:,}".replace(",", "\u00a0")]
    if number >= 1_000_000:
        forms.append(f"{number:,}".replace(",", " "))
    if number < 1_000_000 and number != 1:  # "one" alone is no number ("one of them")
        forms += [words(number), words(number, " ", " "), words(number, "-", " ")]
    return forms


INTEGERS = st.one_of(st.integers(0, 120), st.integers(0, 999_999), st.integers(0, 10**9))


@settings(max_examples=300, deadline=None)
@given(INTEGERS, st.data())
def test_an_integer_written_any_way_is_one_value(number, data):
    left, right = (data.draw(st.sampled_from(renderings(number))) for _ in range(2))
    assert values(f"We counted {left} birds.") == values(f"We counted {right} birds.") == [number], (left, right)
    assert tokens(f"We counted {left} birds.") == tokens(f"We counted {right} birds.")


@settings(max_examples=300, deadline=None)
@given(INTEGERS, st.one_of(st.integers(1, 9), st.integers(10, 10**6)), st.booleans(), st.data())
def test_a_changed_integer_is_another_value(stated, change, down, data):
    said = stated - change if down else stated + change
    assume(said >= 0)
    answer = f"We counted {data.draw(st.sampled_from(renderings(said)))} birds."
    context = f"We counted {data.draw(st.sampled_from(renderings(stated)))} birds."
    assert values(answer) != values(context)
    digits = f"We counted {said:,} birds."
    assert len(unsupported_facts(digits, context)) == 1


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200), st.sampled_from(["", ".5"]))
def test_hours_and_minutes_are_one_duration(hours, half):
    minutes = hours * 60 + (30 if half else 0)
    assert (
        values(f"The trip took {hours}{half} hours.") == values(f"The trip took {minutes} minutes.") == [minutes * 60]
    )
    assert values(f"The trip took {hours}{half} hours.") != values(f"The trip took {minutes + 1} minutes.")


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 5), st.integers(1, 59), st.integers(1, 59), st.sampled_from([", ", " and ", ", and "]))
def test_two_durations_of_the_same_unit_side_by_side_are_two(hours, minutes, lead, joint):
    """A duration's parts go from larger units to smaller: "2 hours 9 minutes, two minutes ahead" is two durations."""
    text = f"She won in {hours} hours {minutes} minutes{joint}{lead} minutes ahead of the runner-up."
    assert values(text) == [hours * 3600 + minutes * 60, lead * 60]
    assert values(f"It took {hours} hours{joint}{minutes} minutes.") == [hours * 3600 + minutes * 60]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 100),
    st.sampled_from(["%", " percent", " per cent"]),
    st.sampled_from(["%", " percent", " per cent"]),
)
def test_a_percentage_written_any_way_is_one_value(number, left, right):
    assert numbers(f"Turnout was {number}{left} in all.") == [
        Fact("percent", f"{number}{left}", float(number), "%", 1.0, 12)
    ]
    assert values(f"Turnout was {number}{left}.") == values(f"Turnout was {number}{right}.")


CODE_POINTS = st.lists(st.integers(0, 0x10FFFF), max_size=200).map(lambda cps: "".join(map(chr, cps)))
NUMERIC_TEXT = st.text(alphabet="0123456789 :.,-–/%$apm½ noonMay", max_size=80)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=300), CODE_POINTS, NUMERIC_TEXT))
def test_any_text_is_read_without_error(text):
    facts = extract_facts(text)
    assert all(isinstance(f, Fact) and isinstance(f.text, str) for f in facts)
    assert isinstance(canonical_numbers(text), str)
    for reader in (number_facts, clock_time_facts, date_facts, weekday_facts):
        for fact in reader(text):
            assert text[fact.start : fact.start + len(fact.text)] == fact.text
