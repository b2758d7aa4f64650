"""Text matching on answer and context; JSON Schema validation."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, ConditionSyntaxError
from pytest_llmeval.checks.lexical.json_schema import JsonSchema
from pytest_llmeval.checks.lexical.text_matching import TextMatching


def test_matching_checks_answer_and_context():
    condition = '"15,969" AND NOT "Real"'
    both, bad_context, bad_answer, no_context = TextMatching().evaluate(
        [
            Case(actual="15,969 million", context=["Brazil: 15,969 million"], conditions=condition),
            Case(actual="15,969 million", context=["Real Madrid", "15,969"], conditions=condition),
            Case(actual="16 billion", context=["15,969"], conditions=condition),
            Case(actual="15,969", conditions=condition),
        ]
    )
    assert dict(both.metrics) == {"pass": 1.0, "fail": 0.0, "retrieval_failure": 0.0, "generation_failure": 0.0}
    assert dict(bad_context.metrics) == {"pass": 0.0, "fail": 1.0, "retrieval_failure": 1.0, "generation_failure": 0.0}
    assert 'context: found forbidden "Real"' in bad_context.reason
    assert dict(bad_answer.metrics)["generation_failure"] == 1.0
    assert list(bad_answer.details["answer"]) == ['missing "15,969"']
    assert no_context.passed and no_context.metrics["retrieval_failure"] is None
    [answer_only] = TextMatching(evaluate_context=False).evaluate(
        [Case(actual="15,969", context=["Real"], conditions=condition)]
    )
    assert answer_only.passed


def test_matching_requires_conditions_and_rejects_bad_ones():
    with pytest.raises(ValueError, match="text_matching requires 'conditions'"):
        TextMatching().evaluate([Case(actual="x")])
    with pytest.raises(ConditionSyntaxError, match="unterminated string"):
        TextMatching().evaluate([Case(actual="x", conditions='"x')])


SCHEMA = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"price": {"type": "number"}}}},
    },
}


@pytest.mark.parametrize(
    "answer, passed, reason",
    [
        ('{"id": 1, "items": [{"price": 2.5}]}', True, "valid JSON that follows the schema"),
        ('```json\n{"id": 1, "items": []}\n```', True, "valid JSON that follows the schema"),
        (
            '{"id": 1, "items": [{"price": "cheap"}]}',
            False,
            "schema violation at $.items[0].price: 'cheap' is not of type 'number'",
        ),
        ('{"items": []}', False, "schema violation at $: 'id' is a required property"),
        ('{"id": 1, "items": [', False, "answer is not JSON: Expecting value (line 1, column 21)"),
        ("", False, "answer is empty, not JSON"),
        ("Sure! Here is the JSON: {}", False, "answer is not JSON: Expecting value (line 1, column 1)"),
    ],
)
def test_json_schema_cases(answer, passed, reason):
    [result] = JsonSchema(schema=SCHEMA).evaluate([Case(actual=answer)])
    assert result.passed is passed
    assert result.reason == reason
    assert result.metrics["invalid"] == float(not passed)


def test_json_schema_error_listing_and_fences_off():
    [result] = JsonSchema(schema=SCHEMA).evaluate([Case(actual='{"id": "x", "items": 3}')])
    assert result.reason.endswith("(and 1 more)")
    assert [e["path"] for e in result.details["errors"]] == ["$.id", "$.items"]
    [fenced] = JsonSchema(strip_fences=False).evaluate([Case(actual="```json\n{}\n```")])
    assert not fenced.passed


def test_empty_schema_only_parses():
    results = JsonSchema().evaluate([Case(actual="[1, 2]"), Case(actual='"text"'), Case(actual="{oops}")])
    assert [r.passed for r in results] == [True, True, False]


def test_schema_as_json_text_and_signature_leaves_it_out():
    one = JsonSchema(schema='{"type": "array"}')
    two = JsonSchema(schema={"type": "object"})
    assert one.signature() == two.signature()
    [r1] = one.evaluate([Case(actual="[]")])
    [r2] = two.evaluate([Case(actual="[]")])
    assert r1.passed and not r2.passed
    assert r1.details["schema_sha256"] != r2.details["schema_sha256"]


@pytest.mark.parametrize(
    "schema, error, message",
    [
        (
            {"type": "no-such-type"},
            ValueError,
            "parameter 'schema' is not a valid JSON Schema: 'no-such-type' is not valid",
        ),
        ({"properties": {"a": {"minimum": "zero"}}}, ValueError, "(at $.properties.a.minimum of the schema)"),
        ("{not json", ValueError, "parameter 'schema' is a str but not JSON"),
        (42, TypeError, "parameter 'schema' must be a JSON Schema (a mapping, a bool or JSON text); got int"),
    ],
)
def test_invalid_schema_is_a_clear_error(schema, error, message):
    with pytest.raises(error) as info:
        JsonSchema(schema=schema)
    assert message in str(info.value)


def test_json_schema_reports_invalid_generated_and_retrieved_json():
    """Seed 000's JSON Schema evaluator: 'Invalid retrieved JSON' and 'Invalid generated JSON'."""
    from pytest_llmeval import assert_json

    schema = {"type": "object", "required": ["id"]}
    result = assert_json('{"id": 1}', schema, context=['{"id": 2}', '{"name": "x"}', "not json", '{"id": 3}'])
    assert result.metrics["invalid_generated_json"] == 0.0 and result.metrics["invalid_retrieved_json"] == 0.5
    assert (
        list(result.details["invalid_chunks"]) == [1, 2] and "2/4 retrieved chunks are not valid JSON" in result.reason
    )
    assert assert_json('{"id": 1}', schema).metrics["invalid_retrieved_json"] is None
