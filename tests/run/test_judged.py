"""Judge checks through the plugin, against a real OpenAI-protocol server: record, replay, skip, parse failures."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.judge_rag.context_precision import weighted_precision
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner

SECRET = "sk-judge-secret-value-0123456789abcdef"

SUITE = """
from pytest_llmeval import assert_faithful, assert_context_precision

def test_faithful():
    assert_faithful("Brazil revenue was 15,969 million. Growth was 4 percent.", ["Brazil revenue was 15,969 million."],
                    threshold=0.4)

def test_precision():
    assert_context_precision("Revenue?", "15,969 million", ["chunk a", "chunk b", "chunk c", "chunk d"])
"""


def yes_no(*verdicts):
    return [{"text": json.dumps({"verdict": v, "reason": "scripted"})} for v in verdicts]


@pytest.mark.parametrize("verdicts, expected", [((1, 0, 0, 1), 0.75), ((0, 1, 0, 1), 0.5), ((0, 0), 0.0), ((1,), 1.0)])
def test_weighted_precision_reproduces_the_seed(verdicts, expected):
    assert weighted_precision([bool(v) for v in verdicts]) == expected


def runner_for(server, tmp_path, mode="record"):
    # one request at a time: these tests script the replies in order (fan-out has its own test)
    return JudgeRunner(
        OpenAIJudge("scripted", base_url=server.base_url, max_retries=0, max_concurrency=1),
        VerdictCache(str(tmp_path), mode),
    )


def test_context_precision_with_scripted_verdicts(server, tmp_path):
    evaluator = Registry(entry_points=False).create("context_precision")
    evaluator.bind_judge(runner_for(server, tmp_path))
    server.script.extend(yes_no("yes", "no", "no", "yes"))
    [result] = evaluator.evaluate([Case(question="q", expected="a", context=["1", "2", "3", "4"])])
    assert result.score == 0.75 and result.passed and result.metrics["parse_failure"] == 0.0
    assert "chunk" in server.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("unknown, expected", [("unsupported", 1 / 3), ("supported", 2 / 3)])
def test_faithfulness_ragas_vs_deepeval(server, tmp_path, unknown, expected):
    evaluator = Registry(entry_points=False).create("faithfulness", unknown_claims=unknown)
    evaluator.bind_judge(runner_for(server, tmp_path))
    server.script.append({"text": json.dumps({"claims": ["c1", "c2", "c3"]})})
    server.script.extend(yes_no("yes", "idk", "no"))
    [result] = evaluator.evaluate([Case(actual="answer", context=["ctx"])])
    assert result.score == pytest.approx(expected)
    assert [c["verdict"] for c in result.details["claims"]] == ["yes", "idk", "no"]


def test_malformed_verdict_is_a_parse_failure(server, tmp_path):
    runner = runner_for(server, tmp_path)
    evaluator = Registry(entry_points=False).create("context_precision")
    evaluator.bind_judge(runner)
    server.script.append({"text": "I think it is probably useful."})
    [result] = evaluator.evaluate([Case(question="q", expected="a", context=["1"])])
    assert result.score is None and not result.passed and result.metrics["parse_failure"] == 1.0
    assert "no JSON in the judge's reply" in result.reason
    server.script.append({"text": '{"verdict": "ye', "finish_reason": "length"})
    [cut] = evaluator.evaluate([Case(question="q2", expected="a", context=["1"])])
    assert "finish_reason=length" in cut.reason and runner.parse_failures == 2


def test_record_then_replay_through_the_plugin(pytester, server, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    pytester.makeini(
        "[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = "
        f"{server.base_url}\nllmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makepyfile(SUITE)
    server.script.append(
        {"text": json.dumps({"claims": ["Brazil revenue was 15,969 million.", "Growth was 4 percent."]})}
    )
    server.script.extend(yes_no("yes", "idk"))
    server.script.extend(yes_no("yes", "no", "no", "yes"))
    first = pytester.runpytest(
        "--llmeval-report=first.json",
        "-p",
        "no:randomly",
        "--junitxml=first.xml",
        "--override-ini=llmeval_judge_price=1000,2000",
    )
    first.assert_outcomes(passed=2)
    calls = len(server.requests)
    assert calls == 7
    first.stdout.fnmatch_lines(
        [
            "llmeval judge: 7 call(s), 70+35 tokens, cost 0.1400; 0 verdict(s) replayed; 0 parse failure(s); 0 "
            "check(s) skipped",
            "llmeval judge: 60 tokens, cost 0.0800: test_record_then_replay_through_the_plugin.py::test_precision",
            "llmeval judge: 45 tokens, cost 0.0600: test_record_then_replay_through_the_plugin.py::test_faithful",
        ]
    )
    from xml.etree import ElementTree

    props = {p.get("name"): p.get("value") for p in ElementTree.parse(pytester.path / "first.xml").iter("property")}
    assert props["llmeval.faithfulness.judge_calls"] == "3" and props["llmeval.faithfulness.judge_tokens"] == "45"
    assert float(props["llmeval.context_precision.judge_cost"]) == pytest.approx(0.08)

    second = pytester.runpytest(
        "--llmeval-report=second.json", "--override-ini=llmeval_judge_cache=replay", "-p", "no:randomly"
    )
    second.assert_outcomes(passed=2)
    assert len(server.requests) == calls  # zero HTTP calls on replay
    one = json.loads((pytester.path / "first.json").read_text())
    two = json.loads((pytester.path / "second.json").read_text())
    assert [r["metrics"] for r in one["results"]] == [r["metrics"] for r in two["results"]]
    assert two["judge"]["cache_hits"] == 7 and two["judge"]["calls"] == 0
    assert one["judge"]["per_test"]["test_record_then_replay_through_the_plugin.py::test_faithful"] == {
        "calls": 3,
        "replayed": 0,
        "tokens": 45,
        "cost": 0.06,
    }
    assert two["judge"]["per_test"]["test_record_then_replay_through_the_plugin.py::test_faithful"] == {
        "calls": 0,
        "replayed": 3,
        "tokens": 0,
        "cost": 0.0,
    }
    everything = "".join(
        p.read_text() for p in pytester.path.rglob("*") if p.is_file() and p.suffix in (".json", ".md", ".html", ".xml")
    )
    assert SECRET not in everything + first.stdout.str() + second.stdout.str()


def test_replay_miss_fails_naming_the_check(pytester, server):
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--override-ini=llmeval_judge_cache=replay")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["llmeval: faithfulness claims: no recorded judge verdict (replay-only mode*"])
    assert server.requests == []


def test_no_judge_or_offline_skips_with_a_reason(pytester, server):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "llmeval judge: 0 call(s)*; 2 check(s) skipped",
            "*llmeval judge unavailable: no judge configured (set --llmeval-judge-model*",
        ]
    )
    assert "0 checks on 0 models" not in result.stdout.str()
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    offline = pytester.runpytest("--llmeval-offline", "-rs")
    offline.assert_outcomes(skipped=2)
    offline.stdout.fnmatch_lines(["*llmeval judge unavailable: offline (--llmeval-offline)*"])
    assert server.requests == []


def build(name, server, tmp_path, **params):
    evaluator = Registry(entry_points=False).create(name, **params)
    evaluator.bind_judge(runner_for(server, tmp_path))
    return evaluator


def test_context_recall_best_over_expected_answers(server, tmp_path):
    evaluator = build("context_recall", server, tmp_path)
    server.script.append({"text": json.dumps({"statements": ["s1", "s2"]})})
    server.script.extend(yes_no("yes", "no"))
    server.script.append({"text": json.dumps({"statements": ["t1"]})})
    server.script.extend(yes_no("yes"))
    [result] = evaluator.evaluate([Case(expected=["first truth", "second truth"], context=["ctx"])])
    assert result.score == 1.0 and result.details["reference"] == 1


def test_context_relevancy_and_hallucination_shares(server, tmp_path):
    server.script.extend(yes_no("yes", "no", "yes", "yes"))
    [relevancy] = build("context_relevancy_judge", server, tmp_path).evaluate(
        [Case(question="q", context=["a", "b", "c", "d"])]
    )
    assert relevancy.score == 0.75
    server.script.extend(yes_no("no", "yes", "no", "no"))
    [hallucination] = build("hallucination_judge", server, tmp_path).evaluate(
        [Case(actual="x", context=["a", "b", "c", "d"])]
    )
    assert hallucination.score == 0.25 and hallucination.passed  # lower is better; threshold 0.25


def test_answer_correctness_f1(server, tmp_path):
    # 3 answer statements, 2 supported (tp 2, fp 1); 2 truth statements, 1 missing (fn 1): F1 = 2 / (2 + 1) = 0.667
    evaluator = build("answer_correctness", server, tmp_path, f1_weight=1.0, similarity_weight=0.0)
    server.script.append({"text": json.dumps({"statements": ["a1", "a2", "a3"]})})
    server.script.append({"text": json.dumps({"statements": ["t1", "t2"]})})
    server.script.extend(yes_no("yes", "yes", "no"))
    server.script.extend(yes_no("yes", "no"))
    [result] = evaluator.evaluate([Case(actual="answer", expected="truth")])
    assert result.metrics["f1"] == pytest.approx(2 / 3) and result.score == pytest.approx(2 / 3)
    assert result.metrics["similarity"] is None and (
        result.details["tp"],
        result.details["fp"],
        result.details["fn"],
    ) == (2, 1, 1)
    with pytest.raises(ValueError, match="must be non-negative and sum to 1"):
        Registry(entry_points=False).create("answer_correctness", f1_weight=0.5, similarity_weight=0.2)


def test_judge_sampling_settings_reach_the_server_and_bad_ones_are_named(pytester, server):
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_temperature = 0.3\nllmeval_judge_seed = none\nllmeval_judge_max_tokens = 77\n"
    )
    pytester.makepyfile(SUITE)
    server.script.append({"text": json.dumps({"claims": ["c"]})})
    pytester.runpytest("-k", "faithful", "--override-ini=llmeval_judge_cache=off").assert_outcomes(passed=1)
    sent = server.requests[0]
    assert sent["temperature"] == 0.3 and sent["max_tokens"] == 77 and "seed" not in sent
    pytester.makeini("[pytest]\nllmeval_judge_max_tokens = lots\n")
    result = pytester.runpytest()
    assert result.ret != 0
    result.stderr.fnmatch_lines(
        ["*llmeval_judge_max_tokens in the ini file (or -o): expected a positive integer; got 'lots'*"]
    )
