"""A judge per check (seed 000 lets each evaluator use its own judge): judge.for = { EVALUATOR = "MODEL" }."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")


def test_one_check_gets_its_own_judge_model_recorded_in_its_signature(pytester, server):
    server.responder = lambda body: {
        "text": json.dumps({"verdict": "absent" if "contact" in json.dumps(body) else "same"})
    }
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = main-judge\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_for =\n    contact_information=special-judge\n"
    )
    pytester.makepyfile(
        "from pytest_llmeval import assert_no_contact_info, assert_same_language\n\n"
        "def test_contact():\n    assert_no_contact_info('Nothing personal here.')\n\n"
        "def test_language():\n    assert_same_language('Paris is the capital.', 'What is the capital of France?')\n"
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-report=out.json", "--override-ini=llmeval_judge_cache=off"
    )
    result.assert_outcomes(passed=2)
    models = {(request["model"], "contact" in json.dumps(request)) for request in server.requests}
    assert models == {("special-judge", True), ("main-judge", False)}
    report = json.loads((pytester.path / "out.json").read_text())
    signatures = {r["evaluator"]: r["signature"]["model"] for r in report["results"]}
    assert '"model": "special-judge"' in signatures["contact_information"]
    assert '"model": "main-judge"' in signatures["language_mismatch"]
    assert report["judge"]["calls"] == len(server.requests)  # both judges' calls counted


@pytest.mark.parametrize(
    "value, message",
    [
        ("faithfulness", "*invalid judge assignment 'faithfulness': expected EVALUATOR=MODEL*"),
        ("rouge=gpt-4o", "*judge.for / llmeval_judge_for: rouge is not a judge check*"),
        ("nope=gpt-4o", "*judge.for / llmeval_judge_for: no evaluator named 'nope'*"),
    ],
)
def test_bad_judge_assignments_are_usage_errors(pytester, value, message):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(f"--override-ini=llmeval_judge_for={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
