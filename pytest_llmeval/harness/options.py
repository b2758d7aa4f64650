"""Every setting of the plugin, declared once: command-line option, ini key, environment variable.

Each `Option` has the three names, a parser (text -> value, raising ``ValueError``
that says what was expected), a default and its help. `add_options()` registers them
with pytest; `load_settings()` reads them into one frozen `Settings`: the
command line wins over the environment, which wins over the ini file, then the default.
An unusable value stops the run with a usage error naming where it came from.
`options_table()` is the options table of docs/options.md, so the documentation cannot drift.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ..models.config import DEFAULT_EMBEDDING_MODEL, parse_verifier
from .values import (choice_parser, device_setting, floor_parser, number_parser, optional_number_parser, parse_band, parse_boolean,
                     parse_defer, parse_floors, parse_judge_for, parse_kinds, parse_names, parse_price, parse_text, parse_url,
                     precision_setting, repeat_setting)

__all__ = ["Option", "OPTIONS", "Settings", "add_options", "load_settings", "options_table", "parse_threshold"]

if TYPE_CHECKING:
    from ..report.gate import Floor


def parse_threshold(text: str) -> tuple[str, str, float]:
    """Parse ``EVALUATOR.METRIC=NUMBER``.

    >>> parse_threshold("rouge.rougeL=0.4")
    ('rouge', 'rougeL', 0.4)
    """
    name, sep, value = str(text).partition("=")
    evaluator, dot, metric = name.strip().partition(".")
    try:
        number: float | None = float(value)
    except ValueError:
        number = None
    if not sep or not dot or not evaluator or not metric or number is None:
        raise ValueError(f"invalid threshold {text!r}: expected EVALUATOR.METRIC=NUMBER, e.g. rouge.rougeL=0.5")
    return evaluator, metric.strip(), number


@dataclass(frozen=True)
class Option:
    """One setting. ``many``: repeatable on the command line, one per line in the ini file."""

    key: str  # the Settings field; the ini key is llmeval_<key>, the variable LLMEVAL_<KEY>
    parse: Callable[[str], Any]
    default: str
    help: str
    metavar: str | None = None
    flag: str | None = None  # a store_true command-line flag, instead of one taking a value
    many: bool = False
    short: str = ""  # its --help line, for an option the command line has (the help text is the documentation's)

    @property
    def cli(self) -> bool:
        """Whether the command line has it (`COMMAND_LINE`); every setting is a ``[tool.llmeval]`` key and an ini key."""
        return self.key in COMMAND_LINE

    @property
    def place(self) -> str:
        """Its key in ``[tool.llmeval]``: ``judge.retries``, ``gate.alpha``, ``unverified``."""
        from .table import place

        return place(self.key)

    @property
    def ini(self) -> str:
        return f"llmeval_{self.key}"

    @property
    def env(self) -> str:
        return f"LLMEVAL_{self.key.upper()}"

    @property
    def option(self) -> str:
        return self.flag or "--llmeval-" + self.key.replace("_", "-")


JSON_MODES = ("auto", "schema", "object", "none")

#: The settings the command line takes: what changes from run to run. The others are ``[tool.llmeval]`` keys.
COMMAND_LINE = frozenset({"report", "thresholds", "unverified", "fail_on", "device", "cache_dir", "models", "baseline",
                          "fail_on_regression", "gate", "defer", "record_mode", "repeat", "calibrate", "verifier", "detector",
                          "judge_model", "offline"})


#: The default of an option not given on the command line (``None`` can be a given value). A string, so
#: that xdist can send the options to its workers; argparse passes it through the option's type unchanged.
_UNSET = "\x00llmeval: not given"


# Help texts: capitalised, no trailing period (as pytest and xdist write them).
OPTIONS: tuple[Option, ...] = (
    Option("report", parse_text, "", "Write llmeval reports to PATH: a .json, .md or .html file, or a directory that receives "
           "report.json, report.md, report.html and comment.md, a pull-request comment (repeatable)", "PATH", many=True,
           short="Write reports: a .json/.md/.html file or a folder (repeatable)"),
    Option("thresholds", parse_threshold, "", "Override a threshold, as EVALUATOR.METRIC=NUMBER, e.g. rouge.rougeL=0.4 "
           "(repeatable; the command line wins over the ini file, a threshold passed in the test wins over both)",
           "EVALUATOR.METRIC=NUMBER", flag="--llmeval-threshold", many=True,
           short="Override a threshold, e.g. rouge.rougeL=0.4 (repeatable)"),
    Option("unverified", choice_parser("pass", "fail", "skip"), "pass",
           "What a check's unverified verdict does to its test (an answer with no evidence against it that the check "
           "could not confirm offline): pass, fail or skip; a check's unverified= argument wins", "ACTION",
           short="What an unverified verdict does: pass, fail or skip"),
    Option("fail_on", parse_kinds, "", "Evidence kinds that fail a check with a fail_on parameter (groundedness), comma-separated "
           "(number, changed_number, name, negation, role_swap ...), 'all' or 'none'; the other kinds only warn and leave the "
           "answer unverified (default: the kinds measured precise enough on support-labeled data, docs/quality.md; "
           "a check's fail_on= wins)",
           "KINDS",
           short="Evidence kinds that fail (groundedness): KINDS, all or none"),
    Option("summary", parse_boolean, "true", "Show the llmeval leaderboard in the terminal summary", "BOOL"),
    Option("step_summary", choice_parser("auto", "on", "off"), "auto",
           "Append the Markdown summary to the file $GITHUB_STEP_SUMMARY names: auto (under GitHub Actions), on or off",
           "WHEN"),
    Option("device", device_setting, "auto", "Device for models: auto (cuda, then mps, then cpu), cpu, mps, cuda or cuda:N", "DEVICE",
           short="Model device: auto, cpu, mps, cuda or cuda:N"),
    Option("precision", precision_setting, "auto", "Model precision: auto (fp16 on CUDA, else fp32), fp32 or fp16", "PRECISION"),
    Option("cache_dir", parse_text, ".llmeval_cache", "Folder of the embedding cache in the rootdir, or 'off'", "DIR",
           short="Embedding and parse cache folder, or off"),
    Option("embedding_model", parse_text, DEFAULT_EMBEDDING_MODEL,
           "Embedding model: a sentence-transformers name or local folder (the default is embedded); with "
           "llmeval_embedding_url, the model name sent to the server", "MODEL"),
    Option("embedding_url", parse_url, "", "Base URL of an OpenAI-compatible embeddings endpoint (vLLM, text-embeddings-inference, "
           "Ollama, llama.cpp, OpenAI) that every worker and shard asks instead of loading a model: http://HOST:PORT/v1 "
           "(a URL without a path means /v1)", "URL"),
    Option("embedding_api_key_env", parse_text, "OPENAI_API_KEY",
           "Name of the environment variable holding the embedding server's API key (sent only when set)", "NAME"),
    Option("models", parse_names, "", "Models under test, comma-separated: tests using the llmeval_model fixture run once per model",
           "A,B",
           short="Models under test (llmeval_model fixture), comma-separated"),
    Option("flip_delta", optional_number_parser("a non-negative number, e.g. 0.2"), "",
           "Also count a perturbation flip when the score moves more than this, pass or fail alike (default: off)", "DELTA"),
    Option("baseline", parse_text, "", "Compare this run with a JSON report of an earlier run: a paired test per leaderboard row "
           "(regressed, improved, unchanged or inconclusive) in the summary and reports", "REPORT.json",
           short="Compare with an earlier run's JSON report"),
    Option("baseline_tolerance", number_parser("a number from 0 to 1", low=0.0, high=1.0), "0.05",
           "The equivalence margin, on the pass rate's or mean's scale: a leaderboard row whose difference's interval lies "
           "within +-DELTA is unchanged (a significant one-sided change is regressed or improved whatever its size)", "DELTA"),
    Option("fail_on_regression", parse_boolean, "false", "Fail the run when a leaderboard row regressed significantly against the "
           "baseline (paired test per row, Holm-corrected at gate.alpha)", flag="--llmeval-fail-on-regression",
           short="Fail the run when a row regressed against the baseline"),
    Option("alpha", number_parser("a number between 0 and 1, e.g. 0.05", low=1e-9, high=0.5), "0.05",
           "Significance level of the baseline comparison (over all rows) and level of every interval (0.05: 95 percent intervals)",
           "ALPHA"),
    Option("max_unverified", number_parser("a share from 0 to 1, e.g. 0.5", low=0.0, high=1.0), "1",
           "The share of a leaderboard row's results that may be unverified before the run's gate is indeterminate "
           "(measured too little to gate on); 1 switches it off", "SHARE"),
    Option("max_errors", number_parser("a share from 0 to 1, e.g. 0.05", low=0.0, high=1.0), "0",
           "The share of a row's results that may have measured nothing (the check or its judge failed, an unusable judge "
           "reply, a judge that could not decide an escalated answer) before the run's gate is indeterminate", "SHARE"),
    Option("indeterminate", choice_parser("fail", "pass"), "fail",
           "What an indeterminate gate does to the run: fail (exit 1; a judge outage is never a green run) or pass "
           "(reported only)", "ACTION"),
    Option("min_pass_rate", floor_parser("pass rate", "gate.min_pass_rate"), "",
           "A floor on a row's pass rate, as CHECK[:MODEL]=RATE (repeatable): the run fails when the row's whole interval "
           "is below it; inconclusive rows are reported with the cases that would decide them", "CHECK[:MODEL]=RATE",
           many=True),
    Option("min_mean", floor_parser("mean", "gate.min_mean"), "",
           "A floor on a row's primary mean, as CHECK[:MODEL]=VALUE (repeatable), judged like gate.min_pass_rate",
           "CHECK[:MODEL]=VALUE", many=True),
    Option("gate", choice_parser("per-test", "aggregate"), "per-test",
           "per-test: a failing check fails its test; aggregate: a failing check is recorded and its test passes, and the run "
           "fails only on a significant regression against the baseline (tests that raise still fail)", "MODE",
           short="per-test (a failing check fails its test) or aggregate"),
    Option("defer", parse_defer, "auto,100,10", "auto: a test that needs no verdict at once (--llmeval-gate=aggregate, "
           "@pytest.mark.llmeval(defer=True), the llmeval_deferred fixture) queues its checks, scored in batches across tests "
           "every TESTS tests or SECONDS seconds and at the end, its report held until then; off: every check scores where "
           "it is called", "MODE[,TESTS,SECONDS]",
           short="Score queued checks in batches: auto or off[,TESTS,SECONDS]"),
    Option("record_mode", choice_parser("none", "once", "new_episodes", "all"), "none",
           "Cassettes of a test's own model calls (@pytest.mark.llmeval(record=True), the llmeval_cassette fixture): none "
           "(replay only; a request not recorded fails the test), once, new_episodes or all (record everything again)", "MODE",
           short="Cassettes of model calls: none, once, new_episodes or all"),
    Option("record_secrets", parse_text, "", "An environment variable whose value never reaches a cassette (repeatable; the API "
           "key variables are always redacted)", "NAME", many=True),
    Option("repeat", repeat_setting, "1",
           "Run every test N times as N draws of one case (a test's @pytest.mark.llmeval(repeat=N) wins); reports group the "
           "draws under the case, with per-case pass rates, pass@k, pass^k and flaky cases. auto[:MAX] (MAX 5): draw a case "
           "again only while its K-of-MAX verdict is undecided (K: min_pass, else a majority)", "N|auto[:MAX]",
           short="Run every test N times, or auto[:MAX] until decided"),
    Option("min_pass", number_parser("an integer from 1 to 1000", 1, 1000, int, none=""), "",
           "With repeats: a case passes when at least K of its draws pass (a test's @pytest.mark.llmeval(min_pass=K) wins); "
           "its draws record their checks without failing, and one draw's test reports the case's failure", "K"),
    Option("calibrate", parse_text, "", "Calibration run: run each labeled row of this file (the dataset format of cases(), plus "
           "'label': good or bad, and 'check') through its check with the configuration in force, instead of the tests; "
           "report agreement and Cohen's kappa per check and tier, and write the calibration record", "LABELS.jsonl",
           short="Run labeled rows instead of the tests and write calibration"),
    Option("calibrate_check", parse_text, "", "The check every row of the calibration labels file calibrates (a row's 'check' wins)",
           "NAME"),
    Option("calibration_file", parse_text, "llmeval-calibration.json",
           "The calibration record, written by a calibration run and read by calibration.required (meant to be "
           "committed)", "PATH"),
    Option("require_calibration", parse_boolean, "false",
           "A check without a calibration of its signature at the floors (calibration.floors) is diagnostic: its "
           "verdicts are recorded and shown and fail neither a test nor the gate", "BOOL"),
    Option("calibration_floors", parse_floors, "min_kappa=0.6,min_rows=50",
           "What a calibration must show before its check may gate: min_kappa, min_rows and min_precision, comma-separated",
           "NAME=VALUE,..."),
    Option("calibration_precision", number_parser("a share above 0 and at most 1, e.g. 0.9", low=1e-9, high=1.0), "0.9",
           "The failure precision a calibration's threshold suggestion aims at (printed, never applied)", "SHARE"),
    Option("verifier", parse_verifier, "off", "The plugin's claim verifier decides the unverified answers of checks that read an answer "
           "against its context (groundedness), before a detector or judge: on (the shipped one), off, or a retrained one's folder",
           "on|off|FOLDER",
           short="Claim verifier tier: on, off or a retrained folder"),
    Option("detector", parse_text, "", "A local model that decides the unverified answers of checks that read an answer against its "
           "context (groundedness) before any judge: FAMILY:MODEL, FAMILY token (LettuceDetect), sequence (HHEM, MiniCheck) "
           "or nli, MODEL a hub name or local folder (a call's detector= wins)", "FAMILY:MODEL",
           short="Local detector tier: FAMILY:MODEL (HHEM, MiniCheck, nli...)"),
    Option("detector_band", parse_band, "0.5,0.5", "The detector's support below LOW fails an answer, at or above HIGH passes it; "
           "between, it stays unverified for the judge", "LOW,HIGH"),
    Option("judge_model", parse_text, "", "Judge model on an OpenAI-compatible endpoint (judge checks are skipped without one)", "MODEL",
           short="Judge model on an OpenAI-compatible endpoint"),
    Option("judge_for", parse_judge_for, "", "Judge one check with another model, as EVALUATOR=MODEL (repeatable; same endpoint, "
           "cache and settings; the model is in that check's signature)", "EVALUATOR=MODEL", many=True),
    Option("judge_base_url", parse_text, "", "Base URL of the judge's OpenAI-compatible endpoint (default: the OpenAI API)", "URL"),
    Option("judge_api_key_env", parse_text, "OPENAI_API_KEY", "Name of the environment variable holding the judge's API key", "NAME"),
    Option("judge_cache", choice_parser("record", "replay", "off"), "record",
           "Judge verdict cache: record (replay what is recorded, ask and record the rest), replay (a missing verdict fails "
           "the check), off", "MODE"),
    Option("judge_dir", parse_text, "llmeval_judge", "Folder of the recorded judge verdicts, meant to be committed", "DIR"),
    Option("judge_price", parse_price, "0,0", "Judge price per million tokens, PROMPT,COMPLETION (e.g. 0.15,0.60), for the cost totals",
           "PROMPT,COMPLETION"),
    Option("judge_json_mode", choice_parser(*JSON_MODES), "auto",
           "Judge structured output: auto (JSON schema, falling back to JSON object, then free text), schema, object, none",
           "MODE"),
    Option("judge_repeats", number_parser("an integer from 1 to 100", 1, 100, int), "1",
           "Judge each judge check N times (each repeat recorded) and score the mean, so a flickering judge shows; use with a "
           "temperature above 0", "N"),
    Option("judge_temperature", number_parser("a number from 0 to 2", 0.0, 2.0), "0",
           "Judge sampling temperature (part of every verdict's key)", "T"),
    Option("judge_seed", number_parser("an integer, or 'none' to send no seed", kind=int, none="none"), "0",
           "Judge sampling seed, or none (part of every verdict's key)", "SEED"),
    Option("judge_max_tokens", number_parser("a positive integer", 1, None, int), "1024",
           "Judge reply token limit (part of every verdict's key)", "N"),
    Option("judge_max_concurrency", number_parser("an integer from 1 to 256", 1, 256, int), "4",
           "Judge requests in flight at once, per process", "N"),
    Option("judge_timeout", number_parser("a positive number of seconds", 0.001), "60",
           "Seconds before a judge request times out and is retried", "SECONDS"),
    Option("judge_retries", number_parser("an integer from 0 to 10", 0, 10, int), "3",
           "Times a judge request is asked again after a timeout, a lost connection, 408, 409, 429, 5xx or an unreadable "
           "reply, while judge.budget lasts", "N"),
    Option("judge_budget", number_parser("a positive number of seconds", 0.001), "120",
           "Seconds one judge request may take, its retries and their waits included (never less than one "
           "judge.timeout); a judge that times out 3 requests in a row is not asked again this run", "SECONDS"),
    Option("judge_prefetch", parse_boolean, "false",
           "In tests parametrized from cases(...), ask the next tests' judge verdicts together in the background when every "
           "field a judge check reads comes from the case (they are cached for those tests)", "BOOL"),
    Option("offline", parse_boolean, "false", "Never call a judge: replay recorded verdicts and skip judge checks that need a new one",
           flag="--llmeval-offline",
           short="Never call a judge: replay recorded verdicts"),
)


@dataclass(frozen=True)
class Settings:
    """The settings in force for this run (see `OPTIONS`)."""

    report: tuple[str, ...] = ()
    thresholds: tuple[tuple[str, str, float], ...] = ()
    unverified: str = "pass"
    fail_on: tuple[str, ...] = ()
    summary: bool = True
    step_summary: str = "auto"
    device: str = "auto"
    precision: str = "auto"
    cache_dir: str = ".llmeval_cache"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    embedding_url: str = ""
    embedding_api_key_env: str = "OPENAI_API_KEY"
    models: tuple[str, ...] = ()
    flip_delta: float | None = None
    baseline: str = ""
    baseline_tolerance: float = 0.05
    fail_on_regression: bool = False
    alpha: float = 0.05
    max_unverified: float = 1.0
    max_errors: float = 0.0
    indeterminate: str = "fail"
    min_pass_rate: tuple[Floor, ...] = ()
    min_mean: tuple[Floor, ...] = ()
    gate: str = "per-test"
    defer: tuple[str, int, float] = ("auto", 100, 10.0)  # mode, tests a batch, seconds a batch
    record_mode: str = "none"
    record_secrets: tuple[str, ...] = ()
    repeat: int | str = 1  # draws, or "auto:MAX"
    min_pass: int | None = None
    verifier: str = ""  # "": off; "on": the shipped verifier; else a folder
    detector: str = ""
    detector_band: tuple[float, float] = (0.5, 0.5)
    calibrate: str = ""
    calibrate_check: str = ""
    calibration_file: str = "llmeval-calibration.json"
    require_calibration: bool = False
    calibration_floors: tuple[tuple[str, float], ...] = ()
    calibration_precision: float = 0.9
    judge_model: str = ""
    judge_for: tuple[tuple[str, str], ...] = ()
    judge_base_url: str = ""
    judge_api_key_env: str = "OPENAI_API_KEY"
    judge_cache: str = "record"
    judge_dir: str = "llmeval_judge"
    judge_price: tuple[float, float] = (0.0, 0.0)
    judge_json_mode: str = "auto"
    judge_repeats: int = 1
    judge_temperature: float = 0.0
    judge_seed: int | None = 0
    judge_max_tokens: int = 1024
    judge_max_concurrency: int = 4
    judge_timeout: float = 60.0
    judge_retries: int = 3
    judge_budget: float = 120.0
    judge_prefetch: bool = False
    offline: bool = False
    sources: dict[str, str] = field(default_factory=dict, compare=False)  # where each value came from

    def run_params(self, params: Mapping[str, Any], declared: Callable[[], Mapping[str, Any]]) -> Mapping[str, Any]:
        """A check's ``params`` with the run's ``--llmeval-fail-on`` when the check has a ``fail_on`` parameter
        (``declared``: its defaults) and the test gave none; a check's own ``fail_on=`` wins."""
        if self.fail_on and params.get("fail_on") is None and "fail_on" in declared():
            return {**params, "fail_on": ",".join(self.fail_on)}
        return params


def _argparse_type(option: Option) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if text == _UNSET:
            return _UNSET
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = option.key
    return parse


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("llmeval", "LLM evaluation (pytest-llm-verdict); every setting is also a [tool.llmeval] key")
    for option in OPTIONS:
        dest = f"llmeval_{option.key}"
        if option.cli and option.flag and option.parse is parse_boolean:
            group.addoption(option.flag, dest=dest, action="store_true", default=None, help=option.short)
        elif option.cli and option.many:
            group.addoption(option.option, dest=dest, action="append", default=[], metavar=option.metavar,
                            type=_argparse_type(option), help=option.short)
        elif option.cli:
            # not None: a value given on the command line may parse to None ("-o llmeval_judge_seed=none")
            group.addoption(option.option, dest=dest, metavar=option.metavar, type=_argparse_type(option), default=_UNSET,
                            help=option.short)
        if option.many:
            parser.addini(option.ini, f"{option.help} (one per line)", type="linelist", default=[])
        else:
            parser.addini(option.ini, f"{option.help} (default: {option.default or 'none'})", type="string", default=option.default)
    group.addoption("--llmeval-evaluators", dest="llmeval_evaluators", action="store_true", default=False,
                    help="Show the registered checks and exit")
    group.addoption("--llmeval-merge", dest="llmeval_merge", nargs="+", default=[], metavar="REPORT.json",
                    help="Run no test: merge CI shards' JSON reports into one run's")


def load_settings(config: pytest.Config, environ: dict[str, str] | None = None) -> Settings:
    """The settings from the command line, then the environment, then ``[tool.llmeval]`` or the ini file (a setting in
    both is an error), then the defaults.

    A repeatable setting takes its values from the first of those that has any, except
    ``thresholds``, which are merged: the config file's, then the environment's, then the
    command line's (a later one for the same metric wins).
    """
    from .table import read_table, table_texts

    environ = dict(os.environ) if environ is None else environ
    table, path = read_table(config)
    written = table_texts(table, [o.key for o in OPTIONS], [o.key for o in OPTIONS if o.many], path)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for option in OPTIONS:
        given = config.getoption(f"llmeval_{option.key}", _UNSET) if option.cli else _UNSET
        if given is None and option.flag:
            given = _UNSET  # a flag not given
        ini = config.getini(option.ini)
        in_ini = bool(ini) if option.many else ini != option.default  # the ini file (or -o) sets it
        layers: list[tuple[str, Any]] = []  # (source, value), lowest priority first
        if option.key in written:
            if in_ini:
                raise pytest.UsageError(f"llmeval: {written[option.key][1]} is also set as {option.ini} in the ini file "
                                        "(or -o); keep one")
            text, where = written[option.key]
            parsed = [_parsed(option, t, where) for t in text] if isinstance(text, list) else _parsed(option, text, where)
            layers.append(("config file", tuple(parsed) if isinstance(parsed, list) else parsed))
        elif in_ini:
            where = f"{option.ini} in the ini file (or -o)"
            parsed = tuple(_parsed(option, str(line), where) for line in ini) if option.many else _parsed(option, str(ini), where)
            layers.append(("config file", parsed))
        if option.env in environ:
            text, where = environ[option.env], f"{option.env} in the environment"
            if option.many:
                layers.append(("environment", tuple(_parsed(option, t, where) for t in text.replace("\n", ",").split(",") if t.strip())))
            else:
                layers.append(("environment", _parsed(option, text, where)))
        if option.many:
            if given and given is not _UNSET:
                layers.append(("command line", tuple(given)))
        elif given is not _UNSET:
            layers.append(("command line", given))  # even a falsy value (False, 0, None) given on the command line
        if not layers:
            values[option.key] = tuple() if option.many else option.parse(option.default)
            sources[option.key] = "default"
        elif option.key == "thresholds":
            values[option.key] = tuple(t for _, value in layers for t in value)
            sources[option.key] = " + ".join(source for source, _ in layers)
        else:
            sources[option.key], values[option.key] = layers[-1]
    return Settings(**values, sources=sources)


def _parsed(option: Option, text: str, where: str) -> Any:
    try:
        return option.parse(text)
    except ValueError as exc:
        raise pytest.UsageError(f"{where}: {exc}") from None


def options_table() -> list[str]:
    """The options table of docs/options.md (Markdown lines), from `OPTIONS`: the command-line option where the command
    line has one, the ``[tool.llmeval]`` key, the ini key and the environment variable."""
    lines = ["| `[tool.llmeval]` key | command line | ini key | environment | default | meaning |", "|---|---|---|---|---|---|"]
    for option in OPTIONS:
        shown = (f"`{option.option}`" if option.flag else f"`{option.option}={option.metavar}`") if option.cli else ""
        default = f"`{option.default}`" if option.default else ""
        lines.append(f"| `{option.place}` | {shown} | `{option.ini}` | `{option.env}` | {default} | {option.help} |")
    lines.append("| | `--llmeval-evaluators` | | | | Show the registered evaluators (checks) and exit |")
    lines.append("| | `--llmeval-merge A.json B.json ...` | | | | Run no test: merge CI shards' JSON reports (files, or folders "
                 "holding them) into one run's reports |")
    return lines


def describe(options: Sequence[Option] = OPTIONS) -> dict[str, Option]:
    """The options by Settings field name."""
    return {option.key: option for option in options}
