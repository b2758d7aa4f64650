"""evaluate_many(): one batch for many cases outside pytest (a notebook, a script), the same results as one evaluate()
per case, recorded inside a test."""

from __future__ import annotations

import json
import uuid

import pytest

from pytest_llmeval import Case, evaluate, evaluate_many

MUSEUM = ["The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."]
ANSWERS = [
    "The museum opens at 9 a.m.",
    "Entry is free for children under 16.",
    "Kids below twelve get in without paying.",
    "It closes at 5 p.m.",
    "Thanks!",
    "The museum is in Paris.",
]


def test_the_same_results_as_one_evaluate_per_case_in_order():
    pytest.importorskip("sentence_transformers")
    many = evaluate_many(
        "groundedness", [{"actual": a, "context": MUSEUM, "case_id": f"c{i}"} for i, a in enumerate(ANSWERS)]
    )
    one = [evaluate("groundedness", actual=a, context=MUSEUM, case=f"c{i}") for i, a in enumerate(ANSWERS)]
    assert [(r.case_id, r.verdict, r.metrics, r.reason) for r in many] == [
        (r.case_id, r.verdict, r.metrics, r.reason) for r in one
    ]
    assert {r.verdict for r in many} >= {"pass", "fail", "unverified"}


def test_one_batch_encodes_once(monkeypatch):
    pytest.importorskip("sentence_transformers")
    from pytest_llmeval.models.cache import Embedder

    calls = []
    real = Embedder.encode

    def counted(self, texts):
        calls.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(Embedder, "encode", counted)
    fresh = uuid.uuid4().hex  # no sentence is in a cache yet (the session's disk cache outlives a run)
    evaluate_many("groundedness", [Case(actual=f"{a} ({fresh})", context=(f"{MUSEUM[0]} ({fresh})",)) for a in ANSWERS])
    assert len(calls) == 1  # every answer's sentences and the contexts in one call


def test_cases_and_mappings_mix_and_bad_items_are_named():
    results = evaluate_many("exact_match", [Case(actual="4", expected=("4",)), {"actual": "5", "expected": ["4"]}])
    assert [r.passed for r in results] == [True, False]
    assert evaluate_many("exact_match", []) == []
    with pytest.raises(
        TypeError, match=r"exact_match: argument 'cases'\[1\] must be a Case or a mapping of case fields; got str"
    ):
        evaluate_many("exact_match", [{"actual": "4", "expected": ["4"]}, "4"])
    with pytest.raises(TypeError, match=r"argument 'cases'\[0\] has unknown field\(s\) answer"):
        evaluate_many("exact_match", [{"answer": "4"}])


def test_inside_a_test_each_result_is_recorded(pytester):
    pytester.makepyfile(
        "from pytest_llmeval import evaluate_many\n\n"
        "def test_set():\n"
        "    results = evaluate_many('exact_match', [{'actual': a, 'expected': ['4'], 'case_id': a} for a in ('4', "
        "'5', '4')])\n"
        "    assert [r.passed for r in results] == [True, False, True]\n"
    )
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=out.json").assert_outcomes(passed=1)
    report = json.loads((pytester.path / "out.json").read_text())
    assert [(r["case_id"], r["verdict"]) for r in report["results"]] == [("4", "pass"), ("5", "fail"), ("4", "pass")]
