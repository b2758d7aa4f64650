"""``sentence_level_metrics`` (seed 000: answer accuracy, step alignment): what a result keeps, never its score."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sentence_transformers")

from pytest_llmeval import Case, Registry

REGISTRY = Registry(entry_points=False)

ANSWER = "The Eiffel Tower is in Paris. It is 330 metres tall. It opened in 1889."
EXPECTED = "The Eiffel Tower stands in Paris, is 330 metres tall and opened in 1889."
STEPS = "1. Unplug the router. 2. Wait 30 seconds. 3. Plug it back in."


@pytest.mark.parametrize(
    "name, case, kept",
    [
        ("answer_accuracy", Case(actual=ANSWER, expected=EXPECTED), ("sentence_scores",)),
        ("step_alignment", Case(actual=STEPS, context=[STEPS]), ("answer_steps", "context_steps")),
    ],
)
def test_sentence_level_metrics_drop_details_not_scores(models, name, case, kept):
    results = {}
    for flag in (True, False):
        evaluator = REGISTRY.create(name, sentence_level_metrics=flag)
        evaluator.bind(models)
        [results[flag]] = evaluator.evaluate([case])
    full, lean = results[True], results[False]
    assert full.metrics == lean.metrics and full.passed == lean.passed
    assert all(key in full.details for key in kept) and not any(key in lean.details for key in kept)
    if name == "answer_accuracy":
        assert len(full.details["sentence_scores"]) == 3 and lean.details["least_accurate"]
    # a reporting choice, not a scoring one: both runs compare as like scores
    assert full.signature == lean.signature and "sentence_level_metrics" not in full.signature.params
    assert len(json.dumps(lean.to_dict())) < len(json.dumps(full.to_dict()))


def test_sentence_level_metrics_must_be_a_bool():
    with pytest.raises(TypeError, match="parameter 'sentence_level_metrics' must be True or False"):
        REGISTRY.create("answer_accuracy", sentence_level_metrics="no")


def test_helpers_pass_it_through(pytester):
    pytester.makepyfile(f"""
        from pytest_llmeval import assert_accurate, assert_steps_aligned

        def test_accurate():
            r = assert_accurate({ANSWER!r}, {EXPECTED!r}, sentence_level_metrics=False, threshold=0.3)
            assert "sentence_scores" not in r.details

        def test_steps():
            r = assert_steps_aligned({STEPS!r}, [{STEPS!r}], sentence_level_metrics=False)
            assert "answer_steps" not in r.details
    """)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
