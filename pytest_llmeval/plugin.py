"""The pytest plugin (entry point ``pytest11: llmeval``): options, marker, fixture, hooks.

Imports only the standard library, pytest and this package's light modules; every
evaluator and reporter is imported when first used.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

import pytest

from .models import DEFAULT_EMBEDDING_MODEL, ModelCache, parse_device, parse_precision
from .recording import TestContext
from .session import EvalSession, parse_threshold, session_key

# Help texts: capitalised, no trailing period (as pytest and xdist write them).
REPORT_HELP = (
    "Write llmeval reports to PATH: a .json, .md or .html file, or a directory "
    "that receives report.json, report.md and report.html (repeatable)"
)
THRESHOLD_HELP = (
    "Override a threshold, as EVALUATOR.METRIC=NUMBER, e.g. rouge.rougeL=0.4 "
    "(repeatable; wins over llmeval_thresholds, loses to a threshold passed in the test)"
)
THRESHOLDS_INI_HELP = "Threshold overrides, one EVALUATOR.METRIC=NUMBER per line"
REPORT_INI_HELP = "Report paths written when --llmeval-report is not given, one per line"
SUMMARY_HELP = "Leave out the llmeval leaderboard from the terminal summary"
DEVICE_HELP = "Device for models: auto (cuda, then mps, then cpu), cpu, mps, cuda or cuda:N (default: auto)"
PRECISION_HELP = "Model precision: auto (fp16 on CUDA, else fp32), fp32 or fp16 (default: auto)"
CACHE_DIR_HELP = "Folder of the embedding cache, or 'off' (default: .llmeval_cache in the rootdir)"
EMBEDDING_MODEL_HELP = f"Embedding model: a sentence-transformers name or local folder (default: {DEFAULT_EMBEDDING_MODEL}, embedded)"
JUDGE_MODEL_HELP = "Judge model on an OpenAI-compatible endpoint (judge checks are skipped without one)"
JUDGE_URL_HELP = "Base URL of the judge's OpenAI-compatible endpoint (default: the OpenAI API)"
JUDGE_KEY_ENV_HELP = "Name of the environment variable holding the judge's API key (default: OPENAI_API_KEY)"
JUDGE_CACHE_HELP = "Judge verdict cache: record (default: replay what is recorded, ask and record the rest), replay (a missing verdict fails the check), off"
JUDGE_DIR_HELP = "Folder of the recorded judge verdicts, meant to be committed (default: llmeval_judge)"
JUDGE_PRICE_HELP = "Judge price per million tokens, PROMPT,COMPLETION (e.g. 0.15,0.60), for the cost totals (default: 0,0)"
JUDGE_JSON_HELP = "Judge structured output: auto (JSON schema, falling back to JSON object, then free text), schema, object, none"
JUDGE_REPEATS_HELP = ("Judge each judge check N times (each repeat recorded) and score the mean, so a flickering judge "
                      "shows; use with a temperature above 0 (default: 1)")
BASELINE_HELP = "Compare this run with a JSON report of an earlier run: regressions and improvements in the summary and reports"
BASELINE_TOLERANCE_HELP = "How far a leaderboard mean may move before it counts as a change against the baseline (default: 0)"
FAIL_ON_REGRESSION_HELP = "Fail the run when a check regressed against --llmeval-baseline"
OFFLINE_HELP = "Never call a judge: replay recorded verdicts and skip judge checks that need a new one"
MODELS_HELP = "Models under test, comma-separated: tests using the llmeval_model fixture run once per model"
FLIP_DELTA_HELP = "Also count a perturbation flip when the score moves more than this, pass or fail alike (default: off)"
PERTURB_MARKER_HELP = (
    "llmeval_perturb(*perturbations, seed=0): run the test on its original input and on each perturbation "
    "(names such as 'typos', 'uppercase', or pytest_llmeval.perturbation(name, **params)); the test perturbs its "
    "input with the llmeval_perturb fixture"
)
MARKER_HELP = (
    "llmeval(model=None, case=None, **tags): tag the test's llmeval checks with the model under "
    "test, the case id and free tags such as perturbation='typos'"
)

_context_key = pytest.StashKey[TestContext]()
_marker_error_key = pytest.StashKey[Exception]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("llmeval", "LLM evaluation (pytest-llmeval)")
    group.addoption("--llmeval-report", action="append", default=[], metavar="PATH", dest="llmeval_report", help=REPORT_HELP)
    group.addoption(
        "--llmeval-threshold",
        action="append",
        default=[],
        metavar="EVALUATOR.METRIC=NUMBER",
        dest="llmeval_threshold",
        type=parse_threshold,
        help=THRESHOLD_HELP,
    )
    group.addoption(
        "--llmeval-no-summary", action="store_false", dest="llmeval_summary", default=True, help=SUMMARY_HELP
    )
    group.addoption("--llmeval-device", dest="llmeval_device", type=parse_device, metavar="DEVICE", help=DEVICE_HELP)
    group.addoption("--llmeval-precision", dest="llmeval_precision", type=parse_precision, metavar="PRECISION", help=PRECISION_HELP)
    group.addoption("--llmeval-cache-dir", dest="llmeval_cache_dir", metavar="DIR", help=CACHE_DIR_HELP)
    group.addoption("--llmeval-embedding-model", dest="llmeval_embedding_model", metavar="MODEL", help=EMBEDDING_MODEL_HELP)
    group.addoption("--llmeval-judge-model", dest="llmeval_judge_model", metavar="MODEL", help=JUDGE_MODEL_HELP)
    group.addoption("--llmeval-judge-base-url", dest="llmeval_judge_base_url", metavar="URL", help=JUDGE_URL_HELP)
    group.addoption("--llmeval-judge-cache", dest="llmeval_judge_cache", choices=("record", "replay", "off"), help=JUDGE_CACHE_HELP)
    group.addoption("--llmeval-judge-repeats", dest="llmeval_judge_repeats", metavar="N", help=JUDGE_REPEATS_HELP)
    group.addoption("--llmeval-judge-price", dest="llmeval_judge_price", metavar="PROMPT,COMPLETION", help=JUDGE_PRICE_HELP)
    group.addoption("--llmeval-models", dest="llmeval_models", metavar="A,B,C", help=MODELS_HELP)
    group.addoption("--llmeval-flip-delta", dest="llmeval_flip_delta", type=float, metavar="DELTA", help=FLIP_DELTA_HELP)
    group.addoption("--llmeval-baseline", dest="llmeval_baseline", metavar="REPORT.json", help=BASELINE_HELP)
    group.addoption("--llmeval-baseline-tolerance", dest="llmeval_baseline_tolerance", type=float, metavar="DELTA",
                    help=BASELINE_TOLERANCE_HELP)
    group.addoption("--llmeval-fail-on-regression", dest="llmeval_fail_on_regression", action="store_true", default=False,
                    help=FAIL_ON_REGRESSION_HELP)
    group.addoption("--llmeval-offline", dest="llmeval_offline", action="store_true", default=False, help=OFFLINE_HELP)
    parser.addini("llmeval_judge_model", JUDGE_MODEL_HELP, default="")
    parser.addini("llmeval_judge_base_url", JUDGE_URL_HELP, default="")
    parser.addini("llmeval_judge_api_key_env", JUDGE_KEY_ENV_HELP, default="OPENAI_API_KEY")
    parser.addini("llmeval_judge_cache", JUDGE_CACHE_HELP, default="record")
    parser.addini("llmeval_judge_dir", JUDGE_DIR_HELP, default="llmeval_judge")
    parser.addini("llmeval_judge_price", JUDGE_PRICE_HELP, default="0,0")
    parser.addini("llmeval_judge_json_mode", JUDGE_JSON_HELP, default="auto")
    parser.addini("llmeval_judge_repeats", JUDGE_REPEATS_HELP, default="1")
    parser.addini("llmeval_judge_temperature", "Judge sampling temperature (default: 0; part of every verdict's key)", default="0")
    parser.addini("llmeval_judge_seed", "Judge sampling seed, or none (default: 0; part of every verdict's key)", default="0")
    parser.addini("llmeval_judge_max_tokens", "Judge reply token limit (default: 1024; part of every verdict's key)", default="1024")
    parser.addini("llmeval_judge_max_concurrency", "Judge requests in flight at once, per process (default: 4)", default="4")
    parser.addini("llmeval_judge_timeout", "Seconds before a judge request times out and is retried (default: 60)", default="60")
    parser.addini("llmeval_models", MODELS_HELP, default="")
    parser.addini("llmeval_baseline", BASELINE_HELP, default="")
    parser.addini("llmeval_baseline_tolerance", BASELINE_TOLERANCE_HELP, default="0")
    parser.addini("llmeval_flip_delta", FLIP_DELTA_HELP, default="")
    parser.addini("llmeval_device", DEVICE_HELP, default="auto")
    parser.addini("llmeval_precision", PRECISION_HELP, default="auto")
    parser.addini("llmeval_cache_dir", CACHE_DIR_HELP, default=".llmeval_cache")
    parser.addini("llmeval_embedding_model", EMBEDDING_MODEL_HELP, default=DEFAULT_EMBEDDING_MODEL)
    parser.addini("llmeval_thresholds", THRESHOLDS_INI_HELP, type="linelist", default=[])
    parser.addini("llmeval_report", REPORT_INI_HELP, type="linelist", default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    config.addinivalue_line("markers", PERTURB_MARKER_HELP)
    session = EvalSession(config)
    config.stash[session_key] = session
    config.pluginmanager.register(session, "llmeval-session")
    config.hook.pytest_llmeval_register_evaluators(registry=session.registry)
    session.load_thresholds()
    session.judge_settings()
    session.load_baseline()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[session_key].check_thresholds()


def pytest_unconfigure(config: pytest.Config) -> None:
    eval_session = config.stash.get(session_key, None)
    if eval_session is not None:
        eval_session.mark_flips_in_junit()
        config.pluginmanager.unregister(eval_session)
        del config.stash[session_key]


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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    error = item.stash.get(_marker_error_key, None)
    if error is not None:
        raise error


@pytest.hookimpl(trylast=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per model under test (``llmeval_model``) and per perturbation (``@pytest.mark.llmeval_perturb``).

    Runs last, so the perturbation is the last part of the test id: ``test_x[q1-typos]``.
    """
    eval_session = metafunc.config.stash[session_key]
    if "llmeval_model" in metafunc.fixturenames:
        models = eval_session.models_under_test()
        if models:
            metafunc.parametrize("llmeval_model", models, ids=models, scope="function")
    marker = metafunc.definition.get_closest_marker("llmeval_perturb")
    if marker is None:
        return
    from .perturbators import parse_perturbations

    where = f"{metafunc.definition.nodeid}: @pytest.mark.llmeval_perturb"
    seed = marker.kwargs.get("seed", 0)
    unknown = sorted(set(marker.kwargs) - {"seed"})
    if unknown or isinstance(seed, bool) or not isinstance(seed, int):
        raise pytest.UsageError(f"{where} takes perturbations and seed=<int>; got {', '.join(unknown) or f'seed={seed!r}'}")
    try:
        perturbations = parse_perturbations(marker.args, where=where)
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    if not perturbations:
        raise pytest.UsageError(f"{where} needs at least one perturbation, e.g. llmeval_perturb('typos', 'uppercase')")
    if "llmeval_perturbation" not in metafunc.fixturenames:
        raise pytest.UsageError(f"{where}: the test must use the llmeval_perturb fixture to perturb its input")
    metafunc.parametrize("llmeval_perturbation", [None, *perturbations], ids=["original", *(p.id for p in perturbations)],
                         scope="function")


def pytest_report_header(config: pytest.Config) -> str | None:
    models = config.stash[session_key].models
    cache = models.cache_dir or "off"
    return (
        f"llmeval: device {models.device} (resolved when a model first loads), precision {models.precision}, "
        f"embedding model {models.embedding_model}, cache {cache}"
    )


@pytest.fixture(scope="session")
def llmeval_models(request: pytest.FixtureRequest) -> ModelCache:
    """This process's model cache: ``llmeval_models.warm(texts)`` encodes texts up front in one pass."""
    return request.config.stash[session_key].models


@pytest.fixture
def llmeval(request: pytest.FixtureRequest) -> TestContext:
    """The llmeval context of this test.

    Set ``llmeval.model`` / ``llmeval.case`` to tag the checks that follow, call
    ``llmeval.check(name, ...)`` for any registered evaluator, and read
    ``llmeval.results`` for what was recorded so far.
    """
    return request.node.stash[_context_key]


@pytest.fixture
def llmeval_deepeval_judge(request: pytest.FixtureRequest) -> Any:
    """The session's judge as a deepeval model, for ``GEval(..., model=llmeval_deepeval_judge)`` (needs deepeval).

    Its verdicts go through the llmeval verdict cache: recorded once, replayed in CI.
    """
    from .deepeval_bridge import judge_for_deepeval

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
            f"llmeval_generate: no callable for model {llmeval_model!r} in the llmeval_model_table fixture (models there: "
            f"{known or 'none'}); define llmeval_model_table in conftest.py returning {{model name: callable}}"
        )
    return llmeval_model_table[llmeval_model]


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
    from .perturbators import Perturber

    marker = request.node.get_closest_marker("llmeval_perturb")
    seed = marker.kwargs.get("seed", 0) if marker is not None else 0
    return Perturber(llmeval_perturbation, seed)
