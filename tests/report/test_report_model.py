"""One report model per run (issue 46, item 2): the JSON report is built once, `view()` reads it once, and the
terminal, the Markdown and HTML reports, the pull-request comment and the JUnit properties all render that model."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from pytest_llmeval.report import jsonfile

SUITE = """
import pytest
from pytest_llmeval import assert_matches

@pytest.mark.llmeval(model="acme")
@pytest.mark.parametrize("n", range(4))
def test_n(n):
    assert_matches("the answer is yes" if n else "the answer is no", '"yes"')
"""

#: Counts the JSON reports built and the models read from them, and changes the report as a plugin may: every
#: renderer must show the change, so none of them reads the records or the session's summary behind the model.
CONFTEST = """
import json
import pytest_llmeval.report.view as view_module

CALLS = {"view": 0, "update": 0}
_view = view_module.view


def counting(*args, **kwargs):
    CALLS["view"] += 1
    return _view(*args, **kwargs)


view_module.view = counting


def pytest_llmeval_update_report(config, report):
    CALLS["update"] += 1
    report["summary"]["no_clear_best"] = "no clear best: the update hook says so"
    report["summary"]["best_model"] = None
    report["gate"]["line"] = "INDETERMINATE: the update hook says so too"
    report["gate"]["verdict"] = "indeterminate"


def pytest_unconfigure(config):
    with open("calls.json", "w") as stream:
        json.dump(CALLS, stream)
"""


def _properties(path):
    return {p.get("name"): p.get("value") for p in ET.parse(path).getroot().iter("property")}


def test_every_renderer_reads_the_one_model_built_once(pytester):
    pytester.makepyfile(SUITE)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--llmeval-report=rep", "--junitxml=junit.xml")
    result.assert_outcomes(passed=3, failed=1)
    assert json.loads((pytester.path / "calls.json").read_text()) == {"view": 1, "update": 1}
    said = "no clear best: the update hook says so"
    gate = "INDETERMINATE: the update hook says so too"
    out = result.stdout.str()
    assert said in out and f"llmeval gate: {gate}" in out
    report = jsonfile.load(pytester.path / "rep" / "report.json")
    assert report["summary"]["no_clear_best"] == said
    markdown = (pytester.path / "rep" / "report.md").read_text(encoding="utf-8")
    comment = (pytester.path / "rep" / "comment.md").read_text(encoding="utf-8")
    html = (pytester.path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "No clear best: the update hook says so" in markdown and "No clear best: the update hook says so" in html
    assert gate in markdown and gate in comment and gate in html
    junit = _properties(pytester.path / "junit.xml")
    assert junit["llmeval.gate"] == "indeterminate" and junit["llmeval.gate_line"] == gate
    assert junit["llmeval.acme.text_matching.pass.pass_rate"] == "0.75"
    # the failed result is the Markdown's one failed row, with the metric that decided and its threshold
    [row] = [line for line in markdown.splitlines() if line.startswith("| ") and "::test\\_n\\[0\\]" in line]
    assert "| acme | text\\_matching | 0.000 | 0.500 | (rules) condition" in row


def test_a_run_without_reports_builds_the_model_once_for_the_terminal(pytester):
    pytester.makepyfile(SUITE)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=1)
    assert json.loads((pytester.path / "calls.json").read_text()) == {"view": 1, "update": 1}
    result.stdout.fnmatch_lines(["llmeval gate: INDETERMINATE: the update hook says so too", "4 checks on 1 model: *"])
    assert "no clear best: the update hook says so" in result.stdout.str()
