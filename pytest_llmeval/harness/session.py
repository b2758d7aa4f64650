"""The per-run state: one `EvalSession` in ``config.stash``, one per process (controller and each xdist worker).

It holds the `Settings`, the evaluator registry and
instance cache, the scoring-model cache, the judge runner and (on the controller) the
records read back from every test report. Hooks live in `.plugin`; the report,
its totals and the terminal lines in `.harness.reporting`.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from ..run.recording import RECORD_PROPERTY, RecordStore, exact_key
from . import tiers
from .registry import Registry
from .context import CheckingContext
from .markers import identity, outcome_of
from .options import Settings, load_settings

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator
    from ..core.result import Record
    from ..judges.runner import JudgeRunner
    from ..models.cache import ModelCache
    from ..run.prefetch import Prefetcher
    from ..report.aggregate import Summary
    from ..report.baseline import Comparison
    from .calibrating import Requirement

__all__ = ["EvalSession", "session_key", "LLMEvalWarning"]


#: The skip reason of a judge check without a judge (see `.judges.runner`).
JUDGE_SKIP = "llmeval judge unavailable"


class LLMEvalWarning(pytest.PytestWarning):
    """Something pytest-llmeval could not do, that did not stop the run."""


session_key = pytest.StashKey["EvalSession"]()


class EvalSession:
    """State of one pytest run in one process."""

    def __init__(self, config: pytest.Config, settings: Settings | None = None) -> None:
        self.config = config
        self.settings = settings if settings is not None else load_settings(config)
        self.registry = Registry()
        self.is_worker = hasattr(config, "workerinput")
        self._store = RecordStore()
        self._records: list[Record] = []  # see records
        self._unread: list[tuple[str, object]] = []
        self.outcomes: dict[str, str] = {}
        self.bad_records = 0
        self.written: list[str] = []
        self.started = time.time()
        self.judge_skips = 0
        self.merged: list[str] = []  # the shard reports this run merged (--llmeval-merge)
        self.worker_models: dict[str, dict[str, Any]] = {}
        self.worker_judges: list[dict[str, Any]] = []
        self.judge_runner: JudgeRunner | None = None
        self.baseline: dict[str, Any] | None = None
        self._evaluators: dict[tuple[type[Evaluator] | str, str | bytes | None], Evaluator] = {}
        self._judges_for: dict[str, JudgeRunner] = {}
        self._overrides: dict[str, dict[str, float]] = {}
        for evaluator, metric, value in self.settings.thresholds:
            self._overrides.setdefault(evaluator, {})[metric] = value
        self._summary: tuple[int, Summary] | None = None
        self._comparison: tuple[int, Comparison] | None = None
        self._ordered: list[Record] | None = None
        self.spend_file: str | None = None  # xdist: the judge spend the workers share (`spend_ledger`)
        self._spend: Any = None
        self.share_dir: str | None = None  # xdist: where the workers share embeddings (the prefetcher's)
        self.requirement: Requirement | None = None  # calibration.required (harness.calibrating)

    @functools.cached_property
    def models(self) -> ModelCache:
        """The scoring models' cache, made when a check or fixture first asks (a run without one imports no model
        code)."""
        from ..models.cache import ModelCache
        from ..models.server import server_for

        return ModelCache(
            device=self.settings.device,
            precision=self.settings.precision,
            embedding_model=self.settings.embedding_model,
            cache_dir=self.cache_dir,
            announce=self.announce,
            embedding_server=server_for(self.settings.embedding_url, self.settings.embedding_api_key_env),
        )

    @property
    def cache_dir(self) -> str | None:
        """The embedding cache's folder in the rootdir (``None``: ``--llmeval-cache-dir=off``)."""
        folder = self.settings.cache_dir
        return str(self.config.rootpath / folder) if folder and folder.lower() != "off" else None

    @functools.cached_property
    def prefetcher(self) -> Prefetcher:
        from ..run.prefetch import Prefetcher

        return Prefetcher(judge_prefetch=self.settings.judge_prefetch, share_dir=self.share_dir)

    def made(
        self, part: str
    ) -> bool:  # whether ``models`` or ``prefetcher`` was made (a run that used neither needs neither at its end)
        return part in self.__dict__

    @property
    def judge(self) -> JudgeRunner:
        """The session's judge runner, built on first use (the openai client only when a verdict is asked for)."""
        if self.judge_runner is None:
            from ..judges.cache import VerdictCache

            cache = VerdictCache(str(self.config.rootpath / self.settings.judge_dir), self.settings.judge_cache)
            self.judge_runner = self._runner(self.settings, cache)
        return self.judge_runner

    def _runner(self, settings: Settings, cache: Any) -> JudgeRunner:
        """A judge runner for ``settings``' judge (from ``pytest_llmeval_make_judge``) over ``cache``."""
        from ..judges.runner import JudgeRunner

        judge = self.config.hook.pytest_llmeval_make_judge(config=self.config, settings=settings)
        return JudgeRunner(
            judge,
            cache,
            offline=settings.offline,
            repeats=settings.judge_repeats,
            why_none="no judge configured (set --llmeval-judge-model or llmeval_judge_model)",
            spend=self.spend_ledger(),
        )

    def spend_ledger(self) -> Any:
        """The run's judge spend ledger (judge.spend_limit): one per process, over the workers' shared file."""
        if self._spend is None:
            from ..judges.spend import SpendLedger

            self._spend = SpendLedger(self.settings.judge_spend_limit, self.spend_file)
        return self._spend

    def judge_of(self, evaluator: str) -> JudgeRunner:
        """The judge runner of one check: its own model when ``judge.for`` names one, else the session's."""
        assigned = dict(self.settings.judge_for).get(evaluator)
        if not assigned:
            return self.judge
        if assigned not in self._judges_for:
            from dataclasses import replace

            self._judges_for[assigned] = self._runner(replace(self.settings, judge_model=assigned), self.judge.cache)
        return self._judges_for[assigned]

    def runners(self) -> list[JudgeRunner]:
        """The judge runners built so far: the session's first, then one per ``judge.for`` model."""
        return [*filter(None, [self.judge_runner]), *self._judges_for.values()]

    def judge_parts(self) -> list[dict[str, Any]]:
        """This process's judge statistics, one part per judge model (the shared verdict cache counted once)."""
        empty = {"cache": {"hits": 0, "misses": 0, "corrupt": []}}
        return [{**runner.stats(), **(empty if index else {})} for index, runner in enumerate(self.runners())]

    def announce(self, line: str) -> None:
        """Show progress (model loads) on the terminal, even while output is captured (`.progress.announce()`)."""
        from .progress import announce

        announce(self.config, line)

    # -- set-up ------------------------------------------------------------------

    def check_thresholds(self) -> None:
        """Fail early, naming the option, when an override or a judge assignment names an unknown evaluator or
        metric."""
        from .registry import check_names

        check_names(self.registry, [evaluator for evaluator, _ in self.settings.judge_for], self._overrides)

    def load_baseline(self) -> None:
        """Read ``--llmeval-baseline`` at start-up, so a wrong path fails before any test runs."""
        if self.settings.fail_on_regression and not self.settings.baseline:
            raise pytest.UsageError("--llmeval-fail-on-regression needs a baseline: --llmeval-baseline=REPORT.json")
        if not self.settings.baseline or self.is_worker:
            return
        from ..report.jsonfile import load_baseline
        from .runs import baseline_path

        try:
            self.baseline = load_baseline(str(baseline_path(self.settings.baseline, self.config.invocation_params.dir)))
        except ValueError as exc:
            raise pytest.UsageError(f"--llmeval-baseline / llmeval_baseline: {exc}") from None

    # -- used by tests -----------------------------------------------------------

    def evaluator(self, check: type[Evaluator] | str, params: Mapping[str, Any]) -> Evaluator:
        """A cached instance of ``check`` (a class, or a registered name) with ``params``, bound to the model cache and
        judge."""
        if (exact := (check, exact_key(params))) in self._evaluators:  # the very same params (cheaper than their JSON)
            return self._evaluators[exact]
        cls = self.registry.resolve(check) if isinstance(check, str) else check
        params = self.settings.run_params(params, lambda: cls.defaults)  # --llmeval-fail-on
        key = (cls, json.dumps(params, sort_keys=True, default=repr))
        if key not in self._evaluators:
            evaluator = cls(**params)
            bind = getattr(evaluator, "bind", None)
            if bind is not None:
                bind(self.models)
            if getattr(evaluator, "needs_judge", False) and hasattr(evaluator, "bind_judge"):
                evaluator.bind_judge(self.judge_of(cls.name))
                self._bind_prompts(evaluator)
            self._evaluators[key] = evaluator
        if exact[1] is not None:
            self._evaluators[exact] = self._evaluators[key]
        return self._evaluators[key]

    def _bind_prompts(self, evaluator: Any) -> None:
        """The prompts plugins replace for this run (``pytest_llmeval_judge_prompts``; later plugins win)."""
        replaced: dict[str, str] = {}
        for found in reversed(
            self.config.hook.pytest_llmeval_judge_prompts(
                config=self.config, check=evaluator.name, prompts=evaluator.default_prompts()
            )
        ):
            replaced.update(found or {})
        if replaced:
            evaluator.bind_prompts(replaced)

    def threshold_overrides(self, evaluator: str) -> Mapping[str, float]:
        """The run's threshold overrides (``--llmeval-threshold``) for ``evaluator``, by metric."""
        return self._overrides.get(evaluator, {})

    def context_for(self, item: pytest.Item, *, use_markers: bool = True) -> CheckingContext:
        found = identity(item, use_markers=use_markers, repeat=self.settings.repeat, min_pass=self.settings.min_pass)
        return CheckingContext(
            nodeid=item.nodeid,
            user_properties=item.user_properties,
            evaluator_factory=self.evaluator,
            registry=self.registry,
            escalation=functools.partial(tiers.escalation, self),
            detector=functools.partial(tiers.detector, self),
            verifier=functools.partial(tiers.verifier, self),
            threshold_overrides=self.threshold_overrides,
            judge_factory=lambda: self.judge,
            model=found.model,
            case=found.case,
            tags=found.tags,
            unverified=self.settings.unverified,
            # the case decides; strict gates tests as aggregate does (the run's end adds its rule)
            gate="per-test" if self.settings.gate == "per-test" and "min_pass" not in found.tags else "aggregate",
            prefetch=lambda evaluator, cases: self.prefetcher.before_check(item, evaluator, cases),
            calibration=None if self.requirement is None else self.requirement.apply,
        )

    # -- collection (controller and single process) -------------------------------

    def collect(self, report: pytest.TestReport) -> None:
        """Note the test's outcome and read its records (from any worker) off its teardown report."""
        if report.when not in ("setup", "call", "teardown"):
            # xdist reports a test whose worker died with when="???": it is in every report as crashed.
            self.outcomes[report.nodeid] = "crashed"
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.outcomes[report.nodeid] = outcome_of(report)
            if report.skipped and JUDGE_SKIP in str(report.longrepr):
                self.judge_skips += 1
        elif report.when == "teardown" and report.failed and self.outcomes.get(report.nodeid) == "passed":
            self.outcomes[report.nodeid] = "error"
        if report.when == "teardown":  # kept as they came (pytest keeps them too) and read when first needed
            self._unread.extend(
                (report.nodeid, value) for name, value in report.user_properties if name == RECORD_PROPERTY
            )

    @property
    def records(self) -> list[Record]:
        """One compact dict per result (see RecordStore), the test's properties read on first use."""
        if self._unread:
            self.bad_records += self._store.read(self._unread, into=self._records)
            self._unread = []
        return self._records

    def add_record(self, record: Mapping[str, Any]) -> None:
        """Keep a record read from elsewhere (a shard's report), compacted like the tests' own."""
        self.records.append(self._store.add(record))

    def merge(self, paths: list[str]) -> None:
        """Take the records, outcomes and statistics of CI shards' JSON reports as if this run had made them."""
        from .merge import merge_reports

        shards = merge_reports(paths)
        self.outcomes.update(shards.outcomes)
        for record in shards.records:
            self.add_record(record)
        self.judge_skips += shards.judge_skips
        self.worker_judges.extend(shards.worker_judges)
        self.worker_models.update(shards.worker_models)
        self.merged = list(paths)

    def worker_finished(self, output: Mapping[str, Any], worker: str) -> None:
        """xdist: keep a worker's model and judge statistics."""
        if "llmeval_models" in output:
            self.worker_models[worker] = output["llmeval_models"]
        self.worker_judges.extend(output.get("llmeval_judge", []))

    # -- aggregates (controller) ----------------------------------------------------

    def ordered_records(self) -> list[Record]:
        """Records by test id (stable within a test), so xdist's arrival order never shows; sorted once per set of
        records."""
        if self._ordered is None or len(self._ordered) != len(self.records):
            self._ordered = sorted(self.records, key=lambda record: record["nodeid"])
        return self._ordered

    def gated(self) -> list[Record]:
        """The ordered records that gate: all but a diagnostic check's (``calibration.required``)."""
        return self.ordered_records() if self.requirement is None else self.requirement.gating(self.ordered_records())

    def summary(self) -> Summary:
        """The leaderboard, flips and insights of the records so far; computed once per set of records."""
        if self._summary is None or self._summary[0] != len(self.records):
            from ..report.aggregate import summarize

            expected = frozenset(nodeid for nodeid, outcome in self.outcomes.items() if outcome == "xfailed")
            self._summary = (
                len(self.records),
                summarize(
                    self.gated(), flip_delta=self.settings.flip_delta, alpha=self.settings.alpha, expected=expected
                ),
            )
        return self._summary[1]

    def comparison(self) -> Comparison | None:
        """This run against the baseline (``None`` without one); computed once per set of records."""
        if self.baseline is None:
            return None
        if self._comparison is None or self._comparison[0] != len(self.records):
            from ..report.baseline import compare

            self._comparison = (
                len(self.records),
                compare(
                    self.gated(),
                    self.baseline,
                    tolerance=self.settings.baseline_tolerance,
                    alpha=self.settings.alpha,
                    name=self.settings.baseline,
                ),
            )
        return self._comparison[1]
