"""Progress lines (a model loading) on pytest's terminal, even while a test's output is captured."""

from __future__ import annotations

import contextlib
import os
import types

import pytest

__all__ = ["announce"]


def announce(config: pytest.Config, line: str) -> None:
    """Show progress (model loads) on the terminal, even while output is captured.

    Inside a test, in pytest's default progress mode, the last line is left open; before the test's
    next result the file's name is written again (ending it), so the dots carry on after a name.
    """
    manager = config.pluginmanager
    reporter, capture = manager.get_plugin("terminalreporter"), manager.get_plugin("capturemanager")
    if reporter is None:
        return
    inside = bool(os.environ.get("PYTEST_CURRENT_TEST")) and reporter.showfspath and not reporter.showlongtestinfo
    resume = manager.get_plugin("llmeval-progress")
    text = ("\n" if resume else "") + line
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        if inside:
            reporter.ensure_newline()
            reporter.write(text, flush=True)
        else:
            reporter.write_line(text)
    if inside and resume is None:

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_logreport(report: pytest.TestReport) -> None:
            manager.unregister(name="llmeval-progress")
            reporter.write_fspath_result(report.nodeid, "")

        manager.register(types.SimpleNamespace(pytest_runtest_logreport=pytest_runtest_logreport), "llmeval-progress")
