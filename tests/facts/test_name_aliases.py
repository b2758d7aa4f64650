"""A name written another way (codes, initialisms, demonyms) is the same name; a different name stays different."""

from __future__ import annotations

from importlib.util import find_spec

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.aliases import capital_words, demonym_forms, initialisms, name_key, places
from pytest_llmeval.facts.collect import extract_facts
from pytest_llmeval.facts.extract import FactIndex, unsupported_facts

needs_pycountry = pytest.mark.skipif(find_spec("pycountry") is None, reason="pycountry is not installed")
needs_countryinfo = pytest.mark.skipif(find_spec("countryinfo") is None, reason="countryinfo is not installed")


def unsupported(answer, context):
    return [f.text for f in unsupported_facts(answer, context)]


@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("The U.N. High Commissioner spoke.", "The United Nations High Commissioner for Refugees spoke."),
        ("The UNHCR said so.", "The United Nations High Commissioner for Refugees said so."),
        ("The United Nations voted.", "The UN voted."),
        ("NASA launched it.", "The National Aeronautics and Space Administration launched it."),
        ("The National Aeronautics and Space Administration launched it.", "NASA launched it."),
        ("The EU agreed.", "The European Union agreed."),
        ("The European Union agreed.", "EU members agreed."),
        ("The Department of Justice sued.", "The DOJ sued."),
        ("He lives in Los Angeles.", "He lives in LA."),
        ("The Nazis invaded.", "Nazi Germany invaded Poland."),
        ("Nazi troops came.", "The Nazis came."),
        ("Israelis came.", "Israel sent people."),
        ("Polish troops came.", "Troops from Poland came."),
        ("He was in Finland.", "He is Finnish."),
        ("He is Scottish.", "He was born in Scotland."),
        ("The British team won.", "A team from Britain won."),
        ("Swedish firms came.", "Firms from Sweden came."),
        ("Germans came.", "Germany came."),
        ("Smith spoke.", "John Smith spoke."),
    ],
)
def test_initialisms_and_demonyms_support_the_name(answer, context):
    assert unsupported(answer, context) == []


@needs_pycountry
@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("She lives in California.", '{"state": "CA", "city": "Fresno"}'),
        ("She lives in CA now.", "She moved to California."),
        ("He moved to the USA.", "He is American."),
        ("He is American.", "He moved to the USA."),
        ("He flew to the United States.", "He flew to the USA."),
        ("He flew to America.", "He flew to the U.S. in May."),
        ("He flew to the U.S. in May.", "He flew to America."),
        ("He went to Britain.", "He lives in the UK."),
        ("He lives in the UK.", "He went to Britain."),
        ("The British team won.", "The UK team won."),
        ("The UK team won.", "The British team won."),
        ("The United Kingdom voted.", "The GBR delegation voted."),
        ("He visited Bolivia.", "Bolivia, Plurinational State of"),
        ("She lives in Texas.", "Records: TX, Austin."),
    ],
)
def test_codes_and_country_names_support_each_other(answer, context):
    assert unsupported(answer, context) == []


@needs_countryinfo
@needs_pycountry
@pytest.mark.parametrize(
    ("answer", "context"),
    [
        ("He is French.", "He lives in France."),
        ("He lives in France.", "He is French."),
        ("The Dutch team won.", "The Netherlands team won."),
        ("He went to Holland.", "He went to the Netherlands."),
        ("The Danish king.", "The king of Denmark."),
    ],
)
def test_demonyms_from_countryinfo(answer, context):
    assert unsupported(answer, context) == []


@pytest.mark.parametrize(
    ("answer", "context", "named"),
    [
        ("She lives in Texas.", '{"state": "CA"} California', "Texas"),
        ("He visited Germany.", "He visited France.", "Germany"),
        ("He is French.", "He lives in Germany.", "French"),
        ("The UN voted.", "The United States voted.", "UN"),
        ("The USA voted.", "The United Nations voted.", "USA"),
        ("North Korea said so.", "South Korea said so.", "North Korea"),
        ("The NSA said so.", "The National Aeronautics and Space Administration said so.", "NSA"),
        ("The European Union agreed.", "The EEA agreed.", "European Union"),
        ("He flew to South Korea.", "He flew to SK.", "South Korea"),
        ("She lives in Oregon.", "SHIPPING OR RETURNS", "Oregon"),
        ("He met Curtis.", "He met Curt.", "Curtis"),
        ("Paula Smith won.", "Paul Smith won.", "Paula Smith"),
        ("John Smith spoke.", "Smith spoke.", "John Smith"),
    ],
)
def test_a_different_name_stays_unsupported(answer, context, named):
    assert named in unsupported(answer, context)


def test_initialisms_are_read_off_runs_of_capitalised_words():
    assert {"un", "unhcr", "nhc"} <= initialisms("The United Nations High Commissioner for Refugees.")
    assert {"dj", "doj"} <= initialisms("The Department of Justice")
    assert "us" not in initialisms("The United Nations Security Council")  # stretches are contiguous
    assert "pu" not in initialisms("in Paris. United") | initialisms("Paris, United")  # punctuation ends a run
    assert capital_words("The U.S.-based NASA and the DoD met McDonald in Paris.") == {"us", "nasa", "dod"}


def test_demonym_forms_go_both_ways():
    for demonym, place in [
        ("canadian", "canada"),
        ("british", "britain"),
        ("polish", "poland"),
        ("finnish", "finland"),
        ("swedish", "sweden"),
        ("turkish", "turkey"),
        ("israeli", "israel"),
        ("japanese", "japan"),
    ]:
        assert place in demonym_forms(demonym) and demonym in demonym_forms(place), (demonym, place)
    assert "curt" not in demonym_forms("curtis") and "france" not in demonym_forms("francis")


def test_name_keys_drop_connectors_titles_and_plural_endings():
    assert name_key("Republic of Korea") == ("republic", "korea")
    assert name_key("the United States of America") == ("united", "state", "america")


def test_the_context_forms_are_computed_once():
    index = FactIndex("The UN and the National Aeronautics and Space Administration met in CA.")
    assert all(index.supports(f) for f in extract_facts("NASA and the United Nations met."))
    forms = index._aliases
    assert forms is not None
    assert all(index.supports(f) for f in extract_facts("The U.N. and NASA met."))
    assert index._aliases is forms


def _spoken(country):
    """A country as an answer writes it: its common name, else its name unless that is inverted ("Korea, Republic
    of"), else its official name."""
    common = getattr(country, "common_name", None)
    official = getattr(country, "official_name", None)
    return common or (official if "," in country.name and official else country.name)


def _supported(answer, context):
    index = FactIndex(context)
    return all(index.supports(f) for f in extract_facts(answer) if f.kind == "name")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_country_code_and_names_support_each_other(data):
    pycountry = pytest.importorskip("pycountry")
    country = data.draw(st.sampled_from(list(pycountry.countries)))
    code = country.alpha_2
    forms = [country.name, _spoken(country)]
    for form in forms:
        assert _supported(f"It happened in {code}.", f"It happened in {form}."), (code, form)
        assert _supported(f"It happened in {form}.", f"It happened in {country.name}; see {code}."), form
        if [f.text for f in extract_facts(f"It happened in {form}.") if f.kind == "name"] == [form]:  # read whole
            assert _supported(f"It happened in {form}.", f"It happened in {code}."), (form, code)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_another_country_is_not_supported(data):
    pycountry = pytest.importorskip("pycountry")
    countries = list(pycountry.countries)
    country = data.draw(st.sampled_from(countries))
    other = data.draw(st.sampled_from(countries))
    spoken, said = _spoken(other), _spoken(country)
    answer, context = f"It happened in {spoken}.", f"It happened in {said} ({country.alpha_2})."
    assume(other.alpha_2 != country.alpha_2)
    # What the word look-up finds ("Guinea" / "Papua New Guinea", "Guyana" / "French Guiana"), a demonym of the other
    # country in this one's name ("American Samoa": "United States"), and a subdivision code, read for every country
    # ("GA" is Gabon and Georgia), are not what is checked here.
    index = FactIndex(context)
    assume(not all(index.has_word(w) for f in extract_facts(answer) if f.kind == "name" for w in f.value))
    forms = {w for phrase in places().names.get(other.alpha_2, ()) for w in phrase}
    assume(
        not (forms | {f for w in forms for f in demonym_forms(w)})
        & {w for n in (country.name, said) for w in name_key(n)}
    )
    keys = {name_key(spoken)} | {(form,) for form in demonym_forms(name_key(spoken)[0])}  # "Laos": Ireland's "Laois"
    subdivided = {s.code.partition("-")[2] for s in pycountry.subdivisions if name_key(s.name) in keys}
    assume(country.alpha_2 not in subdivided and country.alpha_3 not in subdivided)
    assert not _supported(answer, context), (spoken, said)


def test_without_pycountry_only_initialisms_and_demonyms_apply(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pycountry", None)  # import fails
    monkeypatch.setitem(__import__("sys").modules, "countryinfo", None)
    table = places.__wrapped__()
    assert not table.by_key and not table.by_code
    monkeypatch.setattr("pytest_llmeval.facts.aliases.places", lambda: table)
    assert unsupported("The UN and the British came.", "The United Nations and Britain came.") == []
    assert unsupported("She lives in California.", '{"state": "CA"}') == ["California"]
