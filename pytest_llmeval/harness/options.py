"""Loading the plugin's settings (command-line option, ini key, environment variable, ``[tool.llmeval]`` key).

`add_options()` registers every option of `OPTIONS` with pytest; `load_settings()` reads them into one frozen
`Settings`: the command line wins over the environment, which wins over the ini file, then the default. An unusable
value stops the run with a usage error naming where it came from. `options_table()` is the options table of
docs/options.md, so the documentation cannot drift.

What one setting is (`Option`) lives in `pytest_llmeval.harness.option`, the settings themselves (`OPTIONS`) in
`pytest_llmeval.harness.option_table`, their parsers in `pytest_llmeval.harness.values`; this module re-exports
`Option`, `OPTIONS` and `parse_threshold`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ..models.config import DEFAULT_EMBEDDING_MODEL
from .option import Option
from .option_table import OPTIONS
from .values import parse_boolean, parse_threshold

__all__ = ["Option", "OPTIONS", "Settings", "add_options", "load_settings", "options_table", "parse_threshold"]

if TYPE_CHECKING:
    from ..report.gate import Floor


#: The default of an option not given on the command line (``None`` can be a given value). A string, so
#: that xdist can send the options to its workers; argparse passes it through the option's type unchanged.
_UNSET = "\x00llmeval: not given"


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
    save: bool = False
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
    judge_prices: tuple[tuple[str, tuple[float, float]], ...] = ()
    judge_spend_limit: tuple[float, str] | None = None
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
    group = parser.getgroup(
        "llmeval", "LLM evaluation (pytest-llm-verdict); every setting is also a [tool.llmeval] key"
    )
    for option in OPTIONS:
        dest = f"llmeval_{option.key}"
        if option.cli and option.flag and option.parse is parse_boolean:
            group.addoption(option.flag, dest=dest, action="store_true", default=None, help=option.short)
        elif option.cli and option.many:
            group.addoption(
                option.option,
                dest=dest,
                action="append",
                default=[],
                metavar=option.metavar,
                type=_argparse_type(option),
                help=option.short,
            )
        elif option.cli:
            # not None: a value given on the command line may parse to None ("-o llmeval_judge_seed=none")
            group.addoption(
                option.option,
                dest=dest,
                metavar=option.metavar,
                type=_argparse_type(option),
                default=_UNSET,
                help=option.short,
            )
        if option.many:
            parser.addini(option.ini, f"{option.help} (one per line)", type="linelist", default=[])
        else:
            parser.addini(
                option.ini,
                f"{option.help} (default: {option.default or 'none'})",
                type="string",
                default=option.default,
            )
    group.addoption(
        "--llmeval-evaluators",
        dest="llmeval_evaluators",
        action="store_true",
        default=False,
        help="Show the registered checks and exit",
    )
    group.addoption(
        "--llmeval-merge",
        dest="llmeval_merge",
        nargs="+",
        default=[],
        metavar="REPORT.json",
        help="Run no test: merge CI shards' JSON reports into one run's",
    )


def load_settings(config: pytest.Config, environ: dict[str, str] | None = None) -> Settings:
    """The settings from the command line, then the environment, then ``[tool.llmeval]`` or the ini file (a setting in
    both is an error), then the defaults.

    A repeatable setting takes its values from the first of those that has any, except
    ``thresholds``, which are merged: the config file's, then the environment's, then the
    command line's (a later one for the same metric wins).
    """
    from .table import read_table, table_texts

    environ = dict(os.environ) if environ is None else environ
    stray = [o for o in OPTIONS if not o.environ and o.env in environ]
    if stray:
        o = stray[0]
        section, _, key = o.place.rpartition(".")
        where = f"{key} under [tool.llmeval.{section}]" if section else f"{key} in [tool.llmeval]"
        raise pytest.UsageError(
            f"llmeval: {o.env} is set in the environment, but only secrets' settings and CI overrides are read from "
            f"it; set {where} in pyproject.toml (or -o {o.ini}=... for one run)"
        )
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
                raise pytest.UsageError(
                    f"llmeval: {written[option.key][1]} is also set as {option.ini} in the ini file (or -o); keep one"
                )
            text, where = written[option.key]
            parsed = (
                [_parsed(option, t, where) for t in text] if isinstance(text, list) else _parsed(option, text, where)
            )
            layers.append(("config file", tuple(parsed) if isinstance(parsed, list) else parsed))
        elif in_ini:
            where = f"{option.ini} in the ini file (or -o)"
            parsed = (
                tuple(_parsed(option, str(line), where) for line in ini)
                if option.many
                else _parsed(option, str(ini), where)
            )
            layers.append(("config file", parsed))
        if option.environ and option.env in environ:
            text, where = environ[option.env], f"{option.env} in the environment"
            if option.many:
                layers.append(
                    (
                        "environment",
                        tuple(_parsed(option, t, where) for t in text.replace("\n", ",").split(",") if t.strip()),
                    )
                )
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
    lines = [
        "| `[tool.llmeval]` key | command line | ini key | environment | default | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for option in OPTIONS:
        shown = (f"`{option.option}`" if option.flag else f"`{option.option}={option.metavar}`") if option.cli else ""
        default = f"`{option.default}`" if option.default else ""
        env = f"`{option.env}`" if option.environ else ""
        lines.append(f"| `{option.place}` | {shown} | `{option.ini}` | {env} | {default} | {option.help} |")
    lines.append("| | `--llmeval-evaluators` | | | | Show the registered evaluators (checks) and exit |")
    lines.append(
        "| | `--llmeval-merge A.json B.json ...` | | | | Run no test: merge CI shards' JSON reports (files, or folders "
        "holding them) into one run's reports |"
    )
    return lines


def describe(options: Sequence[Option] = OPTIONS) -> dict[str, Option]:
    """The options by Settings field name."""
    return {option.key: option for option in options}
