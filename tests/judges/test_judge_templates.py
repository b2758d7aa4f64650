"""Judge prompts are public and replaceable: each judge check's module has a PROMPTS table, a call replaces some
(``prompts=``), a plugin replaces them for a run (``pytest_llmeval_judge_prompts``), and the signature knows."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import Case, Registry

CUSTOM = "Split the answer into claims, one fact each. JSON only: {{\"claims\": [...]}}\n\nAnswer: {answer}\n"


def _judge(server, tmp_path, check, **params):
    pytest.importorskip("openai")
    from pytest_llmeval.judges.cache import VerdictCache
    from pytest_llmeval.judges.openai_judge import OpenAIJudge
    from pytest_llmeval.judges.runner import JudgeRunner

    def respond(body):
        prompt = body["messages"][-1]["content"]
        if '"claims"' in prompt:
            return {"text": json.dumps({"claims": ["Paris is in France."]})}
        return {"text": json.dumps({"verdict": "yes", "reason": "stated"})}

    server.responder = respond
    evaluator = Registry(entry_points=False).create(check, **params)
    evaluator.bind_judge(JudgeRunner(OpenAIJudge("scripted", base_url=server.base_url, max_retries=0), VerdictCache(str(tmp_path), "off")))
    return evaluator


def test_every_judge_check_has_public_prompts():
    registry = Registry(entry_points=False)
    judged = {name: registry.resolve(name) for name in registry.names() if registry.resolve(name).needs_judge}
    faithfulness = judged["faithfulness"].default_prompts()
    assert {"claims", "claim_verdict", "statements"} <= set(faithfulness)
    from pytest_llmeval.checks.judge_rag import faithfulness as module

    assert faithfulness["claims"] is module.CLAIMS_PROMPT
    assert all("prompts" in cls.defaults for cls in judged.values())


def test_a_call_replaces_a_prompt_and_the_signature_changes(server, tmp_path):
    default = _judge(server, tmp_path, "faithfulness")
    custom = _judge(server, tmp_path, "faithfulness", prompts={"claims": CUSTOM})
    case = Case(actual="Paris is in France.", context=["Paris is the capital of France."])
    [result] = custom.evaluate([case])
    sent = [body["messages"][-1]["content"] for body in server.requests]
    assert any(text.startswith("Split the answer into claims, one fact each.") for text in sent)
    assert result.verdict == "pass"
    assert default.signature().params["prompts"] != custom.signature().params["prompts"]
    assert "Split the answer" not in custom.signature().key  # a version, not the text


@pytest.mark.parametrize(("prompts", "error"), [
    ({"claimz": CUSTOM}, r"no prompt 'claimz'; its prompts: claim_verdict, claims, statements"),
    ({"claims": "Claims of {text}"}, r"prompts\['claims'\] may use the fields \{answer\}"),
    ({"claims": ""}, r"must be a non-empty template"),
    ("claims", r"prompts must be a mapping of prompt name to template"),
])
def test_a_bad_replacement_names_the_argument_and_what_it_may_use(prompts, error):
    with pytest.raises((TypeError, ValueError), match=error):
        Registry(entry_points=False).create("faithfulness", prompts=prompts)


def test_a_plugin_replaces_prompts_for_the_run_and_a_call_wins(pytester, server):
    pytest.importorskip("openai")
    seen = []

    def respond(body):
        prompt = body["messages"][-1]["content"]
        seen.append(prompt)
        if '"claims"' in prompt:
            return {"text": json.dumps({"claims": ["Paris is in France."]})}
        return {"text": json.dumps({"verdict": "yes", "reason": "stated"})}

    server.responder = respond
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
                     "llmeval_judge_api_key_env = JUDGE_KEY\n")
    pytester.makeconftest(
        "def pytest_llmeval_judge_prompts(config, check, prompts):\n"
        "    if check == 'faithfulness':\n"
        "        return {'claim_verdict': 'RUN-WIDE ' + prompts['claim_verdict']}\n")
    pytester.makepyfile(
        "from pytest_llmeval import assert_faithful\n\n"
        "def test_hook():\n    assert_faithful('Paris is in France.', ['Paris is the capital of France.'])\n\n"
        "def test_call():\n"
        "    assert_faithful('Paris is in France.', ['Paris is the capital of France.'],\n"
        "                    prompts={'claim_verdict': 'PER-CALL {context} {claim}'})\n")
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-judge-cache=off", "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=2)
    assert any(text.startswith("RUN-WIDE ") for text in seen)
    assert any(text.startswith("PER-CALL ") for text in seen)
