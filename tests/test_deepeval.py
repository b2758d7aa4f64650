"""deepeval interop: any deepeval metric as an llmeval check, and our judge (with its verdict cache) as deepeval's
model.

Runs where deepeval is installed (README's test command installs it for this file alone,
with ``-p no:deepeval``: its own pytest plugin costs seconds at every start).
"""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")  # no PostHog upload at exit, no .deepeval/ folder
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")
pytest.importorskip("deepeval")
pytest.importorskip("openai")

# Imported here, once: pytester's in-process runs would otherwise import deepeval afresh each time.
import deepeval.metrics  # noqa: E402,F401
import deepeval.models  # noqa: E402,F401
import deepeval.test_case  # noqa: E402,F401

from tests.judge_server import ScriptedJudgeServer  # noqa: E402

METRICS = """
from deepeval.metrics import BaseMetric


class Length(BaseMetric):
    '''Share of a character budget left over; or, with lower=True, the share used (passes at or below the threshold).'''

    def __init__(self, budget=50, threshold=0.5, lower=False):
        self.budget, self.threshold, self.lower = budget, threshold, lower
        self.async_mode, self.strict_mode, self.include_reason, self.verbose_mode = False, False, True, False

    def measure(self, test_case, *args, **kwargs):
        used = min(1.0, len(test_case.actual_output or "") / self.budget)
        self.score = used if self.lower else 1 - used
        self.reason = f"{len(test_case.actual_output or '')} chars of {self.budget}"
        self.success = self.is_successful()
        return self.score

    async def a_measure(self, test_case, *args, **kwargs):
        return self.measure(test_case)

    def is_successful(self):
        if self.lower:
            return self.score <= self.threshold
        return self.score >= self.threshold

    @property
    def __name__(self):
        return "Length"
"""

SUITE = """
import pytest
from deepeval.test_case import LLMTestCase
from metrics import Length
from pytest_llmeval import assert_metric

@pytest.mark.llmeval(model="m1")
def test_short():
    assert_metric(Length(), actual="Paris.", question="Capital of France?")

def test_long():
    assert_metric(Length(), test_case=LLMTestCase(input="q", actual_output="x" * 40))

def test_lower_is_better():
    assert_metric(Length(lower=True), actual="x" * 10)

def test_not_a_metric():
    assert_metric("Length", actual="x")
"""


def test_any_deepeval_metric_is_recorded_like_ours(pytester):
    pytester.makepyfile(metrics=METRICS, test_suite=SUITE)
    result = pytester.runpytest(
        "-p",
        "no:deepeval",
        "-p",
        "no:asyncio",
        "--llmeval-report=report.json",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*llmeval deepeval failed: score 0.200 < threshold 0.500*",
            "*why: Length: 40 chars of 50*",
            "*argument 'metric' must be a deepeval metric (with .measure()); got str*",
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text())
    records = {r["nodeid"].split("::")[1]: r for r in report["results"]}
    short = records["test_short"]
    assert short["metrics"] == {"score": pytest.approx(1 - 6 / 50)} and short["passed"] and short["model"] == "m1"
    assert short["signature"]["params"] == {"metric": "Length", "class": "Length", "strict_mode": False}
    assert short["signature"]["backend"].startswith("deepeval ")
    lower = records["test_lower_is_better"]
    assert lower["passed"] and lower["higher_is_better"] == {"score": False}  # read from the metric's own verdict
    assert 'name="llmeval.deepeval.score"' in (pytester.path / "junit.xml").read_text()


def schema_reply(body):
    """Follow the pydantic schema deepeval asks for: steps, then a 0-10 score; statements and verdicts."""
    schema = body.get("response_format", {}).get("json_schema", {}).get("schema", {})
    props = schema.get("properties", {})
    reply = {}
    if "steps" in props:
        reply["steps"] = ["Check the facts", "Check the tone"]
    if "score" in props:
        reply["score"] = 8
    if "reason" in props:
        reply["reason"] = "scripted"
    if "statements" in props:
        reply["statements"] = ["Paris is the capital of France."]
    if "verdicts" in props:
        reply["verdicts"] = [{"verdict": "yes", "reason": "relevant"}]
    return {"text": json.dumps(reply)}


JUDGED = """
from deepeval.metrics import AnswerRelevancyMetric, GEval
from deepeval.test_case import LLMTestCaseParams
from pytest_llmeval import assert_metric

def test_geval(llmeval_deepeval_judge):
    metric = GEval(name="Correctness", criteria="The answer is correct.", model=llmeval_deepeval_judge, \
async_mode=False,
                   evaluation_params=[LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT])
    assert_metric(metric, actual="Paris is the capital of France.", question="Capital of France?")

def test_relevancy(llmeval_deepeval_judge):
    metric = AnswerRelevancyMetric(model=llmeval_deepeval_judge, async_mode=False)
    assert_metric(metric, actual="Paris is the capital of France.", question="Capital of France?")
"""


@pytest.fixture
def server():
    running = ScriptedJudgeServer()
    running.responder = schema_reply
    yield running.start()
    running.stop()


def test_our_judge_serves_deepeval_metrics_with_record_and_replay(pytester, server):
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile(JUDGED)
    first = pytester.runpytest(
        "-p", "no:deepeval", "-p", "no:asyncio", "--llmeval-report=first.json", "-p", "no:randomly"
    )
    first.assert_outcomes(passed=2)
    calls = len(server.requests)
    assert calls >= 4
    one = json.loads((pytester.path / "first.json").read_text())
    geval = [r for r in one["results"] if r["signature"]["params"]["metric"].startswith("Correctness")][0]
    assert geval["metrics"]["score"] == pytest.approx(0.8) and geval["signature"]["model"] == "llmeval:scripted"
    assert geval["details"]["judge"]["calls"] >= 2 and one["judge"]["calls"] == calls

    second = pytester.runpytest(
        "-p",
        "no:deepeval",
        "-p",
        "no:asyncio",
        "--llmeval-report=second.json",
        "--override-ini=llmeval_judge_cache=replay",
        "-p",
        "no:randomly",
    )
    second.assert_outcomes(passed=2)
    assert len(server.requests) == calls  # replayed: zero HTTP calls
    two = json.loads((pytester.path / "second.json").read_text())
    assert [r["metrics"] for r in one["results"]] == [r["metrics"] for r in two["results"]]

    pytester.makeini("[pytest]\n")
    skipped = pytester.runpytest("-p", "no:deepeval", "-p", "no:asyncio", "-rs")
    skipped.assert_outcomes(skipped=2)
    skipped.stdout.fnmatch_lines(["*llmeval judge unavailable: no judge configured*"])
