"""What one setting of the plugin is: an `Option` (its Settings field, parser, default and help, and from them its
command-line option, ``[tool.llmeval]`` key, ini key and environment variable), and `COMMAND_LINE`, the settings the
command line takes. The settings themselves are declared in `pytest_llmeval.harness.option_table`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Option", "COMMAND_LINE", "ENVIRONMENT"]


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
        """Whether the command line has it (`COMMAND_LINE`); every setting is a ``[tool.llmeval]`` key and an ini
        key."""
        return self.key in COMMAND_LINE

    @property
    def place(self) -> str:
        """Its key in ``[tool.llmeval]``: ``judge.retries``, ``gate.alpha``, ``unverified``."""
        from .table import place

        return place(self.key)

    @property
    def environ(self) -> bool:
        """Whether an environment variable (`env`) sets it: only the settings in `ENVIRONMENT` are read from it."""
        return self.key in ENVIRONMENT

    @property
    def ini(self) -> str:
        return f"llmeval_{self.key}"

    @property
    def env(self) -> str:
        return f"LLMEVAL_{self.key.upper()}"

    @property
    def option(self) -> str:
        return self.flag or "--llmeval-" + self.key.replace("_", "-")


#: The settings the command line takes: what changes from run to run. The others are ``[tool.llmeval]`` keys.
COMMAND_LINE = frozenset(
    {
        "report",
        "thresholds",
        "unverified",
        "fail_on",
        "device",
        "cache_dir",
        "models",
        "baseline",
        "fail_on_regression",
        "gate",
        "defer",
        "record_mode",
        "repeat",
        "calibrate",
        "verifier",
        "detector",
        "judge_model",
        "offline",
    }
)

#: The settings an environment variable (``LLMEVAL_<KEY>``) sets: where a judge or embedding server is and which
#: variable holds its key, and what a CI job overrides without editing the configuration (reports, baseline, gate,
#: recording, cache, device, offline, what an unverified answer does, the judge's spend). The others are read from
#: ``[tool.llmeval]`` or the ini file (``-o llmeval_<key>=...`` for one run); a variable set for one of them is an
#: error, not a silent no-op.
ENVIRONMENT = frozenset(
    {
        "report",
        "unverified",
        "step_summary",
        "device",
        "cache_dir",
        "embedding_url",
        "embedding_api_key_env",
        "baseline",
        "save",
        "fail_on_regression",
        "gate",
        "record_mode",
        "verifier",
        "judge_model",
        "judge_base_url",
        "judge_api_key_env",
        "judge_budget",
        "offline",
    }
)
