"""The JSON report is a function of the records and the run's information, made through a hook a plugin may take
over (as pytest-benchmark's ``pytest_benchmark_generate_json``)."""

from __future__ import annotations

import json

from pytest_llmeval.report.jsonfile import FORMAT, assemble, validate

TEST = "from pytest_llmeval import assert_exact_match\n\ndef test_x():\n    assert_exact_match('4', '4')\n"


def test_the_report_is_assembled_from_records_and_run_information():
    record = {
        "evaluator": "exact_match",
        "metrics": {"exact_match": 1.0},
        "primary": "exact_match",
        "passed": True,
        "nodeid": "t.py::test_x",
        "outcome": "passed",
    }
    report = assemble(
        [record], run={"plugin": "0", "exit_status": 0}, summary={"checks": 1}, tests={"t.py::test_x": "passed"}
    )
    assert report["format"] == FORMAT and report["results"] == [record] and report["baseline"] is None
    assert report == assemble(
        [record], run={"plugin": "0", "exit_status": 0}, summary={"checks": 1}, tests={"t.py::test_x": "passed"}
    )


def test_a_plugin_generates_the_report_and_every_writer_uses_it(pytester):
    pytester.makeconftest(
        "from pytest_llmeval.report.jsonfile import assemble\n\n"
        "def pytest_llmeval_generate_report(config, results, run, summary, baseline, tests, models, judge):\n"
        "    run = {**run, 'commit': 'abc123'}\n"
        "    return assemble(results, run=run, summary=summary, baseline=baseline, tests=tests, models=models, "
        "judge=judge)\n"
    )
    pytester.makepyfile(TEST)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.json", "--llmeval-report=r.md")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["run"]["commit"] == "abc123" and validate(report) is None
    assert [r["evaluator"] for r in report["results"]] == ["exact_match"]
    assert (pytester.path / "r.md").exists()
