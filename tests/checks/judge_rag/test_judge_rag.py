"""Judge checks of retrieval by sentence (seed 000 context relevancy, seed 002 context recall and hallucination)
and the binary faithfulness shape (seed 003), against the scripted OpenAI-protocol server."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner


def yes_no(*verdicts):
    return [{"text": json.dumps({"verdict": v, "reason": "scripted"})} for v in verdicts]


def build(name, server, tmp_path, mode="record", **params):
    evaluator = Registry(entry_points=False).create(name, **params)
    # one request at a time: the replies are scripted in order
    evaluator.bind_judge(
        JudgeRunner(
            OpenAIJudge("scripted", base_url=server.base_url, max_retries=0, max_concurrency=1),
            VerdictCache(str(tmp_path), mode),
        )
    )
    return evaluator


CONTEXT = [
    "Canberra is the capital of Australia. It was chosen in 1908.",
    "Sydney is the largest city. It has a famous opera house.",
]


def test_context_relevancy_counts_sentences_by_default(server, tmp_path):
    # 4 context sentences, 1 relevant: the catalog's formula gives 0.25 where the chunk count would give 0.5
    server.script.extend(yes_no("yes", "no", "no", "no"))
    [result] = build("context_relevancy_judge", server, tmp_path).evaluate(
        [Case(question="What is the capital of Australia?", context=CONTEXT)]
    )
    assert result.score == 0.25 and not result.passed
    assert (
        len(server.requests) == 4
        and "Context sentence: Canberra is the capital of Australia." in server.requests[0]["messages"][0]["content"]
    )
    assert result.details["unit"] == "sentence" and result.details["irrelevant"][0] == "It was chosen in 1908."
    assert result.reason.startswith("1/4 sentences relevant")


def test_context_relevancy_by_chunk(server, tmp_path):
    server.script.extend(yes_no("yes", "no"))
    [result] = build("context_relevancy_judge", server, tmp_path, unit="chunk").evaluate(
        [Case(question="q", context=CONTEXT)]
    )
    assert result.score == 0.5 and len(server.requests) == 2
    assert result.signature.params["unit"] == "chunk"


def test_context_relevancy_caps_the_sentences_it_judges_and_says_so(server, tmp_path):
    server.script.extend(yes_no("yes", "yes"))
    [result] = build("context_relevancy_judge", server, tmp_path, max_sentences=2).evaluate(
        [Case(question="q", context=CONTEXT)]
    )
    assert result.score == 1.0 and len(server.requests) == 2
    assert "the first 2 of 4 sentences judged: raise max_sentences" in result.reason


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"unit": "word"}, "parameter 'unit' must be one of 'sentence', 'chunk'"),
        ({"max_sentences": 0}, "max_sentences"),
    ],
)
def test_context_relevancy_refuses_bad_parameters(bad, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Registry(entry_points=False).create("context_relevancy_judge", **bad)


def test_seed_002_recall_and_hallucination_share_one_set_of_verdicts(server, tmp_path):
    answer = "Canberra is the capital. It was founded by Napoleon. It lies in Australia."
    server.script.extend(yes_no("yes", "no", "yes"))
    [recall] = build("context_recall_sentences", server, tmp_path).evaluate([Case(actual=answer, context=CONTEXT)])
    assert recall.score == pytest.approx(2 / 3) and not recall.passed  # threshold 0.75
    assert recall.metrics["hallucination"] == pytest.approx(1 / 3)
    assert "first unsupported: 'It was founded by Napoleon.'" in recall.reason
    [hallucination] = build("hallucination_sentences", server, tmp_path).evaluate(
        [Case(actual=answer, context=CONTEXT)]
    )
    assert hallucination.score == pytest.approx(1 / 3) and not hallucination.passed  # lower is better, at most 0.25
    assert len(server.requests) == 3  # the second check found every verdict in the cache
    assert hallucination.signature.evaluator == "hallucination_sentences" and hallucination.primary == "hallucination"


def test_seed_002_checks_pass_a_supported_answer(server, tmp_path):
    server.script.extend(yes_no("yes", "yes"))
    [result] = build("hallucination_sentences", server, tmp_path).evaluate(
        [Case(actual="Canberra is the capital. It is in Australia.", context=CONTEXT)]
    )
    assert result.score == 0.0 and result.passed and result.metrics["context_recall"] == 1.0


def test_seed_002_parse_failure_leaves_the_case_unscored(server, tmp_path):
    server.script.append({"text": "not json"})
    [result] = build("context_recall_sentences", server, tmp_path).evaluate(
        [Case(actual="One sentence.", context=CONTEXT)]
    )
    assert result.metrics["parse_failure"] == 1.0 and result.score is None and not result.passed


@pytest.mark.parametrize("verdicts, share, faithful", [(("yes", "yes"), 1.0, 1.0), (("yes", "no"), 0.5, 0.0)])
def test_binary_faithfulness(server, tmp_path, verdicts, share, faithful):
    server.script.append({"text": json.dumps({"claims": ["c1", "c2"]})})
    server.script.extend(yes_no(*verdicts))
    [result] = build("faithfulness", server, tmp_path, binary=True).evaluate([Case(actual="a", context=["ctx"])])
    assert result.metrics["faithfulness"] == share and result.metrics["faithful"] == faithful
    assert result.primary == "faithful" and result.score == faithful and result.passed is (faithful == 1.0)


def test_helpers_through_pytest(pytester, server):
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile("""
        from pytest_llmeval import assert_answer_in_context, assert_no_hallucinated_sentences, \
assert_context_relevant_judged

        def test_recall():
            assert_answer_in_context("Canberra is the capital. Napoleon founded it.", ["Canberra is the capital."])

        def test_hallucination():
            assert_no_hallucinated_sentences("Canberra is the capital.", ["Canberra is the capital."])

        def test_relevancy():
            assert_context_relevant_judged("capital?", ["Canberra is the capital. Sydney is big."], unit="chunk")
    """)
    server.script.extend(yes_no("yes", "no", "yes", "yes"))
    result = pytester.runpytest("-p", "no:randomly", "--override-ini=llmeval_judge_cache=off", "--junitxml=out.xml")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*context_recall_sentences*context_recall 0.5*"])


RUBRIC = ["Wrong or off topic.", "Mostly wrong.", "Half right.", "Right with a small slip.", "Right and complete."]


def test_prometheus_grades_by_the_given_rubric(server, tmp_path):
    server.script.append({"text": json.dumps({"reason": "names the capital", "score": 5})})
    evaluator = build("prometheus", server, tmp_path, criteria="Does the answer name the capital?", rubric=RUBRIC)
    [result] = evaluator.evaluate([Case(actual="Canberra.", question="Capital of Australia?", expected="Canberra")])
    assert result.score == 5.0 and result.passed and result.thresholds == {"rubric_score": 4.0}
    prompt = server.requests[0]["messages"][0]["content"]
    assert "###Score Rubrics:\n[Does the answer name the capital?]\nScore 1: Wrong or off topic." in prompt
    assert "Score 5: Right and complete." in prompt and "###Reference Answer (Score 5):\nCanberra" in prompt
    assert "###Response to evaluate:\nCanberra." in prompt
    server.script.append({"text": json.dumps({"reason": "no", "score": 2})})
    [low] = evaluator.evaluate([Case(actual="Sydney.", question="Capital of Australia?")])
    assert low.score == 2.0 and not low.passed
    assert "(none given: grade by the rubric alone)" in server.requests[1]["messages"][0]["content"]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"rubric": RUBRIC}, "parameter 'criteria' must be the graded criterion"),
        ({"criteria": "x", "rubric": RUBRIC[:4]}, "must hold five non-empty descriptions"),
        ({"criteria": "x", "rubric": {1: "a", 2: "b"}}, "must have the keys 1 to 5"),
        ({"criteria": "x"}, "parameter 'rubric' must be five score descriptions"),
    ],
)
def test_prometheus_refuses_a_bad_rubric(params, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Registry(entry_points=False).create("prometheus", **params)


def test_prometheus_rubric_as_a_mapping(server, tmp_path):
    server.script.append({"text": json.dumps({"reason": "ok", "score": 4})})
    evaluator = build(
        "prometheus", server, tmp_path, criteria="Polite?", rubric={i + 1: text for i, text in enumerate(RUBRIC)}
    )
    assert evaluator.params["rubric"] == RUBRIC
    assert evaluator.evaluate([Case(actual="Thank you.")])[0].passed
