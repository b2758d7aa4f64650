"""The end of a run on the controller: the JSON report's content, judge and model totals, terminal lines.

Everything here reads the session (records, outcomes, statistics from workers); the one
change is each record's ``outcome`` (its test's), set on the session's records themselves
rather than on copies, which a run of tens of thousands of results would have to hold twice.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from ..core.result import NO_MODEL, verdict_of

if TYPE_CHECKING:
    from ..report.gate import Gate
    from ..report.rows import ReportView
    from .session import EvalSession

__all__ = [
    "FORMAT",
    "VERSION",
    "build_report",
    "built_key",
    "report_and_model",
    "run_gate",
    "interruption",
    "interruption_key",
    "judge_stats",
    "model_stats",
    "session_lines",
]


from ..report.jsonfile import FORMAT, VERSION


#: How the run ended (`interruption()`), set by the plugin when the session finishes.
interruption_key = pytest.StashKey[dict[str, Any]]()


def interruption(session: pytest.Session, eval_session: EvalSession) -> dict[str, Any]:
    """The run's exit status and whether it ended before running all its tests, for the report's ``run`` section.

    Interrupted: Ctrl-C or ``pytest.exit`` (exit status 2). Stopped early: ``-x``, ``--maxfail`` or another
    plugin stopped the run (under xdist the reason is on xdist's controller plugin) before every test ran.
    Then ``interruption`` says so in a line: the report holds only the tests that ran.
    """
    status = int(session.exitstatus)
    ran, collected = len(eval_session.outcomes), session.testscollected
    dsession = session.config.pluginmanager.get_plugin("dsession")  # xdist's controller
    reasons = (session.shouldfail, session.shouldstop, getattr(dsession, "shouldstop", False))
    reason = next((str(r) for r in reasons if r and isinstance(r, str)), "")
    # xdist: a worker's
    ctrl_c = status == pytest.ExitCode.INTERRUPTED and (not reason or "keyboard-interrupt" in reason)
    stopped = bool(reason) and not ctrl_c and ran < collected  # -x on the last test stops nothing
    if eval_session.merged or not (ctrl_c or stopped):
        return {"exit_status": status, "interrupted": False}
    word = "Interrupted" if ctrl_c else "Stopped early"
    why = reason or "Ctrl-C or pytest.exit"
    line = (
        f"{word} after {ran} of {collected} tests ({why}): this report holds only the checks of the tests that ran"
        if collected
        else f"{word} before any test was collected ({why})"
    )
    return {
        "exit_status": status,
        "interrupted": True,
        "tests_run": ran,
        "tests_collected": collected,
        "interruption": line,
    }


#: The run's gate and the number of records it was computed from (the exit status, the report and the terminal ask).
_gate_key = pytest.StashKey[tuple[int, "Gate"]]()


def run_gate(session: EvalSession) -> Gate:
    """The run's gate (`pytest_llmeval.report.gate`): budgets and floors from the settings, rows from the summary, and
    the rows whose unverified share rose against the baseline beyond noise; computed once per set of records."""
    cached = session.config.stash.get(_gate_key, None)
    if cached is not None and cached[0] == len(session.records):
        return cached[1]
    found = _gate(session)
    session.config.stash[_gate_key] = (len(session.records), found)
    return found


def _gate(session: EvalSession) -> Gate:
    from ..report.gate import Gate, gate

    settings = session.settings
    if settings.calibrate:  # a calibration run measures checks against labels: there is nothing to gate
        return gate([])
    found = gate(
        session.gated(),
        max_unverified=settings.max_unverified,
        max_errors=settings.max_errors,
        floors=(*settings.min_pass_rate, *settings.min_mean),
        rows=session.summary().rows if session.records else (),
        alpha=settings.alpha,
    )
    comparison = session.comparison()
    rose = [row for row in comparison.rows if row.verdict == "indeterminate"] if comparison is not None else []
    if not rose:
        return found
    reasons = tuple(
        f"{row.label} {row.before:.0%} -> {row.after:.0%} against the baseline (p {row.p_adjusted:.3g}, Holm)"
        for row in rose
    )
    return Gate(found.indeterminate + reasons, found.floors, found.health, found.max_unverified, found.max_errors)


def build_report(session: EvalSession) -> dict[str, Any]:
    """The JSON report of the run so far: the run's records and what the session knows about the run, handed to
    ``pytest_llmeval_generate_report`` (the plugin's own implementation is `pytest_llmeval.report.jsonfile.assemble`);
    then ``pytest_llmeval_update_report`` may change it."""
    from .._version import __version__

    summary = session.summary()
    records = list(session.ordered_records())
    for record in records:
        record["outcome"] = session.outcomes.get(record["nodeid"], "unknown")
    finished = time.time()
    comparison = session.comparison()
    ending: dict[str, Any] = session.config.stash.get(interruption_key, {})  # exit status; interrupted or not
    run = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(session.started)),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished)),
        "duration_s": round(finished - session.started, 3),
        "plugin": __version__,
        "pytest": pytest.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "args": [str(a) for a in session.config.invocation_params.args],
        "workers": getattr(session.config.option, "numprocesses", None),
        "ci": bool(os.environ.get("CI")),
        **({"merged": [os.path.basename(path) for path in session.merged]} if session.merged else {}),
        **ending,
    }
    from ..report.provenance import answer_counts

    if answers := answer_counts(records):  # cassettes: how many tests' answers were replayed, live or mixed
        run["answers"] = answers
    report: dict[str, Any] = session.config.hook.pytest_llmeval_generate_report(
        config=session.config,
        results=records,
        run=run,
        summary=summary.to_dict(),
        baseline=None if comparison is None else comparison.to_dict(),
        tests=dict(sorted(session.outcomes.items())),
        models=model_stats(session),
        judge=judge_stats(session),
        gate=run_gate(session).to_dict(),
    )
    if session.settings.calibrate or session.requirement is not None:
        from .calibrating import calibration_section, run_floors

        report["calibration"] = calibration_section(
            session.config, records, session.requirement, run_floors(session.settings)
        )
    if session.settings.save:  # the run among the saved runs: trends and drift (report.history)
        from .runs import history_section

        report["history"] = history_section(report, session.config.invocation_params.dir, session.settings.alpha)
    session.config.hook.pytest_llmeval_update_report(config=session.config, report=report)
    return report


#: The run's JSON report and its report model, built once at the end of the run (`report_and_model`).
built_key = pytest.StashKey[tuple[dict[str, Any], "ReportView"]]()


def report_and_model(session: EvalSession) -> tuple[dict[str, Any], ReportView]:
    """The run's JSON report (`build_report`) and the report model every renderer reads (`..report.view.view`), with
    the charts only an HTML report draws when one is asked for."""
    from ..report import writes_html
    from ..report.view import view

    report = build_report(session)
    return report, view(report, charts=any(writes_html(path) for path in session.settings.report))


def judge_stats(session: EvalSession) -> dict[str, Any]:
    """Judge calls, tokens, cost and cache use, workers added up; skips counted on the controller."""
    parts = session.judge_parts() + session.worker_judges
    totals: dict[str, Any] = {"skipped_checks": session.judge_skips}
    for key in ("calls", "prompt_tokens", "completion_tokens", "cost", "parse_failures"):
        totals[key] = round(sum(p.get(key, 0) or 0 for p in parts), 6)
    totals["cache_hits"] = sum(p["cache"]["hits"] for p in parts)
    totals["cache_misses"] = sum(p["cache"]["misses"] for p in parts)
    totals["corrupt_cache_files"] = [c for p in parts for c in p["cache"]["corrupt"]]
    by_evaluator: dict[str, int] = {}
    for part in parts:
        for name, count in part.get("parse_failures_by_evaluator", {}).items():
            by_evaluator[name] = by_evaluator.get(name, 0) + count
    totals["parse_failures_by_evaluator"] = dict(sorted(by_evaluator.items()))
    totals["json_mode_downgrades"] = sorted({d for p in parts for d in p.get("json_mode_downgrades", [])})
    totals["per_test"], totals["by_check"] = _judge_use(session)
    totals["spend"] = session.spend_ledger().totals()  # {} without judge.spend_limit
    return totals


def _judge_use(session: EvalSession) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Judge calls, replays, tokens and cost from the results' ``judge`` details (an escalation's under the offline
    check that asked), added up per test and per check and model under test (replayed verdicts are free, counted
    apart)."""
    per_test: dict[str, dict[str, Any]] = {}
    by_check: dict[tuple[str, str | None], dict[str, Any]] = {}
    for record in session.ordered_records():
        usage = (record.get("details") or {}).get("judge")
        if not isinstance(usage, Mapping):
            continue
        model = record.get("model")
        check = (str(record.get("evaluator", "")), None if model in (None, NO_MODEL) else str(model))
        for entry in (
            per_test.setdefault(record["nodeid"], {"calls": 0, "replayed": 0, "tokens": 0, "cost": 0.0}),
            by_check.setdefault(check, {"calls": 0, "replayed": 0, "tokens": 0, "cost": 0.0}),
        ):
            entry["calls"] += int(usage.get("calls", 0))
            entry["replayed"] += int(usage.get("replayed", 0))
            entry["tokens"] += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            entry["cost"] = round(entry["cost"] + float(usage.get("cost", 0.0)), 8)
    checks = [{"check": check, "model": model, **entry} for (check, model), entry in sorted(by_check.items(), key=str)]
    return per_test, checks


def model_stats(session: EvalSession) -> dict[str, Any]:
    return {
        "controller": {**session.models.stats(), "prefetch": session.prefetcher.stats()},
        "workers": dict(sorted(session.worker_models.items())),
    }


def session_lines(session: EvalSession, width: int) -> list[str]:
    """Every line of the ``llmeval summary`` section of the terminal: the report model's, then the session's own
    (models and parses, judge use, the baseline's rows, where the reports went)."""
    from ..report.aggregate import outcome_counts_line
    from ..report.provenance import answer_lines
    from ..report.terminal import render_history, render_judge_spend, render_summary

    built = session.config.stash.get(built_key, None)
    model = built[1] if built is not None else None
    lines = [f"llmeval: {model.interruption}"] if model is not None and model.interruption else []
    if model is not None and model.gate:
        lines.append(f"llmeval gate: {model.gate}")
        lines += [f"  {detail}" for detail in model.gate_details]
    if model is not None and session.gated():
        lines += render_summary(model, width=min(width, 100)) + list(model.verdicts)
        lines += [f"llmeval {line}" if line.startswith("history") else line for line in render_history(model, width)]
    if model is not None:
        lines += [f"llmeval {line}" for line in render_judge_spend(model)]
    if any(outcome in ("failed", "error", "crashed") for outcome in session.outcomes.values()):
        lines.append(f"llmeval tests: {outcome_counts_line(session.outcomes)}")
    judge = built[0].get("judge") if built is not None else None  # the report's, unless a plugin's report has none
    if not (isinstance(judge, Mapping) and "calls" in judge):
        judge = judge_stats(session)
    lines += _auto_lines(session) + _model_lines(session) + _baseline_lines(session) + _judge_lines(judge)
    lines += _calibration_lines(session, built[0] if built is not None else None) + answer_lines(
        session.records, session.baseline
    )
    lines += [f"llmeval report: {path}" for path in session.written]
    return lines


def _calibration_lines(session: EvalSession, report: Mapping[str, Any] | None) -> list[str]:
    """The calibration run's figures and the record it wrote; each check's calibration status under the requirement
    (the JSON report's calibration section, computed when the report could not be)."""
    if not (session.settings.calibrate or session.requirement is not None):
        return []
    from .calibrating import calibration_section, run_floors

    section = (
        report.get("calibration")
        if report is not None
        else calibration_section(
            session.config, session.ordered_records(), session.requirement, run_floors(session.settings)
        )
    ) or {}
    lines = [f"llmeval calibration: {line}" if not line.startswith(" ") else line for line in section.get("lines", [])]
    if "entries" in section:
        lines.append(
            f"llmeval calibration record: {section['file']}"
            if section["entries"]
            else "llmeval calibration: no labeled row produced a result; no record written"
        )
    lines += [f"llmeval calibration: {line}" for line in section.get("status_lines", [])]
    return lines


def _auto_lines(session: EvalSession) -> list[str]:
    """``repeat=auto``: the draws that ran, against the fixed repeats' (one line)."""
    cases: dict[str, int] = {}
    ran: set[tuple[str, Any]] = set()
    for record in session.records:
        tags = record.get("tags") or {}
        if tags.get("auto"):
            case = str(record.get("case_id") or record.get("nodeid"))
            cases[case] = int(tags.get("draws", 0))
            ran.add((case, tags.get("draw")))
    if not cases:
        return []
    fixed = sum(cases.values())
    return [
        f"llmeval repeat=auto: {len(ran)} draws of {len(cases)} case(s), where fixed repeats would run {fixed} "
        f"({1 - len(ran) / fixed:.0%} fewer); each case stopped once its verdict was certain"
    ]


def _judge_lines(judge: Mapping[str, Any]) -> list[str]:
    lines = []
    if judge["calls"] or judge["cache_hits"] or judge["skipped_checks"] or judge["corrupt_cache_files"]:
        lines.append(
            f"llmeval judge: {judge['calls']} call(s), {judge['prompt_tokens']}+{judge['completion_tokens']} tokens, "
            f"cost {judge['cost']:.4f}; {judge['cache_hits']} verdict(s) replayed; {judge['parse_failures']} parse "
            "failure(s); "
            f"{judge['skipped_checks']} check(s) skipped"
        )
        if judge["parse_failures_by_evaluator"]:
            shown = ", ".join(f"{name} {count}" for name, count in judge["parse_failures_by_evaluator"].items())
            lines.append(f"llmeval judge: parse failures by check: {shown}")
        costly = sorted(
            ((u["tokens"], u["cost"], nodeid) for nodeid, u in judge["per_test"].items() if u["calls"]), reverse=True
        )
        lines += [f"llmeval judge: {tokens} tokens, cost {cost:.4f}: {nodeid}" for tokens, cost, nodeid in costly[:3]]
        lines += [f"llmeval judge: untrusted cache file {problem}" for problem in judge["corrupt_cache_files"]]
    lines += [f"llmeval judge: structured output downgraded {downgrade}" for downgrade in judge["json_mode_downgrades"]]
    return lines


def _baseline_lines(session: EvalSession, limit: int = 20) -> list[str]:
    comparison = session.comparison()
    lines = []
    if session.settings.gate in ("aggregate", "strict"):
        failed = sum(1 for r in session.gated() if verdict_of(r) == "fail")
        settings = session.settings
        floors = bool(settings.min_pass_rate or settings.min_mean)
        decides = (
            "any case that passed in the baseline and fails now fails the run"
            if settings.gate == "strict"
            else "a significant regression against the baseline (or a replayed case that passed in it and fails now) "
            "fails the run"
            if settings.fail_on_regression
            else "a row below its floor fails the run"
            if floors
            else "no gate fails the run on them (add --llmeval-baseline and --llmeval-fail-on-regression, or a floor: "
            "min_pass_rate in [tool.llmeval.gate])"
        )
        if settings.fail_on_regression and floors:
            decides += ", and so does a row below its floor"
        lines.append(
            f"llmeval gate: {settings.gate}: {failed} failed check(s) recorded without failing their tests; {decides}"
        )
    if comparison is None:
        return lines
    lines.append(f"llmeval verdict: {comparison.verdict_line()}")
    lines.append(
        f"llmeval baseline {comparison.baseline}: {len(comparison.rows)} row(s) compared over {comparison.compared} "
        f"matched result(s)"
        + (
            f"; {len(comparison.not_comparable)} not comparable (signature changed)"
            if comparison.not_comparable
            else ""
        )
        + (f"; {comparison.new} new, {comparison.missing} gone" if comparison.new or comparison.missing else "")
    )
    shown = [row for row in comparison.rows if row.verdict != "unchanged"][:limit]
    lines += [f"  {row.describe()}" for row in shown]
    unchanged = sum(row.verdict == "unchanged" for row in comparison.rows)
    if unchanged:
        lines.append(f"  {unchanged} row(s) unchanged within +-{comparison.tolerance:g}")
    if comparison.changes:
        worse = sum(c.kind == "worse" for c in comparison.changes)
        lines.append(
            f"  evidence: {worse} result(s) moved to a failure, {len(comparison.changes) - worse} from one "
            f"(single flips are noise unless a row's test says otherwise)"
        )
        lines += [f"    {change.describe()}" for change in comparison.changes[:5]]
        if len(comparison.changes) > 5:
            lines.append(f"    ... {len(comparison.changes) - 5} more in the report")
    if comparison.regressions and session.settings.fail_on_regression:
        lines.append("llmeval baseline: failing the run (--llmeval-fail-on-regression)")
    return lines


def _model_lines(session: EvalSession) -> list[str]:
    """One line per embedder used in this run, with workers' numbers added up."""
    totals: dict[str, dict[str, Any]] = {}
    loads: dict[str, int] = {}  # model -> processes that loaded it
    for stats in [session.models.stats(), *session.worker_models.values()]:
        for load in stats.get("loads", []):
            loads[str(load.get("model"))] = loads.get(str(load.get("model")), 0) + 1
        for embedder in stats.get("embedders", []):
            entry = totals.setdefault(
                embedder["signature"], {"name": embedder["name"], "encoded": 0, "hits": 0, "disk": 0, "devices": set()}
            )
            entry["encoded"] += embedder["encoded"]
            entry["hits"] += embedder["cache_hits"]
            entry["disk"] += embedder.get("disk_hits", 0)
            if embedder["device"]:
                entry["devices"].add(embedder["device"])
    lines = []
    for entry in totals.values():
        devices = ", ".join(sorted(entry["devices"]))
        where = f"on {devices}" if devices else "not loaded (all from the disk cache)"
        lines.append(
            f"llmeval models: {entry['name']} {where}: {entry['encoded']} texts encoded, "
            f"{entry['hits'] - entry['disk']} "
            f"reused within the run, {entry['disk']} read from the disk cache"
        )
    if loads:
        lines.append(
            "llmeval models loaded: "
            + ", ".join(f"{name}{f' (in {n} processes)' if n > 1 else ''}" for name, n in loads.items())
        )
    parses: dict[str, list[int]] = {}
    for stats in [session.models.stats(), *session.worker_models.values()]:
        for parser in stats.get("parsers", []):
            counts = parses.setdefault(parser["model"], [0, 0])
            counts[0] += parser["parsed"]
            counts[1] += parser["cache_hits"]
    lines += [
        f"llmeval parses: spaCy {model}: {parsed} texts parsed, {hits} from cache"
        for model, (parsed, hits) in parses.items()
    ]
    return lines
