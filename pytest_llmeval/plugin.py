"""The pytest plugin (entry point ``pytest11: llmeval``): options, marker, fixture, hooks.

Imports only the standard library, pytest and this package's light modules; every
evaluator and reporter is imported when first used.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import warnings
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from .core.ids import draw_id, sibling_id
from .harness.cassettes import Cassettes, llmeval_cassette  # noqa: F401 - the fixture, found here by pytest
from .harness.deferring import FIXTURE, Deferring, context_key as _context_key
from .harness.markers import MARKER_HELP, PERTURB_MARKER_HELP, repeat_of
from .harness.options import add_options
from .harness.session import EvalSession, LLMEvalWarning, session_key
from .harness.unverified import UnverifiedStatus

if TYPE_CHECKING:
    from .harness.context import CheckingContext
    from .models.cache import ModelCache

_marker_error_key = pytest.StashKey[Exception]()


_gc_paused_key = pytest.StashKey[bool]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from .harness import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    config.addinivalue_line("markers", PERTURB_MARKER_HELP)
    session = EvalSession(config)
    config.stash[session_key] = session
    config.pluginmanager.register(_RunHooks(session), "llmeval-run")
    config.pluginmanager.register(Deferring(session), "llmeval-defer")
    config.pluginmanager.register(Cassettes(session), "llmeval-cassettes")
    # a passed test with an unverified check: 'u'
    config.pluginmanager.register(UnverifiedStatus(), "llmeval-unverified")
    shared = (getattr(config, "workerinput", None) or {}).get("llmeval_share")
    if isinstance(shared, str) and os.path.isdir(shared):  # xdist worker on the controller's machine
        session.share_dir = shared
        session.spend_file = os.path.join(shared, "judge-spend.json")
    config.hook.pytest_llmeval_register_evaluators.call_historic(kwargs={"registry": session.registry})
    session.load_baseline()
    if session.settings.require_calibration or session.settings.calibrate:
        from .harness.calibrating import setup_calibration

        session.requirement = setup_calibration(config, session.settings)
    if config.getoption("llmeval_merge", None) and not session.is_worker:
        session.merge(list(config.getoption("llmeval_merge")))


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[session_key].check_thresholds()


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_gc_paused_key, False):
        gc.enable()
    for name in ("llmeval-defer", "llmeval-cassettes", "llmeval-unverified"):
        if config.pluginmanager.get_plugin(name) is not None:
            config.pluginmanager.unregister(name=name)
    hooks = config.pluginmanager.get_plugin("llmeval-run")
    if hooks is not None:
        config.pluginmanager.unregister(hooks)
        if hooks.share_dir is not None:
            shutil.rmtree(hooks.share_dir, ignore_errors=True)
    if session_key in config.stash:
        del config.stash[session_key]


def pytest_llmeval_make_judge(config: pytest.Config, settings: Any) -> Any:
    """The OpenAI-protocol judge of the ``llmeval_judge_*`` settings (``None`` without a judge model)."""
    if not settings.judge_model:
        return None
    from .judges.openai_judge import OpenAIJudge

    return OpenAIJudge(
        settings.judge_model,
        base_url=settings.judge_base_url or None,
        api_key_env=settings.judge_api_key_env,
        json_mode=settings.judge_json_mode,
        price_per_million=dict(settings.judge_prices).get(settings.judge_model, settings.judge_price),
        temperature=settings.judge_temperature,
        seed=settings.judge_seed,
        max_tokens=settings.judge_max_tokens,
        max_concurrency=settings.judge_max_concurrency,
        timeout=settings.judge_timeout,
        max_retries=settings.judge_retries,
        budget=settings.judge_budget,
    )


@pytest.hookimpl(trylast=True)
def pytest_llmeval_generate_report(
    config: pytest.Config,
    results: list[dict[str, Any]],
    run: dict[str, Any],
    summary: dict[str, Any],
    baseline: dict[str, Any] | None,
    tests: dict[str, str],
    models: dict[str, Any],
    judge: dict[str, Any],
    gate: dict[str, Any],
) -> dict[str, Any]:
    """The JSON report as the plugin makes it: a function of the records and the run's information."""
    from .report.jsonfile import assemble

    return assemble(
        results, run=run, summary=summary, baseline=baseline, tests=tests, models=models, judge=judge, gate=gate
    )


class _RunHooks:
    """Hooks that need this run's session but get no config (test reports): registered per run."""

    def __init__(self, session: EvalSession) -> None:
        self.session = session
        self.share_dir: str | None = None
        self.draws: Any = (
            None  # K of N: each repeated case's draws as their reports come in (harness.draws), made on need
        )
        self.local_draws: Any = (
            None  # repeat=auto on a worker: the draws this process ran, to skip a decided case's next
        )

    def tally(self, *, local: bool) -> Any:
        from .harness.draws import CaseDraws

        if local and self.session.is_worker:
            if self.local_draws is None:
                self.local_draws = CaseDraws(mark=False)
            return self.local_draws
        if self.draws is None:
            # Under the aggregate gate a failed case is recorded, not a red test: the run's gate decides.
            self.draws = CaseDraws(mark=self.session.settings.gate == "per-test")
        return self.draws

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist (controller): a folder for this run where the workers share the embeddings they encode."""
        if self.share_dir is None:
            self.share_dir = tempfile.mkdtemp(prefix="pytest-llmeval-shared-")
            self.session.spend_file = os.path.join(self.share_dir, "judge-spend.json")  # what the workers spend
        node.workerinput["llmeval_share"] = self.share_dir

    @pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """repeat=auto: a case's draws form one xdist group, so under ``--dist loadgroup`` they run in order on one
        worker, which skips the draws its case no longer needs."""
        for item in items:
            callspec = getattr(item, "callspec", None)
            draw = getattr(callspec, "params", {}).get("llmeval_draw") if callspec is not None else None
            if not isinstance(draw, int) or isinstance(draw, bool):
                continue
            try:
                _, auto = repeat_of(list(item.iter_markers("llmeval")), self.session.settings.repeat, item.nodeid)
            except pytest.UsageError:
                continue  # reported when the test runs
            if auto:
                item.add_marker(pytest.mark.xdist_group(name=f"llmeval-case:{sibling_id(item.nodeid, draw_id(draw))}"))

    @pytest.hookimpl(tryfirst=True)  # a case's K-of-N verdict changes its last draw's report before pytest counts it
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        counted = report.when == "call" and (
            self.draws is not None
            or self.local_draws is not None
            or any(name == "llmeval" and "min_pass" in str(value) for name, value in report.user_properties)
        )
        if counted:
            self.tally(local=True).decide(report)  # the controller's tally, or a worker's own (repeat=auto skips on it)
        if not self.session.is_worker:  # a worker's reports, records included, go to the controller, which reads them
            self.session.collect(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: keep each worker's model and judge statistics."""
        worker = (getattr(node, "workerinput", None) or {}).get("workerid", f"worker{len(self.session.worker_models)}")
        self.session.worker_finished(getattr(node, "workeroutput", {}) or {}, str(worker))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--llmeval-evaluators`` and ``--llmeval-merge``: run nothing (the catalog, or the merged shards, is the
    output)."""
    if (config.getoption("llmeval_evaluators", False) or config.getoption("llmeval_merge", None)) and items:
        config.hook.pytest_deselected(items=list(items))
        items.clear()
    elif config.stash[session_key].settings.calibrate:  # a calibration run: the labeled rows are its tests
        from .harness.calibrating import labeled_items

        config.hook.pytest_deselected(items=list(items))
        items[:] = labeled_items(session, config.stash[session_key].settings)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    eval_session = session.config.stash.get(session_key, None)
    if eval_session is None:
        return
    nothing_to_run = session.config.getoption("llmeval_evaluators", False) or session.config.getoption(
        "llmeval_merge", None
    )
    if nothing_to_run and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK
    if eval_session.made("prefetcher"):
        eval_session.prefetcher.wait()  # background judge prefetches write their verdicts first
    for runner in eval_session.runners():
        runner.close()  # the pools' threads
    if eval_session.made("models"):
        try:
            eval_session.models.flush()
        except OSError as exc:
            warnings.warn(LLMEvalWarning(f"could not write the embedding cache: {exc}"), stacklevel=1)
    if eval_session.is_worker:
        output = session.config.workeroutput  # type: ignore[attr-defined]
        if eval_session.made("models") or eval_session.made("prefetcher"):
            output["llmeval_models"] = {**eval_session.models.stats(), "prefetch": eval_session.prefetcher.stats()}
        if eval_session.judge_parts():
            output["llmeval_judge"] = eval_session.judge_parts()
        return
    if eval_session.made("models"):
        try:
            eval_session.models.compact()
        except OSError:
            pass
    if eval_session.records and gc.isenabled():
        # No automatic collection from here to pytest_unconfigure (pytest collects there, twice): the aggregates, the
        # reports and the terminal summary make many objects and no cycle, and with tens of thousands of records
        # every full collection they set off costs more than they do.
        gc.disable()
        session.config.stash[_gc_paused_key] = True
    from .harness.finishing import finish

    finish(session, eval_session)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    eval_session = config.stash.get(session_key, None)
    if eval_session is None or eval_session.is_worker:
        return
    if config.getoption("llmeval_evaluators", False):
        from .harness.catalog import catalog_lines
        from .text.basics import replace_surrogates

        terminalreporter.write_sep("=", "llmeval evaluators")
        for line in catalog_lines(eval_session.registry):
            terminalreporter.write_line(replace_surrogates(line))
        return
    if not eval_session.settings.summary:
        return
    if not (
        eval_session.records
        or eval_session.written
        or eval_session.judge_skips
        or eval_session.comparison() is not None
    ):
        return
    from .harness.reporting import session_lines
    from .text.basics import replace_surrogates

    terminalreporter.write_sep("=", "llmeval summary")
    try:
        lines = session_lines(eval_session, width=config.get_terminal_writer().fullwidth)
    except Exception as exc:  # noqa: BLE001 - one line, not a traceback over pytest's summary
        lines = [f"llmeval: the summary could not be computed: {exc!r}"] + [
            f"llmeval report: {p}" for p in eval_session.written
        ]
    for line in lines:
        # Model names and answers may hold lone surrogates, which no terminal can print.
        terminalreporter.write_line(replace_surrogates(line))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    eval_session = item.config.stash[session_key]
    try:
        context = eval_session.context_for(item)
    except pytest.UsageError as exc:
        # Reported as this test's set-up error (below), not as an error of the whole run.
        item.stash[_marker_error_key] = exc
        context = eval_session.context_for(item, use_markers=False)
    item.stash[_context_key] = context
    token = context.activate()
    try:
        return (yield)
    finally:
        context.deactivate(token)
        # The results travel in user_properties: the context (and the Result objects it holds) is not
        # kept with the item for the rest of the run.
        del item.stash[_context_key]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    error = item.stash.get(_marker_error_key, None)
    if error is not None:
        raise error
    context = item.stash.get(_context_key, None)
    if context is not None and context.tags.get(
        "auto"
    ):  # repeat=auto: a case whose verdict is certain needs no more draws
        hooks = item.config.pluginmanager.get_plugin("llmeval-run")
        tally = hooks.tally(local=True) if hooks is not None else None
        if tally is not None and tally.decided(str(context.case)):
            pytest.skip(f"llmeval: case {context.case} is decided; no more draws needed (repeat=auto)")


@pytest.hookimpl(trylast=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per model under test (``llmeval_model``), per draw of a repeated test (``--llmeval-repeat``,
    ``@pytest.mark.llmeval(repeat=N)``) and per perturbation (``@pytest.mark.llmeval_perturb``).

    Runs last, so the perturbation is the last part of the test id: ``test_x[q1-draw2-typos]``.
    """
    eval_session = metafunc.config.stash[session_key]
    if "llmeval_model" in metafunc.fixturenames:
        models = list(eval_session.settings.models)
        if models:
            metafunc.parametrize("llmeval_model", models, ids=models, scope="function")
    repeat, _ = repeat_of(
        list(metafunc.definition.iter_markers("llmeval")), eval_session.settings.repeat, metafunc.definition.nodeid
    )
    if repeat > 1:
        # N draws of one case: before the perturbation, whose part ends the test id.
        if "llmeval_draw" not in metafunc.fixturenames:
            metafunc.fixturenames.append("llmeval_draw")
        draws = list(range(1, repeat + 1))
        metafunc.parametrize("llmeval_draw", draws, ids=[draw_id(d) for d in draws], scope="function")
    marker = metafunc.definition.get_closest_marker("llmeval_perturb")
    if marker is None:
        return
    from .text.perturbators import parse_perturbations

    where = f"{metafunc.definition.nodeid}: @pytest.mark.llmeval_perturb"
    seed = marker.kwargs.get("seed", 0)
    unknown = sorted(set(marker.kwargs) - {"seed"})
    if unknown or isinstance(seed, bool) or not isinstance(seed, int):
        raise pytest.UsageError(
            f"{where} takes perturbations and seed=<int>; got {', '.join(unknown) or f'seed={seed!r}'}"
        )
    try:
        perturbations = parse_perturbations(marker.args, where=where)
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    if not perturbations:
        raise pytest.UsageError(f"{where} needs at least one perturbation, e.g. llmeval_perturb('typos', 'uppercase')")
    if "llmeval_perturbation" not in metafunc.fixturenames:
        raise pytest.UsageError(f"{where}: the test must use the llmeval_perturb fixture to perturb its input")
    metafunc.parametrize(
        "llmeval_perturbation",
        [None, *perturbations],
        ids=["original", *(p.id for p in perturbations)],
        scope="function",
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    eval_session = config.stash[session_key]  # read from the settings: the model cache is made when first used
    settings = eval_session.settings
    return (
        f"llmeval: device {settings.device} (resolved when a model first loads), precision {settings.precision}, "
        f"embedding model {settings.embedding_model}, cache {eval_session.cache_dir or 'off'}"
    )


@pytest.fixture(scope="session")
def llmeval_scorers(request: pytest.FixtureRequest) -> ModelCache:
    """This process's cache of scoring models: ``llmeval_scorers.warm(texts)`` encodes texts up front in one pass."""
    return request.config.stash[session_key].models


@pytest.fixture(scope="session")
def llmeval_models(request: pytest.FixtureRequest) -> ModelCache:
    """Deprecated name of ``llmeval_scorers`` (``--llmeval-models`` names the models under test, not these)."""
    warnings.warn(
        pytest.PytestDeprecationWarning(
            "the llmeval_models fixture is now llmeval_scorers (the scoring models' cache); the old name goes in the "
            "next release"
        ),
        stacklevel=2,
    )
    return request.config.stash[session_key].models


@pytest.fixture
def llmeval(request: pytest.FixtureRequest) -> CheckingContext:
    """The llmeval context of this test.

    Set ``llmeval.model`` / ``llmeval.case`` to tag the checks that follow, call
    ``llmeval.check(name, ...)`` for any registered evaluator, and read
    ``llmeval.results`` for what was recorded so far.
    """
    context: CheckingContext = request.node.stash[_context_key]
    return context


@pytest.fixture(name=FIXTURE)
def llmeval_deferred(request: pytest.FixtureRequest) -> CheckingContext:
    """The llmeval context, as ``llmeval``; a test that uses it defers its checks (scored in batches across tests)."""
    context: CheckingContext = request.node.stash[_context_key]
    return context


@pytest.fixture
def llmeval_deepeval_judge(request: pytest.FixtureRequest) -> Any:
    """The session's judge as a deepeval model, for ``GEval(..., model=llmeval_deepeval_judge)`` (needs deepeval).

    Its verdicts go through the llmeval verdict cache: recorded once, replayed in CI.
    """
    from .run.deepeval import judge_for_deepeval

    return judge_for_deepeval(request.config.stash[session_key].judge)


@pytest.fixture(scope="session")
def llmeval_model_table() -> Mapping[str, Any]:
    """Override in your conftest.py: ``{model name: callable}``, what ``llmeval_generate`` calls for each model."""
    return {}


@pytest.fixture
def llmeval_model(request: pytest.FixtureRequest) -> str:
    """The model under test: tests using it run once per model of ``--llmeval-models`` / ``llmeval_models``."""
    raise pytest.UsageError(
        f"{request.node.nodeid}: the llmeval_model fixture needs models under test: pass --llmeval-models=a,b "
        f"or set llmeval_models in the ini file"
    )


@pytest.fixture
def llmeval_generate(llmeval_model: str, llmeval_model_table: Mapping[str, Any]) -> Any:
    """The callable of the model under test, from your ``llmeval_model_table`` fixture."""
    if not isinstance(llmeval_model_table, Mapping) or llmeval_model not in llmeval_model_table:
        known = ", ".join(sorted(llmeval_model_table)) if isinstance(llmeval_model_table, Mapping) else "none"
        raise pytest.UsageError(
            f"llmeval_generate: no callable for model {llmeval_model!r} in the llmeval_model_table fixture (models "
            "there: "
            f"{known or 'none'}); define llmeval_model_table in conftest.py returning {{model name: callable}}"
        )
    return llmeval_model_table[llmeval_model]


@pytest.fixture
def llmeval_draw() -> int:
    """Which draw of a repeated test this run is (1 to N; 1 for a test that is not repeated)."""
    return 1


@pytest.fixture
def llmeval_perturbation() -> Any:
    """The perturbation this run of the test is under (``None``: the original input)."""
    return None


@pytest.fixture
def llmeval_perturb(request: pytest.FixtureRequest, llmeval_perturbation: Any) -> Any:
    """``llmeval_perturb(text)``: the text under this run's perturbation (unchanged for the original).

    Seeded from the marker's ``seed``, the perturbation and the text, so every run and
    machine perturbs alike. ``paraphrase`` without a judge skips the test.
    """
    from .run.perturb import Perturber

    marker = request.node.get_closest_marker("llmeval_perturb")
    seed = marker.kwargs.get("seed", 0) if marker is not None else 0
    return Perturber(llmeval_perturbation, seed)
