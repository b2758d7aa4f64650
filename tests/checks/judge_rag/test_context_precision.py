"""Context precision: the judge sees every expected answer (seed 001: a chunk is useful if it helps any ground
truth)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.judge_rag.context_precision import ContextPrecision
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner


def evaluator_for(server, tmp_path):
    evaluator = Registry(entry_points=False).create("context_precision")
    evaluator.bind_judge(
        JudgeRunner(
            OpenAIJudge("scripted", base_url=server.base_url, max_retries=0, max_concurrency=1),
            VerdictCache(str(tmp_path), "record"),
        )
    )
    return evaluator


def prompts(server):
    return [request["messages"][0]["content"] for request in server.requests]


def test_every_expected_answer_is_sent_to_the_judge(server, tmp_path):
    evaluator = evaluator_for(server, tmp_path)
    # the judge says yes only when the prompt holds the second ground truth
    server.responder = lambda body: {
        "text": json.dumps(
            {
                "verdict": "yes" if "The capital is Paris." in body["messages"][0]["content"] else "no",
                "reason": "scripted",
            }
        )
    }
    [result] = evaluator.evaluate(
        [
            Case(
                question="Capital of France?",
                expected=["Lyon", "The capital is Paris."],
                context=["Paris is the capital of France.", "Lyon is a city."],
            )
        ]
    )
    sent = prompts(server)
    assert len(sent) == 2
    for prompt in sent:
        assert "1. Lyon" in prompt and "2. The capital is Paris." in prompt and "any one of them" in prompt
    assert sent[0].endswith("Context chunk: Paris is the capital of France.\n")
    assert result.score == 1.0 and result.passed


def test_one_expected_answer_reads_as_before(server, tmp_path):
    evaluator = evaluator_for(server, tmp_path)
    server.script.append({"text": json.dumps({"verdict": "yes", "reason": "scripted"})})
    [result] = evaluator.evaluate([Case(question="q", expected="15,969 million", context=["chunk a"])])
    [prompt] = prompts(server)
    assert "Expected answer: 15,969 million\n" in prompt and "Expected answers" not in prompt
    assert result.score == 1.0
    assert ContextPrecision.version != "1"
