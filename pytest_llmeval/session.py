"""The per-run state: one :class:`EvalSession` in ``config.stash``.

It owns the evaluator registry and instance cache, the threshold overrides from
the command line and ini file, and (on the controller) the records read back
from every test report; it writes the reports and the terminal summary.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from .models import ModelCache, parse_device, parse_precision
from .recording import RECORD_PROPERTY, TestContext, decode_record
from .registry import Registry, UnknownEvaluatorError
from .text import replace_surrogates

if TYPE_CHECKING:
    from .evaluators.base import Evaluator

__all__ = ["EvalSession", "session_key", "parse_threshold", "LLMEvalWarning"]


class _SafeTerminal:
    """The terminal reporter's writes, for text that may hold lone surrogates (model names, answers)."""

    def __init__(self, reporter: Any) -> None:
        self.reporter = reporter

    def write_line(self, line: str, **markup: Any) -> None:
        self.reporter.write_line(replace_surrogates(line), **markup)

    def write_sep(self, sep: str, title: str = "", **markup: Any) -> None:
        self.reporter.write_sep(sep, replace_surrogates(title), **markup)


class LLMEvalWarning(pytest.PytestWarning):
    """Something pytest-llmeval could not do, that did not stop the run."""


def parse_threshold(text: str) -> tuple[str, str, float]:
    """Parse ``EVALUATOR.METRIC=NUMBER`` (an argparse type).

    >>> parse_threshold("rouge.rougeL=0.4")
    ('rouge', 'rougeL', 0.4)
    """
    name, sep, value = str(text).partition("=")
    evaluator, dot, metric = name.strip().partition(".")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or not dot or not evaluator or not metric or number is None:
        raise argparse.ArgumentTypeError(
            f"invalid threshold {text!r}: expected EVALUATOR.METRIC=NUMBER, e.g. rouge.rougeL=0.5"
        )
    return evaluator, metric.strip(), number


def _outcome(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "skipped" if report.skipped else "passed"


session_key = pytest.StashKey["EvalSession"]()


class EvalSession:
    """State of one pytest run (one per process: controller and each xdist worker)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.registry = Registry()
        self.is_worker = hasattr(config, "workerinput")
        self.records: list[dict[str, Any]] = []
        self.outcomes: dict[str, str] = {}
        self.bad_records = 0
        self.written: list[str] = []
        self.started = time.time()
        self._evaluators: dict[tuple[str, str], Evaluator] = {}
        self._overrides: dict[str, dict[str, float]] = {}
        self.worker_models: dict[str, dict[str, Any]] = {}
        self.models = self._model_cache()
        self.judge_skips = 0
        self.worker_judges: list[dict[str, Any]] = []
        self._judge: Any = None
        self._summary: tuple[int, Any] | None = None
        self._comparison: tuple[int, Any] | None = None
        self.baseline: dict[str, Any] | None = None
        self.baseline_path = ""
        self.baseline_tolerance = 0.0

    def _setting(self, name: str) -> str:
        """A model setting: the command line wins over the ini file."""
        value = self.config.getoption(name, None)
        return value if value is not None else str(self.config.getini(name))

    def _model_cache(self) -> ModelCache:
        def checked(parse: Any, name: str) -> str:
            try:
                return parse(self._setting(name))
            except argparse.ArgumentTypeError as exc:
                raise pytest.UsageError(f"{name} in the config file: {exc}") from None

        cache_dir: str | None = self._setting("llmeval_cache_dir")
        if cache_dir and cache_dir.lower() != "off":
            cache_dir = str(self.config.rootpath / cache_dir)
        else:
            cache_dir = None
        return ModelCache(
            device=checked(parse_device, "llmeval_device"),
            precision=checked(parse_precision, "llmeval_precision"),
            cache_dir=cache_dir,
            embedding_model=self._setting("llmeval_embedding_model"),
            announce=self.announce,
        )

    @property
    def judge(self) -> Any:
        """The session's judge runner, built on first use (the openai client only when a verdict is asked for)."""
        if self._judge is None:
            from .judges.cache import VerdictCache
            from .judges.runner import JudgeRunner

            model = self._setting("llmeval_judge_model")
            mode = self._setting("llmeval_judge_cache")
            cache = VerdictCache(str(self.config.rootpath / str(self.config.getini("llmeval_judge_dir"))), mode)
            judge = None
            if model:
                from .judges.openai_judge import OpenAIJudge

                price, json_mode, sampling = self.judge_settings()
                judge = OpenAIJudge(model, base_url=self._setting("llmeval_judge_base_url") or None,
                                    api_key_env=str(self.config.getini("llmeval_judge_api_key_env")),
                                    json_mode=json_mode, price_per_million=price, **sampling)
            self._judge = JudgeRunner(judge, cache, offline=bool(self.config.getoption("llmeval_offline")),
                                      repeats=self.judge_repeats(),
                                      why_none="no judge configured (set --llmeval-judge-model or llmeval_judge_model)")
        return self._judge

    def judge_repeats(self) -> int:
        text = self._setting("llmeval_judge_repeats")
        try:
            value = int(text)
            if not 1 <= value <= 100:
                raise ValueError
        except ValueError:
            raise pytest.UsageError(f"--llmeval-judge-repeats / llmeval_judge_repeats: expected an integer from 1 to 100; got {text!r}") from None
        return value

    def judge_settings(self) -> tuple[tuple[float, float], str, dict[str, Any]]:
        """Price per million tokens, structured-output mode and sampling settings, checked (a usage error names the setting)."""
        from .judges.openai_judge import JSON_MODES

        text = self._setting("llmeval_judge_price")
        try:
            price = tuple(float(p) for p in text.split(","))
            if len(price) != 2 or min(price) < 0:
                raise ValueError
        except ValueError:
            raise pytest.UsageError(
                f"--llmeval-judge-price / llmeval_judge_price: expected PROMPT,COMPLETION, two non-negative numbers "
                f"(money per million tokens, e.g. 0.15,0.60); got {text!r}") from None
        mode = str(self.config.getini("llmeval_judge_json_mode")).strip()
        if mode not in JSON_MODES:
            raise pytest.UsageError(f"llmeval_judge_json_mode: expected one of {', '.join(JSON_MODES)}; got {mode!r}")
        sampling: dict[str, Any] = {}
        for key, kind, low, high, what in (
            ("temperature", float, 0.0, 2.0, "a number from 0 to 2"),
            ("seed", int, None, None, "an integer, or 'none' to send no seed"),
            ("max_tokens", int, 1, None, "a positive integer"),
            ("max_concurrency", int, 1, 256, "an integer from 1 to 256"),
            ("timeout", float, 0.001, None, "a positive number of seconds"),
        ):
            text = str(self.config.getini(f"llmeval_judge_{key}")).strip()
            if key == "seed" and text.lower() == "none":
                sampling[key] = None
                continue
            try:
                value = kind(text)
                if (low is not None and value < low) or (high is not None and value > high):
                    raise ValueError
            except ValueError:
                raise pytest.UsageError(f"llmeval_judge_{key}: expected {what}; got {text!r}") from None
            sampling[key] = value
        self.judge_repeats()
        return (price[0], price[1]), mode, sampling

    def announce(self, line: str) -> None:
        """Show progress (model loads) on the terminal, even while output is captured."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line(line)
        else:
            reporter.write_line(line)

    # -- set-up ------------------------------------------------------------------

    def load_thresholds(self) -> None:
        """Read ``llmeval_thresholds`` (ini) then ``--llmeval-threshold`` (CLI, wins)."""
        sources: list[tuple[str, str]] = [(line, "llmeval_thresholds in the config file") for line in self.config.getini("llmeval_thresholds")]
        for evaluator, metric, value in [parse_threshold_safe(line, where) for line, where in sources]:
            self._overrides.setdefault(evaluator, {})[metric] = value
        for evaluator, metric, value in self.config.getoption("llmeval_threshold") or []:
            self._overrides.setdefault(evaluator, {})[metric] = value

    def check_thresholds(self) -> None:
        """Fail early, naming the option, when an override names an unknown evaluator or metric."""
        for evaluator, metrics in self._overrides.items():
            try:
                cls = self.registry.resolve(evaluator)
            except UnknownEvaluatorError as exc:
                raise pytest.UsageError(f"--llmeval-threshold / llmeval_thresholds: {exc}") from None
            known = cls.metric_specs()
            for metric in metrics:
                if metric not in known:
                    raise pytest.UsageError(
                        f"--llmeval-threshold / llmeval_thresholds: {evaluator} has no metric {metric!r}; "
                        f"its metrics: {', '.join(known)}"
                    )

    # -- used by tests -----------------------------------------------------------

    def evaluator(self, name: str, params: Mapping[str, Any]) -> Evaluator:
        """A cached evaluator instance for ``name`` and ``params``."""
        key = (name, json.dumps(params, sort_keys=True, default=repr))
        if key not in self._evaluators:
            evaluator = self.registry.create(name, **params)
            bind = getattr(evaluator, "bind", None)
            if bind is not None:
                bind(self.models)
            if getattr(evaluator, "needs_judge", False) and hasattr(evaluator, "bind_judge"):
                evaluator.bind_judge(self.judge)
            self._evaluators[key] = evaluator
        return self._evaluators[key]

    def threshold_overrides(self, evaluator: str) -> Mapping[str, float]:
        return self._overrides.get(evaluator, {})

    def load_baseline(self) -> None:
        """Read ``--llmeval-baseline`` at start-up, so a wrong path fails before any test runs."""
        self.baseline_path = self._setting("llmeval_baseline").strip()
        text = self.config.getoption("llmeval_baseline_tolerance", None)
        if text is None:
            text = str(self.config.getini("llmeval_baseline_tolerance")).strip() or "0"
        try:
            self.baseline_tolerance = float(text)
            if self.baseline_tolerance < 0:
                raise ValueError
        except ValueError:
            raise pytest.UsageError(f"--llmeval-baseline-tolerance / llmeval_baseline_tolerance: expected a non-negative number; "
                                    f"got {text!r}") from None
        if self.config.getoption("llmeval_fail_on_regression") and not self.baseline_path:
            raise pytest.UsageError("--llmeval-fail-on-regression needs a baseline: --llmeval-baseline=REPORT.json")
        if not self.baseline_path or self.is_worker:
            return
        from .baseline import load_baseline

        path = str(self.config.invocation_params.dir / self.baseline_path)
        try:
            self.baseline = load_baseline(path)
        except ValueError as exc:
            raise pytest.UsageError(f"--llmeval-baseline / llmeval_baseline: {exc}") from None

    def comparison(self) -> Any:
        """This run against the baseline (``None`` without one); computed once per set of records."""
        if self.baseline is None:
            return None
        if self._comparison is None or self._comparison[0] != len(self.records):
            from .baseline import compare

            self._comparison = (len(self.records), compare(self.ordered_records(), self.baseline, tolerance=self.baseline_tolerance,
                                                           name=self.baseline_path))
        return self._comparison[1]

    def models_under_test(self) -> list[str]:
        """``--llmeval-models`` / ``llmeval_models``: names, comma- or line-separated, in order, without duplicates."""
        text = self._setting("llmeval_models")
        names = [n.strip() for n in text.replace("\n", ",").split(",") if n.strip()]
        return list(dict.fromkeys(names))

    def flip_delta(self) -> float | None:
        value = self.config.getoption("llmeval_flip_delta", None)
        if value is None:
            text = str(self.config.getini("llmeval_flip_delta")).strip()
            if not text:
                return None
            try:
                value = float(text)
            except ValueError:
                raise pytest.UsageError(f"llmeval_flip_delta: expected a number, e.g. 0.2; got {text!r}") from None
        if value < 0:
            raise pytest.UsageError(f"--llmeval-flip-delta / llmeval_flip_delta: expected a non-negative number; got {value}")
        return float(value)

    def summary(self) -> Any:
        """The leaderboard, flips and insights of the records so far; computed once per set of records.

        The end of a run reads it four times (JUnit suite properties, JUnit flips, the
        report and the terminal), always after the last record arrived.
        """
        if self._summary is None or self._summary[0] != len(self.records):
            from .aggregate import summarize

            self._summary = (len(self.records), summarize(self.ordered_records(), flip_delta=self.flip_delta()))
        return self._summary[1]

    def context_for(self, item: pytest.Item, *, use_markers: bool = True) -> TestContext:
        model = case = None
        tags: dict[str, Any] = {}
        callspec = getattr(item, "callspec", None)
        params = getattr(callspec, "params", {}) if callspec is not None else {}
        if isinstance(params.get("llmeval_model"), str):
            model = params["llmeval_model"]
        if "llmeval_perturbation" in params:
            perturbation = params["llmeval_perturbation"]
            label = "original" if perturbation is None else perturbation.id
            tags["perturbation"] = label
            case = _sibling_id(item, label)
        markers = list(item.iter_markers("llmeval")) if use_markers else []
        for marker in reversed(markers):  # farthest first, closest wins (the marker beats the parametrized model and case)
            if marker.args:
                raise pytest.UsageError(
                    f"{item.nodeid}: @pytest.mark.llmeval takes keyword arguments only, e.g. llmeval(model='gpt-4o', case='q1')"
                )
            kwargs = dict(marker.kwargs)
            model = kwargs.pop("model", model)
            case = kwargs.pop("case", case)
            tags.update(kwargs)
        for name, value in (("model", model), ("case", case)):
            if value is not None and not isinstance(value, str):
                raise pytest.UsageError(f"{item.nodeid}: llmeval marker argument {name!r} must be a str, got {value!r}")
        if model is not None and not any("case" in m.kwargs for m in markers):
            # A test parametrized over models: its case is the test id without the model's part, so one
            # case compares the models ("test_capital[q1]", not "test_capital[q1-beta]").
            case = _without_id_part(case or item.nodeid, model)
        return TestContext(
            nodeid=item.nodeid,
            user_properties=item.user_properties,
            evaluator_factory=self.evaluator,
            threshold_overrides=self.threshold_overrides,
            judge_factory=lambda: self.judge,
            model=model,
            case=case,
            tags=tags,
        )

    # -- collection (controller and single process) -------------------------------

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when not in ("setup", "call", "teardown"):
            # xdist reports a test whose worker died with when="???": it is in every report as crashed.
            self.outcomes[report.nodeid] = "crashed"
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.outcomes[report.nodeid] = _outcome(report)
            if report.skipped and "llmeval judge unavailable" in str(report.longrepr):
                self.judge_skips += 1
        elif report.when == "teardown" and report.failed and self.outcomes.get(report.nodeid) == "passed":
            self.outcomes[report.nodeid] = "error"
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name != RECORD_PROPERTY:
                continue
            try:
                record = decode_record(value)
            except ValueError:
                self.bad_records += 1
                continue
            record["nodeid"] = report.nodeid
            self.records.append(record)

    # -- the end of the run (controller) ----------------------------------------

    def ordered_records(self) -> list[dict[str, Any]]:
        """Records by test id (stable within a test), so xdist's arrival order never shows."""
        return sorted(self.records, key=lambda record: record["nodeid"])

    def build_report(self) -> dict[str, Any]:
        import platform

        from . import __version__

        records = self.ordered_records()
        summary = self.summary()
        for record in records:
            record["outcome"] = self.outcomes.get(record["nodeid"], "unknown")
        finished = time.time()
        workers = getattr(self.config.option, "numprocesses", None)
        report: dict[str, Any] = {
            "format": "pytest-llmeval-report",
            "version": 1,
            "run": {
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
                "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished)),
                "duration_s": round(finished - self.started, 3),
                "plugin": __version__,
                "pytest": pytest.__version__,
                "python": platform.python_version(),
                "platform": platform.platform(),
                "args": [str(a) for a in self.config.invocation_params.args],
                "workers": workers,
                "ci": bool(os.environ.get("CI")),
            },
            "models": self.model_stats(),
            "judge": self.judge_stats(),
            "summary": summary.to_dict(),
            "baseline": None if self.comparison() is None else self.comparison().to_dict(),
            "tests": dict(sorted(self.outcomes.items())),
            "results": records,
        }
        self.config.hook.pytest_llmeval_update_report(config=self.config, report=report)
        return report

    def report_paths(self) -> list[str]:
        paths = list(self.config.getoption("llmeval_report") or [])
        if not paths:
            paths = [str(p) for p in self.config.getini("llmeval_report")]
        return paths

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: keep each worker's model statistics."""
        output = getattr(node, "workeroutput", {}) or {}
        if "llmeval_models" in output:
            worker = (getattr(node, "workerinput", None) or {}).get("workerid", f"worker{len(self.worker_models)}")
            self.worker_models[str(worker)] = output["llmeval_models"]
        if "llmeval_judge" in output:
            self.worker_judges.append(output["llmeval_judge"])

    def judge_stats(self) -> dict[str, Any]:
        """Judge calls, tokens, cost and cache use, workers added up; skips counted on the controller."""
        parts = ([self._judge.stats()] if self._judge is not None else []) + self.worker_judges
        totals: dict[str, Any] = {"skipped_checks": self.judge_skips}
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
        totals["per_test"] = self.judge_use_per_test()
        return totals

    def judge_use_per_test(self) -> dict[str, dict[str, Any]]:
        """Judge calls, replays, tokens and cost of each test (from its results' ``judge`` details)."""
        per_test: dict[str, dict[str, Any]] = {}
        for record in self.ordered_records():
            usage = (record.get("details") or {}).get("judge")
            if not isinstance(usage, Mapping):
                continue
            entry = per_test.setdefault(record["nodeid"], {"calls": 0, "replayed": 0, "tokens": 0, "cost": 0.0})
            entry["calls"] += int(usage.get("calls", 0))
            entry["replayed"] += int(usage.get("replayed", 0))
            entry["tokens"] += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            entry["cost"] = round(entry["cost"] + float(usage.get("cost", 0.0)), 8)
        return per_test

    def model_stats(self) -> dict[str, Any]:
        return {"controller": self.models.stats(), "workers": dict(sorted(self.worker_models.items()))}

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        try:
            self.models.flush()
        except OSError as exc:
            warnings.warn(LLMEvalWarning(f"could not write the embedding cache: {exc}"), stacklevel=1)
        if self.is_worker:
            self.config.workeroutput["llmeval_models"] = self.models.stats()  # type: ignore[attr-defined]
            if self._judge is not None:
                self.config.workeroutput["llmeval_judge"] = self._judge.stats()  # type: ignore[attr-defined]
            return
        try:
            self.models.compact()
        except OSError:
            pass
        if self.bad_records:
            warnings.warn(LLMEvalWarning(f"{self.bad_records} llmeval record(s) in user_properties could not be read"), stacklevel=1)
        comparison = self.comparison()
        if comparison is not None and comparison.regressions and self.config.getoption("llmeval_fail_on_regression"):
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        paths = self.report_paths()
        if not self.records and not paths:
            return
        self.add_junit_properties()
        if not paths:
            return
        from .report import write_reports

        report = self.build_report()
        failed = False
        for path in paths:
            try:
                self.written.extend(write_reports(report, path))
            except Exception as exc:  # noqa: BLE001 - one writer's failure must not cost the other reports
                failed = True
                warnings.warn(LLMEvalWarning(f"could not write the llmeval report {path!r}: {exc}"), stacklevel=1)
                self.written.append(f"FAILED {path}: {exc}")
        if failed and session.exitstatus == pytest.ExitCode.OK:
            # A report the run was asked for is missing: the run has not done its job.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def add_junit_properties(self) -> None:
        """Put the leaderboard into the JUnit ``<testsuite>`` properties (allowed by every junit_family)."""
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - pytest internals moved
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is None or not self.records:
            return
        summary = self.summary()
        def add(name: str, value: Any) -> None:
            # pytest writes the file as UTF-8: a model name with a lone surrogate would abort it.
            xml.add_global_property(replace_surrogates(name), replace_surrogates(value) if isinstance(value, str) else value)

        add("llmeval.checks", summary.checks)
        add("llmeval.passed", summary.passed)
        if summary.best_model:
            add("llmeval.best_model", summary.best_model)
        for row in summary.rows:
            from .aggregate import NO_MODEL

            # A test without a model is no model: its rows are llmeval.<check>.<metric>.*
            prefix = f"llmeval.{row.check}.{row.metric}" if row.model == NO_MODEL else f"llmeval.{row.model}.{row.check}.{row.metric}"
            if row.mean is not None:
                add(f"{prefix}.mean", round(row.mean, 6))
            add(f"{prefix}.pass_rate", round(row.pass_rate, 6))
            add(f"{prefix}.count", row.count)
        if summary.perturbed_checks:
            add("llmeval.perturbed_checks", summary.perturbed_checks)
            add("llmeval.flips", len(summary.flips))

    def mark_flips_in_junit(self) -> None:
        """Give each flipped test an ``llmeval.flip`` property in the JUnit file.

        A flip is known only when both siblings have run (on any worker), after
        pytest wrote the test's ``<testcase>``: the written file is amended, atomically.
        """
        if self.is_worker or not self.records:
            return
        try:
            from _pytest.junitxml import bin_xml_escape, mangle_test_address, xml_key
        except ImportError:  # pragma: no cover - pytest internals moved
            return
        xml = self.config.stash.get(xml_key, None)
        path = getattr(xml, "logfile", None)
        if not path or not os.path.exists(path):
            return
        flips = [f for f in self.summary().flips if f.nodeid]
        if not flips:
            return
        import xml.etree.ElementTree as ET

        wanted: dict[tuple[str, str], list[Any]] = {}
        prefix = getattr(xml, "prefix", None)
        for flip in flips:
            names = mangle_test_address(flip.nodeid)
            if prefix:
                names[0] = f"{prefix}.{names[0]}"
            wanted.setdefault((".".join(names[:-1]), str(bin_xml_escape(names[-1]))), []).append(flip)
        try:
            tree = ET.parse(path)
            for testcase in tree.iter("testcase"):
                classname, name = testcase.get("classname", ""), testcase.get("name", "")
                found = wanted.get((classname, name), [])
                if not found:
                    continue
                properties = testcase.find("properties")
                if properties is None:
                    properties = ET.Element("properties")
                    testcase.insert(0, properties)
                for flip in found:
                    ET.SubElement(properties, "property", name="llmeval.flip", value=replace_surrogates(flip.describe()))
            temporary = f"{path}.llmeval-tmp"
            tree.write(temporary, encoding="utf-8", xml_declaration=True)
            os.replace(temporary, path)
        except (OSError, ET.ParseError) as exc:
            warnings.warn(LLMEvalWarning(f"could not add perturbation flips to the JUnit file {path}: {exc}"), stacklevel=1)

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.config.getoption("llmeval_summary"):
            return
        if not self.records and not self.written and not self.judge_skips and self.comparison() is None:
            return
        from .report.terminal import render_summary

        out = _SafeTerminal(terminalreporter)

        width = getattr(terminalreporter, "_tw", None)
        fullwidth = getattr(width, "fullwidth", 80) if width is not None else 80
        out.write_sep("=", "llmeval summary")
        if self.records:
            for line in render_summary(self.summary(), width=min(fullwidth, 100)):
                out.write_line(line)
        if any(outcome in ("failed", "error", "crashed") for outcome in self.outcomes.values()):
            from .aggregate import outcome_counts_line

            out.write_line(f"llmeval tests: {outcome_counts_line(self.outcomes)}")
        for line in self.model_lines():
            out.write_line(line)
        for line in self.baseline_lines():
            out.write_line(line)
        judge = self.judge_stats()
        if judge["calls"] or judge["cache_hits"] or judge["skipped_checks"] or judge["corrupt_cache_files"]:
            out.write_line(
                f"llmeval judge: {judge['calls']} call(s), {judge['prompt_tokens']}+{judge['completion_tokens']} tokens, "
                f"cost {judge['cost']:.4f}; {judge['cache_hits']} verdict(s) replayed; {judge['parse_failures']} parse failure(s); "
                f"{judge['skipped_checks']} check(s) skipped"
            )
            if judge["parse_failures_by_evaluator"]:
                shown = ", ".join(f"{name} {count}" for name, count in judge["parse_failures_by_evaluator"].items())
                out.write_line(f"llmeval judge: parse failures by check: {shown}")
            costly = sorted(((u["tokens"], u["cost"], nodeid) for nodeid, u in judge["per_test"].items() if u["calls"]), reverse=True)
            for tokens, cost, nodeid in costly[:3]:
                out.write_line(f"llmeval judge: {tokens} tokens, cost {cost:.4f}: {nodeid}")
            for problem in judge["corrupt_cache_files"]:
                out.write_line(f"llmeval judge: untrusted cache file {problem}")
        for downgrade in judge["json_mode_downgrades"]:
            out.write_line(f"llmeval judge: structured output downgraded {downgrade}")
        for path in self.written:
            out.write_line(f"llmeval report: {path}")

    def baseline_lines(self, limit: int = 20) -> list[str]:
        comparison = self.comparison()
        if comparison is None:
            return []
        lines = [f"llmeval baseline {comparison.baseline}: {len(comparison.regressions)} regression(s), "
                 f"{len(comparison.improvements)} improvement(s) in {comparison.compared} comparable result(s)"
                 + (f"; {len(comparison.not_comparable)} not comparable (signature changed)" if comparison.not_comparable else "")
                 + (f"; {comparison.new} new, {comparison.missing} gone" if comparison.new or comparison.missing else "")]
        lines += [f"  {change.describe()}" for change in comparison.changes[:limit]]
        if len(comparison.changes) > limit:
            lines.append(f"  ... {len(comparison.changes) - limit} more in the report")
        if comparison.regressions and self.config.getoption("llmeval_fail_on_regression"):
            lines.append("llmeval baseline: failing the run (--llmeval-fail-on-regression)")
        return lines

    def model_lines(self) -> list[str]:
        """One line per embedder used in this run, with workers' numbers added up."""
        totals: dict[str, dict[str, Any]] = {}
        loads = 0
        for stats in [self.models.stats(), *self.worker_models.values()]:
            loads += len(stats.get("loads", []))
            for embedder in stats.get("embedders", []):
                entry = totals.setdefault(embedder["signature"], {"name": embedder["name"], "encoded": 0, "hits": 0, "devices": set()})
                entry["encoded"] += embedder["encoded"]
                entry["hits"] += embedder["cache_hits"]
                if embedder["device"]:
                    entry["devices"].add(embedder["device"])
        lines = []
        for signature, entry in totals.items():
            devices = ", ".join(sorted(entry["devices"]))
            where = f"on {devices}" if devices else "not loaded (all from cache)"
            lines.append(
                f"llmeval models: {entry['name']} {where}: {entry['encoded']} texts encoded, "
                f"{entry['hits']} from cache ({loads} model load(s))"
            )
        return lines


def _sibling_id(item: pytest.Item, label: str) -> str:
    """The node id a test's perturbation siblings share: their id without the perturbation's part.

    The plugin parametrizes the perturbation last, so its id is the last of the
    callspec's ids; where pytest's internals differ, the id text is split instead.
    """
    callspec = getattr(item, "callspec", None)
    idlist = getattr(callspec, "_idlist", None)
    params = list(getattr(callspec, "params", {}))
    if isinstance(idlist, list) and idlist and params and params[-1] == "llmeval_perturbation":
        base = item.nodeid.partition("[")[0]
        rest = idlist[:-1]
        return f"{base}[{'-'.join(map(str, rest))}]" if rest else base
    return _without_id_part(item.nodeid, label)


def _without_id_part(nodeid: str, part: str) -> str:
    """``test_x[q1-typos]`` without ``typos``: the id shared by a test's perturbation siblings."""
    base, bracket, ids = nodeid.partition("[")
    if not bracket or not ids.endswith("]"):
        return nodeid
    parts = ids[:-1].split("-")
    if part in parts:
        index = len(parts) - 1 - parts[::-1].index(part)
        parts.pop(index)
    return f"{base}[{'-'.join(parts)}]" if parts else base


def parse_threshold_safe(line: str, where: str) -> tuple[str, str, float]:
    try:
        return parse_threshold(line)
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"{where}: {exc}") from None

