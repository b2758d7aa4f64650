"""The condition language: the catalog's ten examples, precedence, evidence, errors."""

from __future__ import annotations

import pytest

from pytest_llmeval.text.conditions import ConditionSyntaxError, parse_condition

TEXT = "Brazil revenue was 15,969 million"

# (condition, text that satisfies it, text that does not): the ten catalog examples.
EXAMPLES = [
    ('"15,969"', TEXT, "revenue was 15969 million"),
    ('regexp("15,?969")', "revenue was 15969", "revenue was 15.969"),
    ('"15,969" AND regexp("[Mm]illion")', "15,969 Million", "15,969 billion"),
    ('("Rio" OR "rio") AND regexp("15,?969 [Mm]il") AND NOT "Real"', "rio: 15969 mil", "Rio: 15,969 mil Real"),
    ('regexp("^Brazil revenue was 15,969 million$")', TEXT, TEXT + " dollars"),
    ('regexp("(?i)python")', "I like PyThOn", "I like snakes"),
    ('regexp("(cat|dog|bird)")', "a bird sang", "a fish swam"),
    (r'regexp("\b(error|warning|failure)\b")', "one warning left", "warnings everywhere"),
    (r'regexp("\d{3}-\d{3}-\d{4}")', "call 123-456-7890", "call 123-45-6789"),
    (r'regexp("(?i)(success|completed).*\d+%")', "Task COMPLETED at 85%", "Task completed"),
]


@pytest.mark.parametrize("source, good, bad", EXAMPLES)
def test_catalog_examples(source, good, bad):
    condition = parse_condition(source)
    assert condition.matches(good)
    assert not condition.matches(bad)
    assert condition.explain(good) == []
    assert condition.explain(bad)


def test_precedence_not_and_or():
    # NOT binds tighter than AND, AND tighter than OR
    condition = parse_condition('"a" OR "b" AND NOT "c"')
    assert condition.matches("a c")  # a OR (b AND NOT c)
    assert not condition.matches("b c")
    assert parse_condition('NOT NOT "x"').matches("x")
    assert parse_condition('("a" OR "b") AND "c"').matches("b c")
    assert not parse_condition('("a" OR "b") AND "c"').matches("a")


def test_keywords_case_insensitive_and_single_quotes():
    assert parse_condition("'x' and not 'y'").matches("x")
    assert parse_condition('REGEX("^a")').matches("abc")


def test_escapes_in_strings():
    assert parse_condition(r'"say \"hi\""').matches('they say "hi"')
    assert parse_condition(r'"back\\slash"').matches("back\\slash")
    assert parse_condition(r'regexp("\\d{3}-\\d{2}-\\d{4}")').matches("123-45-6789")  # doubled, as in the catalog


def test_explain_names_the_deciding_terms():
    condition = parse_condition('("Rio" OR "rio") AND regexp("15,?969") AND NOT "Real"')
    reasons = condition.explain("Revenue in Real was 16 billion")
    assert reasons == [
        'missing "Rio"',
        'missing "rio"',
        'missing regexp("15,?969")',
        "found forbidden \"Real\" at 11: 'Revenue in Real was 16 billion'",
    ]
    assert parse_condition('NOT ("a" AND "b")').explain("a b") == [
        "found forbidden \"a\" at 0: 'a b'",
        "found forbidden \"b\" at 2: 'a b'",
    ]


def test_long_text_excerpt_is_short():
    text = "x" * 1000 + "Real" + "y" * 1000
    [reason] = parse_condition('NOT "Real"').explain(text)
    assert reason.startswith('found forbidden "Real" at 1000:') and len(reason) < 120


@pytest.mark.parametrize(
    "source, message, position",
    [
        ("", "empty condition", 0),
        ('"a" AND', "expected a string, regexp(...) or '(' but the condition ended", 7),
        ('"a" "b"', "unexpected '\"b\"'", 4),
        ('("a"', "expected ')' but the condition ended", 4),
        ('"abc', "unterminated string", 0),
        ("Rio", "unexpected word 'Rio': strings must be quoted", 0),
        ('"a" & "b"', "unexpected character '&'", 4),
        ('regexp "a"', "expected '(' after regexp", 7),
        ('regexp("[a")', "invalid regular expression '[a': unterminated character set", 8),
        ('"a" AND regexp("(x")', "invalid regular expression '(x': missing ), unterminated subpattern", 16),
    ],
)
def test_syntax_errors_point_at_the_position(source, message, position):
    with pytest.raises(ConditionSyntaxError) as info:
        parse_condition(source)
    assert message in str(info.value)
    assert info.value.position == position
    assert str(info.value).endswith("\n  " + " " * position + "^")


def test_not_a_string():
    with pytest.raises(TypeError, match="condition must be a str, got int"):
        parse_condition(5)


def test_no_eval(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(ConditionSyntaxError):
        parse_condition(f"__import__('os').system('touch {marker}')")
    assert not marker.exists()
