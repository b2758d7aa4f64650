"""A value a check masks in an answer (a phone number, an e-mail) is masked in every record of that test, whichever
check
recorded it and whenever, so no report shows it in full."""

from __future__ import annotations

import json

PHONE, EMAIL = "555-867-5309", "jane.roe@example.com"

SUITE = f"""
from pytest_llmeval import assert_matches, assert_no_pii, evaluate

ANSWER = "Call Jane at {PHONE} or write to {EMAIL} today."

def test_answer():
    assert_matches(ANSWER, '"Jane"')          # recorded before the PII check found anything
    evaluate("pii_leakage", actual=ANSWER)     # finds and masks the phone number and the e-mail
    assert_matches(ANSWER, '"today"')          # recorded after

def test_other():
    assert_matches("Write to {EMAIL}.", '"Write"')  # another test: its own answers, not masked by test_answer's check
"""


def test_a_masked_value_appears_in_no_report(pytester):
    pytester.makepyfile(test_app=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--junitxml=junit.xml")
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    mine = [r for r in report["results"] if r["nodeid"].endswith("test_answer")]
    assert len(mine) == 3 and {r["evaluator"] for r in mine} == {"text_matching", "pii_leakage"}
    for record in mine:
        text = json.dumps(record)
        assert PHONE not in text and EMAIL not in text, record
    assert any("Call Jane at [" in (r["excerpt"] or "") for r in mine if r["evaluator"] == "text_matching")
    for name in ("report.md", "report.html"):
        page = (pytester.path / "out" / name).read_text()
        assert PHONE not in page, name
    assert PHONE not in (pytester.path / "junit.xml").read_text()
    [other] = [r for r in report["results"] if r["nodeid"].endswith("test_other")]
    assert EMAIL in other["excerpt"]  # no check of that test found it: nothing to mask there


def test_masking_under_xdist(pytester):
    pytester.makepyfile(test_app=SUITE)
    pytester.runpytest("-p", "no:randomly", "-n", "2", "--llmeval-report=out.json").assert_outcomes(passed=2)
    text = (pytester.path / "out.json").read_text()
    assert PHONE not in text
