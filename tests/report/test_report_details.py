"""Report writing at the edges: interrupted runs, a report that cannot be written, file modes (issue 23, items 9, 10,
14)."""

from __future__ import annotations

import os
import stat

import pytest

from pytest_llmeval.report import atomic_write, write_reports

#: Ten tests, one check each; PLAN decides what test_3 does.
SUITE = """
import pytest
from pytest_llmeval import assert_matches

PLAN = {plan!r}

@pytest.mark.parametrize("n", range(10))
def test_n(n):
    if n == 3 and PLAN == "interrupt":
        raise KeyboardInterrupt
    assert_matches("the answer is yes", '"yes"' if n != 3 or PLAN == "pass" else '"no"')
"""


def _reports(path):
    from pytest_llmeval.report import jsonfile

    report = jsonfile.load(path / "report.json")
    assert jsonfile.validate(report) is None
    return report, (path / "report.md").read_text(encoding="utf-8"), (path / "report.html").read_text(encoding="utf-8")


def test_an_interrupted_run_says_so_in_every_report_and_the_terminal(pytester):
    pytester.makepyfile(SUITE.format(plan="interrupt"))
    (pytester.path / "rep").mkdir()
    (pytester.path / "rep" / "report.md").write_text("the last full report\n")
    # in process: the run's Ctrl-C is its own
    result = pytester.runpytest("--llmeval-report=rep", no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report, markdown, page = _reports(pytester.path / "rep")
    run = report["run"]
    assert run["interrupted"] is True and run["exit_status"] == 2
    assert (run["tests_run"], run["tests_collected"]) == (3, 10)
    line = "Interrupted after 3 of 10 tests (Ctrl-C or pytest.exit)"
    assert run["interruption"].startswith(line)
    assert report["summary"]["checks"] == 3
    assert markdown.splitlines()[2].startswith(f"**{line}")  # first, right under the title
    assert page.index(line) < page.index("3 checks")
    result.stdout.fnmatch_lines([f"llmeval: {line}*", "*3 checks*"])


def test_a_run_stopped_by_x_says_it_stopped_early(pytester):
    pytester.makepyfile(SUITE.format(plan="fail"))
    result = pytester.runpytest("-x", "--llmeval-report=rep")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report, markdown, page = _reports(pytester.path / "rep")
    run = report["run"]
    assert run["interrupted"] is True and run["exit_status"] == 1
    assert (run["tests_run"], run["tests_collected"]) == (4, 10)
    line = "Stopped early after 4 of 10 tests (stopping after 1 failures)"
    assert run["interruption"].startswith(line)
    assert markdown.splitlines()[2].startswith(f"**{line}")
    assert line in page
    result.stdout.fnmatch_lines([f"llmeval: {line}*"])


def test_a_whole_run_is_not_called_interrupted(pytester):
    pytester.makepyfile(SUITE.format(plan="fail"))
    result = pytester.runpytest("--llmeval-report=rep")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report, markdown, page = _reports(pytester.path / "rep")
    assert report["run"]["interrupted"] is False and report["run"]["exit_status"] == 1
    assert "interruption" not in report["run"]
    for text in (markdown, page, result.stdout.str()):
        assert "Interrupted" not in text and "Stopped early" not in text


def test_x_after_the_last_test_ran_is_not_early(pytester):
    pytester.makepyfile(
        "from pytest_llmeval import assert_matches\n\ndef test_last():\n    assert_matches('yes', '\"no\"')\n"
    )
    result = pytester.runpytest("-x", "--llmeval-report=rep")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report, _, _ = _reports(pytester.path / "rep")
    assert report["run"]["interrupted"] is False


def test_collect_only_is_not_an_interruption(pytester):
    pytester.makepyfile(SUITE.format(plan="pass"))
    result = pytester.runpytest("--collect-only", "--llmeval-report=rep")
    assert result.ret == pytest.ExitCode.OK
    report, _, _ = _reports(pytester.path / "rep")
    assert report["run"]["interrupted"] is False


def test_every_report_that_can_be_written_is_and_the_run_names_the_one_that_could_not(pytester):
    pytester.makepyfile(SUITE.format(plan="pass"))
    (pytester.path / "rep" / "report.json").mkdir(parents=True)  # writing report.json fails: a directory is in the way
    result = pytester.runpytest("--llmeval-report=rep")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every test passed: the missing report fails the run
    assert (pytester.path / "rep" / "report.md").is_file() and (pytester.path / "rep" / "report.html").is_file()
    result.stdout.fnmatch_lines(
        [
            "llmeval report: rep/report.md",
            "llmeval report: rep/report.html",
            "llmeval report: FAILED rep/report.json: *",
        ]
    )
    assert "FAILED rep/report.md" not in result.stdout.str() and "FAILED rep/report.html" not in result.stdout.str()


def test_write_reports_writes_the_rest_then_names_each_failure(tmp_path):
    from pytest_llmeval.report import ReportsNotWritten

    (tmp_path / "report.json").mkdir()
    (tmp_path / "report.html").mkdir()
    with pytest.raises(ReportsNotWritten) as caught:
        write_reports({"results": []}, str(tmp_path))
    assert caught.value.written == [str(tmp_path / "report.md"), str(tmp_path / "comment.md")]
    assert [path for path, _ in caught.value.failed] == [str(tmp_path / "report.json"), str(tmp_path / "report.html")]
    assert str(tmp_path / "report.json") in str(caught.value) and str(tmp_path / "report.html") in str(caught.value)
    assert (tmp_path / "report.md").is_file()


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_reports_are_created_with_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        written = write_reports({"results": []}, str(tmp_path / "rep"))
        atomic_write(str(tmp_path / "one.md"), "text")
    finally:
        os.umask(old)
    assert len(written) == 4  # report.json, .md, .html and comment.md
    for path in [*written, str(tmp_path / "one.md")]:
        assert stat.S_IMODE(os.stat(path).st_mode) == mode, path


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_the_umask_is_read_without_changing_it(monkeypatch):
    from pytest_llmeval.report import current_umask

    old = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        monkeypatch.setattr("pytest_llmeval.report._PROC_STATUS", "/nonexistent/status")  # the fallback
        assert current_umask() == 0o027
        assert os.umask(0o027) == 0o027  # left as it was
    finally:
        os.umask(old)
