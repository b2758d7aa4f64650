"""Judge prompts are public and replaceable: each judge check's module has a PROMPTS table, a call replaces some
(``prompts=``), a plugin replaces them for a run (``pytest_llmeval_judge_prompts``), and the signature knows."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import Case, Registry

CUSTOM = 'Split the answer into claims, one fact each. JSON only: {{"claims": [...]}}\n\nAnswer: {answer}\n'


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
    evaluator.bind_judge(
        JudgeRunner(
            OpenAIJudge("scripted", base_url=server.base_url, max_retries=0), VerdictCache(str(tmp_path), "off")
        )
    )
    return evaluator


def test_every_judge_check_has_public_prompts():
    registry = Registry(entry_points=False)
    judged = {name: registry.resolve(name) for name in registry.names() if registry.resolve(name).needs_judge}
    faithfulness = judged["faithfulness"].default_prompts()
    assert {"claims", "claim_verdict", "statements"} <= set(faithfulness)
    from pytest_llmeval.checks.judge_rag import faithfulness as module

    assert faithfulness["claims"] is module.CLAIMS_PROMPT
    assert all("prompts" in cls.defaults for cls in judged.values())


#: What a check needs besides its prompts to be built at all.
NEEDS = {
    "dag": {"dag": {"judge": "Is the answer polite?", "children": {"yes": 10, "no": 0}}},
    "g_eval": {"criteria": "Coherence - the answer is well organised."},
    "prometheus": {
        "criteria": "Is the answer accurate?",
        "rubric": ["Wrong.", "Mostly wrong.", "Half right.", "Mostly right.", "Right."],
    },
}


def _judge_checks():
    registry = Registry(entry_points=False)
    return sorted(name for name in registry.names() if registry.resolve(name).needs_judge)


@pytest.mark.parametrize("name", _judge_checks())
def test_every_prompt_a_judge_check_asks_is_in_a_public_table_prompts_reach(server, tmp_path, name):
    """Each judge check's prompts are in a ``PROMPTS`` table of its family (not only the base's), and ``prompts=``
    reaches the one it asks first: with every prompt replaced by a marked copy, the first request carries the mark."""
    import sys

    cls = Registry(entry_points=False).resolve(name)
    tables = [
        k.__module__
        for k in cls.__mro__
        if k.__module__.startswith("pytest_llmeval.checks.")
        and isinstance(getattr(sys.modules[k.__module__], "PROMPTS", None), dict)
    ]
    assert tables, f"{name}: no PROMPTS table in its module or its family's"
    marked = {key: "MARKED " + text for key, text in cls.default_prompts().items()}
    evaluator = _judge(server, tmp_path, name, prompts=marked, **NEEDS.get(name, {}))
    server.responder = lambda body: {"text": "{}"}
    evaluator.evaluate(
        [
            Case(
                actual="Paris is the capital of France.",
                question="What is the capital of France?",
                expected="Paris",
                context=["Paris is the capital of France."],
                metadata={},
            )
        ]
    )
    assert server.requests, f"{name} asked the judge nothing"
    assert server.requests[0]["messages"][-1]["content"].startswith("MARKED "), name


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


@pytest.mark.parametrize(
    ("prompts", "error"),
    [
        ({"claimz": CUSTOM}, r"no prompt 'claimz'; its prompts: claim_verdict, claims, statements"),
        ({"claims": "Claims of {text}"}, r"prompts\['claims'\] may use the fields \{answer\}"),
        ({"claims": ""}, r"must be a non-empty template"),
        ("claims", r"prompts must be a mapping of prompt name to template"),
    ],
)
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
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makeconftest(
        "def pytest_llmeval_judge_prompts(config, check, prompts):\n"
        "    if check == 'faithfulness':\n"
        "        return {'claim_verdict': 'RUN-WIDE ' + prompts['claim_verdict']}\n"
    )
    pytester.makepyfile(
        "from pytest_llmeval import assert_faithful\n\n"
        "def test_hook():\n    assert_faithful('Paris is in France.', ['Paris is the capital of France.'])\n\n"
        "def test_call():\n"
        "    assert_faithful('Paris is in France.', ['Paris is the capital of France.'],\n"
        "                    prompts={'claim_verdict': 'PER-CALL {context} {claim}'})\n"
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "--override-ini=llmeval_judge_cache=off", "--llmeval-cache-dir=off"
    )
    result.assert_outcomes(passed=2)
    assert any(text.startswith("RUN-WIDE ") for text in seen)
    assert any(text.startswith("PER-CALL ") for text in seen)
