"""Records as a context: a dict, a JSON text or a Python-literal dict read into fields, empty fields and sentences."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.core.case import Case
from pytest_llmeval.facts.records import MAX_RECORD_CHARS, Record, asserted_nulls, describe, humanize_key, read_record

BUSINESS = {
    "name": "Blue Door Cafe",
    "state": "CA",
    "stars": 4.5,
    "hours": {"Monday": "10:0-20:0", "Tuesday": "10:0-20:0", "Sunday": None},
    "attributes": {"WiFi": None, "OutdoorSeating": True, "RestaurantsPriceRange2": "2", "DogsAllowed": False},
    "categories": "Cafes, Coffee & Tea",
}


def test_a_python_literal_dict_is_a_record():
    record = read_record(str(BUSINESS))  # what an f-string writes: single quotes, True/False/None
    assert isinstance(record, Record)
    assert record.fields == (
        ("name", "Blue Door Cafe"),
        ("state", "CA"),
        ("stars", 4.5),
        ("hours.Monday", "10:0-20:0"),
        ("hours.Tuesday", "10:0-20:0"),
        ("attributes.OutdoorSeating", True),
        ("attributes.RestaurantsPriceRange2", "2"),
        ("attributes.DogsAllowed", False),
        ("categories", "Cafes, Coffee & Tea"),
    )
    assert record.nulls == ("hours.Sunday", "attributes.WiFi")
    assert record.sentences == (
        "name: Blue Door Cafe.",
        "state: CA.",
        "stars: 4.5.",
        "hours Monday: 10:0-20:0.",
        "hours Tuesday: 10:0-20:0.",
        "attributes outdoor seating: yes.",
        "attributes restaurants price range: 2.",
        "attributes dogs allowed: no.",
        "categories: Cafes, Coffee & Tea.",
    )
    assert record.text.startswith("name: Blue Door Cafe. state: CA.")
    assert record.value("hours.Monday") == "10:0-20:0" and record.value("attributes.WiFi") is None


@pytest.mark.parametrize("given_as", ["dict", "json", "literal", "fenced", "padded"])
def test_every_spelling_reads_alike(given_as):
    text = {
        "dict": BUSINESS,
        "json": json.dumps(BUSINESS),
        "literal": repr(BUSINESS),
        "fenced": f"```json\n{json.dumps(BUSINESS, indent=2)}\n```",
        "padded": f"\n  {json.dumps(BUSINESS)}  \n",
    }[given_as]
    assert read_record(text) == read_record(BUSINESS)


def test_a_literal_inside_json_is_a_nested_record():
    record = read_record(
        json.dumps(
            {
                "attributes": {
                    "BusinessParking": "{'garage': False, 'street': True, 'lot': None}",
                    "WiFi": "u'free'",
                    "Alcohol": "'none'",
                    "NoiseLevel": "u'average'",
                    "Ambience": "None",
                }
            }
        )
    )
    assert record is not None
    assert dict(record.fields) == {
        "attributes.BusinessParking.garage": False,
        "attributes.BusinessParking.street": True,
        "attributes.WiFi": "free",
        "attributes.NoiseLevel": "average",
    }
    assert record.nulls == ("attributes.BusinessParking.lot", "attributes.Alcohol", "attributes.Ambience")
    assert "attributes business parking street: yes." in record.sentences
    assert "attributes WiFi: free." in record.sentences


def test_lists():
    record = read_record(
        '{"items": [{"name": "Lamp", "price": 12}, {"name": "Desk", "price": null}], '
        '"tags": ["new", null, "sale", true], "empty": [], "none": {}}'
    )
    assert record is not None
    assert record.fields == (
        ("items[0].name", "Lamp"),
        ("items[0].price", 12),
        ("items[1].name", "Desk"),
        ("tags", "new, sale, yes"),
    )
    assert record.nulls == ("items[1].price", "empty", "none")
    assert record.sentences == ("items name: Lamp.", "items price: 12.", "items name: Desk.", "tags: new, sale, yes.")
    top = read_record("[{'sku': 'A1'}, {'sku': 'B2'}]")
    assert top is not None and top.fields == (("[0].sku", "A1"), ("[1].sku", "B2"))


@pytest.mark.parametrize("empty", ["None", "null", "NULL", "", "  ", None, "n/a", [], {}])
def test_values_that_state_nothing_are_nulls(empty):
    record = read_record({"a": 1, "b": empty})
    assert record is not None and record.nulls == ("b",) and record.fields == (("a", 1),)


@pytest.mark.parametrize(
    "value, written",
    [
        (True, "yes"),
        (False, "no"),
        ("True", "yes"),
        ("false", "no"),
        (0, "0"),
        (3.25, "3.25"),
        ("6 p.m.", "6 p.m."),
        ("a\n  b", "a b"),
    ],
)
def test_values_are_written_as_given_booleans_as_yes_or_no(value, written):
    record = read_record({"k": value})
    assert record is not None
    assert record.sentences == (f"k: {written}" + ("" if written.endswith(".") else "."),)


@pytest.mark.parametrize(
    "key, words",
    [
        ("RestaurantsPriceRange2", "restaurants price range"),
        ("OutdoorSeating", "outdoor seating"),
        ("WiFi", "WiFi"),
        ("snake_case_key", "snake case key"),
        ("kebab-key", "kebab key"),
        ("HasTV", "has TV"),
        ("BYOBCorkage", "BYOB corkage"),
        ("Open24Hours", "open 24 hours"),
        ("address2", "address"),
        ("Monday", "Monday"),
        ("2019", "2019"),
        ("name", "name"),
    ],
)
def test_keys_in_plain_words(key, words):
    assert humanize_key(key) == words


def test_a_list_of_plain_values_prose_and_garbage_are_no_records():
    for text in [
        "[1, 2, 3]",
        "['a', 'b']",
        "{}",
        "[]",
        "Paris is the capital.",
        "{not a dict}",
        "{'a': f(1)}",
        "{'a': __import__('os').system('true')}",
        "[" * 5000 + "]" * 5000,
        "{" * 100_000,
        "1" * 10_000,
        "",
    ]:
        assert read_record(text) is None


def test_a_huge_text_is_not_read():
    huge = json.dumps({"k": "v" * MAX_RECORD_CHARS})
    assert read_record(huge) is None
    assert read_record(json.dumps({"k": "v" * 1000})) is not None


def test_deep_nesting_does_not_raise():
    deep: dict[str, object] = {"leaf": 1}
    for _ in range(200):
        deep = {"k": deep}
    assert read_record(deep) is None or isinstance(read_record(deep), Record)
    assert read_record(json.dumps({"a": 1, "b": deep})) is not None


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.text().map(lambda t: "{" + t + "}"),
        st.text().map(lambda t: "[" + t + "]"),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
            max_leaves=20,
        ).map(lambda v: json.dumps(v) if not isinstance(v, str) else v),
    )
)
def test_any_text_is_read_or_refused_without_raising(text):
    record = read_record(text)
    assert record is None or (isinstance(record, Record) and len(record.sentences) <= len(record.fields))
    if record is not None:
        for sentence in record.sentences:
            assert isinstance(asserted_nulls(record, sentence), list)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_asserted_nulls_never_raises(sentence):
    record = read_record(BUSINESS)
    assert record is not None
    assert set(asserted_nulls(record, sentence)) <= set(record.nulls)


@pytest.mark.parametrize(
    "sentence, paths",
    [
        ("They have free WiFi.", ["attributes.WiFi"]),
        ("Free Wi-Fi is available.", ["attributes.WiFi"]),
        ("There is wi fi.", ["attributes.WiFi"]),
        ("It is open on Sundays.", ["hours.Sunday"]),
        ("The cafe has outdoor seats and wifi.", ["attributes.WiFi", "attributes.OutdoorSeating"]),
        ("It takes reservations.", ["attributes.RestaurantsReservations"]),
        ("It is in the moderate price range.", ["attributes.RestaurantsPriceRange2"]),
        ("They accept credit cards.", ["attributes.BusinessAcceptsCreditCards"]),
        ("The cafe is open on Monday.", []),  # stated, not empty
        ("Its name is not listed, nor its type or value.", []),  # generic keys
        ("The seating is indoors.", []),  # one word of two
        ("Prices are fair.", []),
        ("", []),
    ],
)
def test_asserted_nulls(sentence, paths):
    record = read_record(
        {
            "name": None,
            "type": None,
            "value": "",
            "hours": {"Monday": "9-5", "Sunday": None},
            "attributes": {
                "WiFi": "None",
                "OutdoorSeating": None,
                "RestaurantsReservations": None,
                "RestaurantsPriceRange2": None,
                "BusinessAcceptsCreditCards": "null",
            },
        }
    )
    assert record is not None
    assert asserted_nulls(record, sentence) == paths
    assert record.asserted_nulls(sentence) == paths


def test_only_the_last_key_counts():
    record = read_record({"parking": {"garage": None}})
    assert record is not None
    assert asserted_nulls(record, "There is parking nearby.") == []
    assert asserted_nulls(record, "It has a garage.") == ["parking.garage"]


def test_describe_names_the_key():
    assert describe("hours.Monday", "10:0-20:0") == "hours.Monday is '10:0-20:0'"
    assert describe("attributes.WiFi", None) == "attributes.WiFi is None"
    assert describe("attributes.OutdoorSeating", True) == "attributes.OutdoorSeating is True"
    assert len(describe("k", "x" * 1000)) < 100


def test_a_case_takes_a_dict_as_its_context():
    case = Case(actual="Open Monday.", context=BUSINESS)
    assert case.context == (json.dumps(BUSINESS, ensure_ascii=False),)
    assert read_record(case.context[0]) == read_record(BUSINESS)
    several = Case(context=[{"a": "é"}, "a chunk of prose"])
    assert several.context == ('{"a": "é"}', "a chunk of prose")
    assert Case(context={"when": __import__("datetime").date(2024, 5, 6)}).context == ('{"when": "2024-05-06"}',)
    assert Case.from_record({"context": [{"a": 1}], "actual": "x"}).context == ('{"a": 1}',)


def test_other_arguments_keep_their_errors():
    with pytest.raises(TypeError, match=r"argument 'expected'\[0\] must be a str, got dict"):
        Case(expected=[{"a": 1}])
    with pytest.raises(TypeError, match=r"argument 'context'\[1\] must be a str, got int"):
        Case(context=[{"a": 1}, 2])
    with pytest.raises(TypeError, match="argument 'context' must be a str or a sequence of str, got int"):
        Case(context=3)
    loop: dict[str, object] = {}
    loop["self"] = loop
    with pytest.raises(TypeError, match="argument 'context' is a mapping that cannot be written as JSON"):
        Case(context=loop)


def test_a_shared_first_word_is_a_namespace():
    alone = read_record({"RestaurantsReservations": None})
    beside = read_record({"RestaurantsReservations": None, "RestaurantsDelivery": True})
    assert alone is not None and beside is not None
    assert asserted_nulls(alone, "It takes reservations.") == []
    assert asserted_nulls(alone, "The restaurant takes reservations.") == ["RestaurantsReservations"]
    assert asserted_nulls(beside, "It takes reservations.") == ["RestaurantsReservations"]
