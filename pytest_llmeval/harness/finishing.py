"""The controller's end of a run: the exit status its rules give (`pytest_llmeval.report.gate.EXIT_RULES`), the
JUnit suite properties, and the report files. `pytest_llmeval.plugin` calls `finish` from ``pytest_sessionfinish``.
"""

from __future__ import annotations

import warnings

import pytest

from .session import EvalSession, LLMEvalWarning

__all__ = ["finish"]


def finish(session: pytest.Session, eval_session: EvalSession) -> None:
    """The controller's end of the run: exit status, JUnit suite properties, report files."""
    deferring = session.config.pluginmanager.get_plugin("llmeval-defer")
    lost = deferring.lost() if deferring is not None and session.exitstatus != pytest.ExitCode.INTERRUPTED else []
    if lost:  # started on a worker that died holding them: never reported, their deferred checks never scored
        eval_session.outcomes.update(dict.fromkeys(lost, "crashed"))
        warnings.warn(
            LLMEvalWarning(
                f"{len(lost)} test(s) were never reported, their deferred checks not scored (their worker "
                f"died): {', '.join(lost[:5])}"
            ),
            stacklevel=1,
        )
    records = eval_session.records  # read first: reading counts the properties that are not records
    if eval_session.bad_records:
        warnings.warn(
            LLMEvalWarning(f"{eval_session.bad_records} llmeval record(s) in user_properties could not be read"),
            stacklevel=1,
        )
    comparison = eval_session.comparison()
    if records and eval_session.settings.calibrate:
        from .calibrating import calibration_key, finish_calibration

        try:
            session.config.stash[calibration_key] = finish_calibration(
                records, eval_session.settings, str(session.config.invocation_params.dir)
            )
        except (OSError, ValueError) as exc:
            warnings.warn(LLMEvalWarning(f"could not write the calibration record: {exc}"), stacklevel=1)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    gate = None
    if records or comparison is not None or eval_session.merged:
        from ..report.gate import RunEnd, failing

        if records:
            from .reporting import run_gate

            gate = run_gate(eval_session)
        settings = eval_session.settings
        merged = eval_session.outcomes if eval_session.merged else None
        end = RunEnd(
            gate, comparison, merged, settings.fail_on_regression, settings.indeterminate, settings.gate == "strict"
        )
        # a regression, a judge outage or a row below its floor is not a green run
        if failing(end) and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if not (records or eval_session.settings.report or eval_session.judge_skips or comparison is not None):
        return  # nothing to report, nothing to summarise
    from .reporting import built_key, interruption, interruption_key, report_and_model

    session.config.stash[interruption_key] = interruption(session, eval_session)  # the reports and the summary say it
    try:  # the JSON report and its model, once: the JUnit properties, the terminal and every file render them
        report, model = report_and_model(eval_session)
    except Exception as exc:  # noqa: BLE001 - say so, fail the run if it asked for reports, keep pytest's own output
        warnings.warn(LLMEvalWarning(f"could not build the llmeval report: {exc!r}"), stacklevel=1)
        built_failed = f"the report could not be built: {exc!r}"
    else:
        session.config.stash[built_key] = (report, model)
        built_failed = ""
    if records and not built_failed:
        from ..report.junit import add_suite_properties

        try:
            add_suite_properties(session.config, model)
        except Exception as exc:  # noqa: BLE001 - the aggregates failing must not cost pytest's own JUnit file
            warnings.warn(
                LLMEvalWarning(f"could not add the llmeval leaderboard to the JUnit file: {exc!r}"), stacklevel=1
            )
    from ..report.github import step_summary_path

    step_summary = step_summary_path(eval_session.settings.step_summary) if records else None
    save = eval_session.settings.save and bool(records)
    if not eval_session.settings.report and step_summary is None and not save:
        return
    if built_failed:
        eval_session.written.append(f"FAILED: {built_failed}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    from ..report import ReportsNotWritten, write_reports

    failed = False
    for path in eval_session.settings.report:
        try:
            eval_session.written.extend(write_reports(report, path, model))
        except ReportsNotWritten as exc:  # the directory's other files were written: say which were not
            failed = True
            eval_session.written.extend(exc.written)
            for target, error in exc.failed:
                warnings.warn(LLMEvalWarning(f"could not write the llmeval report {target!r}: {error}"), stacklevel=1)
                eval_session.written.append(f"FAILED {target}: {error}")
        except Exception as exc:  # noqa: BLE001 - one writer's failure must not cost the other reports
            failed = True
            warnings.warn(LLMEvalWarning(f"could not write the llmeval report {path!r}: {exc}"), stacklevel=1)
            eval_session.written.append(f"FAILED {path}: {exc}")
    if save:
        from .runs import save_run

        try:
            root = session.config.invocation_params.dir
            eval_session.written.append(str(save_run(report, root).relative_to(root)))
        except OSError as exc:  # the run asked for it: a missing saved run fails it, as a missing report does
            failed = True
            warnings.warn(LLMEvalWarning(f"could not save the run under .llmeval/runs: {exc}"), stacklevel=1)
            eval_session.written.append(f"FAILED saving the run: {exc}")
    if step_summary is not None:
        from ..report.github import append_step_summary

        try:
            append_step_summary(model, step_summary)
        except OSError as exc:  # the summary is a courtesy: the reports and the run's verdict stand
            warnings.warn(LLMEvalWarning(f"could not append to the step summary {step_summary!r}: {exc}"), stacklevel=1)
    if failed and session.exitstatus == pytest.ExitCode.OK:
        # A report the run was asked for is missing: the run has not done its job.
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
