"""Seed 000's agent checks: the fact-check judge and the agent sanity check of artifacts."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import LLMEvalAssertionError, assert_agent_artifacts


def test_agent_artifacts_are_checked_as_the_seed_says(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps({"status": "done", "rows": 3}))
    (tmp_path / "notes.md").write_text("# Notes\nAll good.\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.csv").write_text("x\n1\n")
    result = assert_agent_artifacts(
        {"report.json": {"fields": {"status": "done"}}, "notes.md": {}, "out": {"contains": ["a.csv"]}}, root=tmp_path
    )
    assert result.score == 1.0 and result.reason == "3 of 3 artifacts sane"
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "empty.txt").write_text("")
    expectations = {
        "notes.md": {},
        "broken.json": {},
        "empty.txt": {},
        "missing.pdf": {},
        "report.json": {"fields": {"status": "failed"}},
    }
    with pytest.raises(
        LLMEvalAssertionError,
        match="1 of 5 artifacts sane; broken.json: not valid JSON .*, empty.txt: empty, "
        "missing.pdf: missing, report.json: field status='done', expected 'failed'",
    ):
        assert_agent_artifacts(expectations, root=tmp_path, threshold=0.9)
    strict = assert_agent_artifacts(["notes.md", "report.json"], root=tmp_path, exact=True, threshold=0.0)
    assert "out: not expected" in strict.reason and "broken.json: not expected" in strict.reason
    with pytest.raises(TypeError, match="'artifacts' must name the files"):
        assert_agent_artifacts("notes.md", root=tmp_path)


def test_fact_check_asks_the_seed_prompt_and_scores_the_reply(pytester, server):
    pytest.importorskip("openai")
    server.default = {
        "text": json.dumps(
            {"answer": "no", "evaluation_score": 0.2, "evaluation_summary": "The Eiffel Tower is in Paris."}
        )
    }
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makepyfile(
        "from pytest_llmeval import assert_fact_checked\n\n"
        "def test_tower():\n    assert_fact_checked('The Eiffel Tower is in Rome.', question='Where is the Eiffel "
        "Tower?')\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--override-ini=llmeval_judge_cache=off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*fact_check 0.200 < threshold 0.75*", "*fact-check 0.20: The Eiffel Tower is in Paris.*"]
    )
    prompt = server.requests[0]["messages"][0]["content"]
    assert "Fact-check the text and determine whether the text contains false information." in prompt
    assert "The Eiffel Tower is in Rome." in prompt and "Where is the Eiffel Tower?" in prompt


def test_review_findings_on_artifacts(tmp_path):
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.json").write_text('{"ok": true}')
    (tmp_path / "notes.md").write_text("fine\n")
    array = assert_agent_artifacts({"list.json": {"fields": {"status": "ok"}}}, root=tmp_path, threshold=0.0)
    assert "list.json: not a JSON object (a list)" in array.reason
    nested = assert_agent_artifacts(["sub/x.json", "./notes.md", "list.json"], root=tmp_path, exact=True)
    assert nested.score == 1.0, nested.reason  # an expected file makes its folder expected
