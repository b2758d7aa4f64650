"""Parsers of option values that are more than a number or a name: text in, a value out, or ``ValueError`` saying
what was expected (`pytest_llmeval.harness.options` names the option)."""

from __future__ import annotations

__all__ = ["parse_floors", "parse_band", "parse_defer"]


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
            raise ValueError(f"{name} must be {'an integer' if name == 'min_rows' else 'a number'}; got {value!r}") from None
        if (name == "min_rows" and number < 1) or (name != "min_rows" and not -1 <= number <= 1):
            raise ValueError(f"{name} out of range: {value!r}")
        values[name] = number
    return tuple(values.items())


def parse_band(text: str) -> tuple[float, float]:
    """``LOW,HIGH``: a detector's support below LOW fails an answer, at or above HIGH passes it, between stays unverified."""
    try:
        low, high = (float(part) for part in str(text).split(","))
    except ValueError:
        raise ValueError(f"expected LOW,HIGH, two numbers from 0 to 1, e.g. 0.3,0.7; got {text!r}") from None
    if not 0 <= low <= high <= 1:
        raise ValueError(f"expected 0 <= LOW <= HIGH <= 1; got {text!r}")
    return low, high


def parse_defer(text: str) -> tuple[str, int, float]:
    """``MODE[,TESTS,SECONDS]``: whether tests may defer their checks (auto, off), and how many tests or seconds a batch."""
    parts = [part.strip().lower() for part in text.split(",")]
    mode, tests, seconds = (parts + ["", ""])[:3]
    try:
        made = (mode, int(tests or 100), float(seconds or 10))
    except ValueError:
        made = ("", 0, 0.0)
    if mode not in ("auto", "off") or made[1] < 1 or not made[2] > 0 or len(parts) > 3:
        raise ValueError(f"expected auto or off, then optionally TESTS (>= 1) and SECONDS (> 0), e.g. auto,100,10; got {text!r}")
    return made
