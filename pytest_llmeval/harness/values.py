"""Parsers of option values: text in, a value out, or ``ValueError`` saying
what was expected (`pytest_llmeval.harness.options` names the option)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..models.config import endpoint, parse_device, parse_precision

__all__ = [
    "parse_floors",
    "parse_band",
    "parse_defer",
    "number_parser",
    "choice_parser",
    "parse_price",
    "parse_spend",
    "parse_model_price",
    "optional_number_parser",
    "parse_names",
    "parse_kinds",
    "parse_judge_for",
    "parse_threshold",
    "repeat_setting",
    "floor_parser",
    "parse_boolean",
    "parse_text",
    "parse_url",
    "device_setting",
    "precision_setting",
]


def parse_floors(text: str) -> tuple[tuple[str, float], ...]:
    """``min_kappa=0.6,min_rows=50,min_precision=0.8`` (any of them): what a calibration must show to gate."""
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        name, sep, value = (x.strip() for x in part.partition("="))
        if not sep or name not in ("min_kappa", "min_rows", "min_precision"):
            raise ValueError(f"expected NAME=VALUE with NAME one of min_kappa, min_rows, min_precision; got {part!r}")
        try:
            number = float(int(value)) if name == "min_rows" else float(value)
        except ValueError:
            raise ValueError(
                f"{name} must be {'an integer' if name == 'min_rows' else 'a number'}; got {value!r}"
            ) from None
        if (name == "min_rows" and number < 1) or (name != "min_rows" and not -1 <= number <= 1):
            raise ValueError(f"{name} out of range: {value!r}")
        values[name] = number
    return tuple(values.items())


def parse_band(text: str) -> tuple[float, float]:
    """``LOW,HIGH``: a detector's support below LOW fails an answer, at or above HIGH passes it, between stays
    unverified."""
    try:
        low, high = (float(part) for part in str(text).split(","))
    except ValueError:
        raise ValueError(f"expected LOW,HIGH, two numbers from 0 to 1, e.g. 0.3,0.7; got {text!r}") from None
    if not 0 <= low <= high <= 1:
        raise ValueError(f"expected 0 <= LOW <= HIGH <= 1; got {text!r}")
    return low, high


def parse_defer(text: str) -> tuple[str, int, float]:
    """``MODE[,TESTS,SECONDS]``: whether tests may defer their checks (auto, off), and how many tests or seconds a
    batch."""
    parts = [part.strip().lower() for part in text.split(",")]
    mode, tests, seconds = (parts + ["", ""])[:3]
    try:
        made = (mode, int(tests or 100), float(seconds or 10))
    except ValueError:
        made = ("", 0, 0.0)
    if mode not in ("auto", "off") or made[1] < 1 or not made[2] > 0 or len(parts) > 3:
        raise ValueError(
            f"expected auto or off, then optionally TESTS (>= 1) and SECONDS (> 0), e.g. auto,100,10; got {text!r}"
        )
    return made


def number_parser(
    what: str, low: float | None = None, high: float | None = None, kind: type = float, none: str | None = None
) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        text = str(text).strip()
        if none is not None and text.lower() == none:
            return None
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(f"expected {what}; got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"expected {what}; got {text!r}")
        return value

    return parse


def choice_parser(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        value = str(text).strip()
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}; got {value!r}")
        return value

    return parse


def parse_spend(text: str) -> tuple[float, str] | None:
    """A judge spend limit (`pytest_llmeval.judges.spend.parse_spend_limit`); ``None`` for none."""
    if not str(text).strip():
        return None  # the default: no judge module loads for it
    from ..judges.spend import parse_spend_limit

    return parse_spend_limit(text)


def parse_model_price(text: str) -> tuple[str, tuple[float, float]]:
    """``MODEL=PROMPT,COMPLETION``: one judge model's price per million tokens.

    >>> parse_model_price("gpt-4o=2.5,10")
    ('gpt-4o', (2.5, 10.0))
    """
    model, sep, price = str(text).rpartition("=")
    if not sep or not model.strip():
        raise ValueError(f"invalid judge price {text!r}: expected MODEL=PROMPT,COMPLETION, e.g. gpt-4o=2.5,10")
    return model.strip(), parse_price(price)


def parse_price(text: str) -> tuple[float, float]:
    try:
        price = tuple(float(p) for p in str(text).split(","))
        if len(price) != 2 or min(price) < 0:
            raise ValueError
    except ValueError:
        raise ValueError(
            "expected PROMPT,COMPLETION, two non-negative numbers (money per million tokens, e.g. 0.15,0.60); "
            f"got {text!r}"
        ) from None
    return price[0], price[1]


def optional_number_parser(what: str) -> Callable[[str], float | None]:
    number = number_parser(what, low=0.0)
    return lambda text: None if not str(text).strip() else number(text)


def parse_names(text: str) -> tuple[str, ...]:
    """``a,b`` or one per line: names in order, without duplicates."""
    return tuple(dict.fromkeys(n.strip() for n in str(text).replace("\n", ",").split(",") if n.strip()))


def parse_kinds(text: str) -> tuple[str, ...]:
    """Evidence kinds, comma-separated, or ``all`` / ``none`` (checked against the kinds the fact layer names)."""
    names = parse_names(text)
    if names:
        from ..facts.kinds import resolve_fail_on

        try:
            resolve_fail_on(",".join(names))
        except ValueError as exc:
            raise ValueError(str(exc).partition(": ")[2]) from None
    return names


def parse_judge_for(text: str) -> tuple[str, str]:
    """``EVALUATOR=MODEL``: the judge model of one check."""
    name, sep, model = str(text).partition("=")
    if not sep or not name.strip().isidentifier() or not model.strip():
        raise ValueError(f"invalid judge assignment {text!r}: expected EVALUATOR=MODEL, e.g. faithfulness=gpt-4o")
    return name.strip(), model.strip()


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


def repeat_setting(text: str) -> int | str:
    """``N`` (1 to 1000) draws, or ``auto[:MAX]``: as many as a case's verdict needs, at most MAX (2 to 1000, 5)."""
    from .markers import parse_repeat

    draws, auto = parse_repeat(str(text).strip(), "")
    return f"auto:{draws}" if auto else draws


def floor_parser(measure: str, option: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        from ..report.gate import parse_floor

        return parse_floor(text, measure, option)

    return parse


def parse_boolean(text: str) -> bool:
    value = str(text).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"expected true or false; got {text!r}")


def parse_text(text: str) -> str:
    return str(text).strip()


def parse_url(text: str) -> str:
    """An http(s) URL, or nothing (off)."""
    value = str(text).strip()
    if value:
        endpoint(value)  # raises ValueError saying what was expected
    return value


def device_setting(text: str) -> str:
    try:
        return parse_device(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def precision_setting(text: str) -> str:
    try:
        return parse_precision(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None
