"""CI shards merged into one report, equal to a single run's (issue 14, item 5)."""

from __future__ import annotations

import json

import pytest

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match, measure_generation, record_label

CASES = [("france", "Paris"), ("japan", "Tokyo"), ("peru", "Lima"), ("kenya", "Nairobi")]
ANSWERS = {"steady": {"france": "Paris", "japan": "Tokyo", "peru": "Lima", "kenya": "Nairobi"},
           "brittle": {"france": "Paris", "japan": "Kyoto", "peru": "Lima", "kenya": "Mombasa"}}


@pytest.mark.parametrize("case, capital", CASES, ids=[c for c, _ in CASES])
@pytest.mark.parametrize("model", ["steady", "brittle"])
@pytest.mark.llmeval_perturb("uppercase")
def test_capital(model, case, capital, llmeval, llmeval_perturb):
    llmeval.model = model
    answer = llmeval_perturb(ANSWERS[model][case])
    record_label(capital, answer, threshold=0)
    assert_exact_match(answer, capital)
"""


def _comparable(report):
    summary = report["summary"]
    return {"summary": summary, "results": report["results"], "tests": report["tests"]}


def test_shards_merge_into_the_single_runs_report(pytester):
    pytester.makepyfile(test_capitals=SUITE)
    whole = pytester.runpytest("-p", "no:randomly", "--llmeval-report=whole.json")
    shard_a = pytester.runpytest("-p", "no:randomly", "-k", "france or japan", "--llmeval-report=a.json")
    shard_b = pytester.runpytest("-p", "no:randomly", "-k", "not france and not japan", "--llmeval-report=b.json")
    assert whole.ret == shard_a.ret == shard_b.ret == 1  # the brittle model fails somewhere in each
    merged = pytester.runpytest("-p", "no:randomly", "--llmeval-merge", "a.json", "b.json", "--llmeval-report=out")
    assert merged.ret == 1  # the shards' failures are the merged run's
    one, both = (json.loads((pytester.path / name).read_text()) for name in ("whole.json", "out/report.json"))
    assert _comparable(both) == _comparable(one)
    assert both["run"]["merged"] == ["a.json", "b.json"]
    assert both["summary"]["flips"] and both["summary"]["classification"]
    for name in ("report.md", "report.html"):
        assert (pytester.path / "out" / name).exists()
    merged.stdout.fnmatch_lines(["*llmeval summary*", "*checks on 2 models*"])


def test_a_test_in_two_shards_or_a_bad_file_is_a_usage_error(pytester):
    pytester.makepyfile(test_capitals=SUITE)
    pytester.runpytest("-p", "no:randomly", "-k", "france", "--llmeval-report=a.json")
    result = pytester.runpytest("--llmeval-merge", "a.json", "a.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llmeval-merge: *test_capital* ran in both a.json and a.json*"])
    (pytester.path / "bad.json").write_text("[]")
    bad = pytester.runpytest("--llmeval-merge", "bad.json")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--llmeval-merge: bad.json is not a pytest-llmeval report*"])
