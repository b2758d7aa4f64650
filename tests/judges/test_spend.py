"""The judge's spend limit (issue 48, item 3): parsed as users write it, shared by workers through one file, enforced
against a real OpenAI-protocol server in one process and under ``-n 2``, cut answers left unverified (and the gate
indeterminate when they pass its budget), and the spend per check and model in every report."""

from __future__ import annotations

import json
import threading
import xml.etree.ElementTree as ET

import pytest

from pytest_llmeval.judges.spend import SpendLedger, describe_limit, parse_spend_limit


@pytest.mark.parametrize(
    "text, expected",
    [("2 calls", (2.0, "calls")), ("1 call", (1.0, "calls")), ("50000 tokens", (50000.0, "tokens")),
     ("5 USD", (5.0, "usd")), ("$0.25", (0.25, "usd")), ("3.5 $", (3.5, "usd")), ("  ", None)],
)  # fmt: skip
def test_a_limit_reads_as_users_write_it(text, expected):
    assert parse_spend_limit(text) == expected


@pytest.mark.parametrize("text", ["5", "five calls", "5 euros", "$5 calls", "-1 calls"])
def test_a_bad_limit_says_what_is_expected(text):
    with pytest.raises(ValueError, match="expected a number and a unit, as '200 calls', '50000 tokens' or '5 USD'"):
        parse_spend_limit(text)


def test_two_ledgers_on_one_file_share_the_limit_across_threads(tmp_path):
    """Two workers' ledgers over the run's shared file: eight threads each try 10 calls under a limit of 25."""
    path = str(tmp_path / "judge-spend.json")
    ledgers = [SpendLedger((25, "calls"), path), SpendLedger((25, "calls"), path)]
    allowed: list[bool] = []
    lock = threading.Lock()

    def work(ledger):
        for _ in range(10):
            refused = ledger.reserve()
            with lock:
                allowed.append(refused is None)

    threads = [threading.Thread(target=work, args=(ledgers[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(allowed) == 25 and len(allowed) == 80
    assert ledgers[0].totals() == {"calls": 25.0, "tokens": 0.0, "usd": 0.0, "limit": "25 calls"}
    assert ledgers[0].refused + ledgers[1].refused == 55


def test_a_dollar_limit_lets_the_crossing_call_finish_and_none_after():
    ledger = SpendLedger((0.01, "usd"))
    assert ledger.reserve() is None
    ledger.settle(1000, 0.008)
    assert ledger.reserve() is None
    ledger.settle(1000, 0.008)  # now 0.016: past the limit
    assert ledger.reserve() == "judge spend limit reached (0.0160 USD of 0.01 USD)"
    assert describe_limit((0.01, "usd")) == "0.01 USD" and SpendLedger(None).reserve() is None


SUITE = """
import pytest
from pytest_llmeval import assert_no_hallucination_judged

CONTEXT = "Adults pay 12 euros; children under 12 enter free."


@pytest.mark.llmeval(model="acme")
@pytest.mark.parametrize("i", range(6))
def test_answer(i):
    assert_no_hallucination_judged(f"Adults pay 12 euros (answer {i}).", [CONTEXT])
"""


def _judge(pytester, server, limit):
    server.responder = lambda body: {"text": json.dumps({"verdict": "no", "reason": "scripted"})}
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        f"llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_spend_limit = {limit}\n"
        # the price table's entry for this judge model, not the default price
        "llmeval_judge_price = 1,1\nllmeval_judge_prices =\n    other=5,5\n    scripted=1000,2000\n"
    )
    pytester.makepyfile(test_app=SUITE)


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two workers"])
def test_the_limit_stops_new_calls_and_says_so_everywhere(pytester, server, monkeypatch, workers):
    monkeypatch.setenv("JUDGE_KEY", "k")
    _judge(pytester, server, "2 calls")
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", *workers, "--llmeval-report=rep", "-rs", "--junitxml=junit.xml"
    )
    result.assert_outcomes(passed=2, skipped=4)
    assert len(server.requests) == 2  # the workers share the limit
    result.stdout.fnmatch_lines(
        [
            "llmeval judge spend limit 2 calls: spent 0.0400 USD, 30 tokens in 2 calls; 4 checks without a judge*",
            "llmeval judge spend: hallucination_judge on acme: 2 calls, 30 tokens, cost 0.0400; 0 replayed",
            "SKIPPED [[]4[]] *judge spend limit reached (2 calls of 2 calls); hallucination_judge*",
        ]
    )
    report = json.loads((pytester.path / "rep" / "report.json").read_text())
    assert report["judge"]["spend"]["calls"] == 2 and report["judge"]["spend"]["limit"] == "2 calls"
    [row] = report["judge"]["by_check"]
    assert (row["check"], row["model"], row["calls"], row["replayed"]) == ("hallucination_judge", "acme", 2, 0)
    assert row["cost"] > 0
    markdown = (pytester.path / "rep" / "report.md").read_text()
    assert "## Judge spend" in markdown and "| hallucination\\_judge | acme | 2 | 0 |" in markdown
    assert "### Judge spend" in (pytester.path / "rep" / "comment.md").read_text()
    html = (pytester.path / "rep" / "report.html").read_text()
    assert '<h2 id="judge-spend">Judge spend</h2>' in html and "Judge spend limit 2 calls: spent 0.0400 USD" in html
    suite = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "junit.xml").getroot().iter("property")}
    assert suite["llmeval.judge_calls"] == "2" and suite["llmeval.judge_cost"] == "0.04"
    assert suite["llmeval.judge_spend_limit"].startswith("judge spend limit 2 calls: spent 0.0400 USD")
    # the two verdicts are cached: a second run replays them for free and the limit cuts the rest as before
    again = pytester.runpytest_subprocess("-p", "no:randomly", *workers, "--llmeval-report=rep2")
    again.assert_outcomes(passed=4, skipped=2)
    [row] = json.loads((pytester.path / "rep2" / "report.json").read_text())["judge"]["by_check"]
    assert (row["calls"], row["replayed"]) == (2, 2) and len(server.requests) == 4


GROUNDED = """
import pytest
from pytest_llmeval import assert_grounded

CONTEXT = ["The Harbour Museum opens at 9 a.m. and closes at 5 p.m. from Monday to Friday. "
           "Entry is free for children under 12. Guided tours start every hour."]
REWORDED = ["Kids below twelve get in without paying.", "Youngsters under twelve are admitted at no cost.",
            "The museum lets in children younger than twelve for free.", "Little ones under 12 pay nothing to enter."]


@pytest.mark.parametrize("i", range(4))
def test_reworded(i):
    assert_grounded(REWORDED[i], CONTEXT)
"""


@pytest.mark.subprocess
def test_answers_the_limit_cuts_stay_unverified_and_past_the_budget_the_gate_is_indeterminate(
    pytester, server, monkeypatch
):
    monkeypatch.setenv("JUDGE_KEY", "k")
    server.responder = lambda body: {"text": json.dumps({"verdicts": [], "verdict": "yes", "reason": "scripted"})}
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_spend_limit = 0 calls\nllmeval_max_unverified = 0.25\n"
    )
    pytester.makepyfile(test_app=GROUNDED)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--llmeval-report=out.json")
    assert server.requests == []  # a limit of nothing: no call at all
    report = json.loads((pytester.path / "out.json").read_text())
    cut = [r for r in report["results"] if "judge spend limit reached" in r["reason"]]
    assert cut and all(r["verdict"] == "unverified" for r in cut)
    assert report["gate"]["verdict"] == "indeterminate" and result.ret == 1
    result.stdout.fnmatch_lines(["llmeval gate: INDETERMINATE*"])
