"""What a test says about its checks: the ``llmeval`` marker, the model under test, the case, perturbation siblings.

`identity()` reads them from a collected item; the model and perturbation come
from the plugin's own parametrization (``llmeval_model``, ``llmeval_perturbation``),
the marker wins over both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from ..core.ids import draw_id, sibling_id, without_id_part

__all__ = ["MARKER_HELP", "PERTURB_MARKER_HELP", "Identity", "identity", "parse_repeat", "repeat_of", "outcome_of"]


def parse_repeat(value: Any, where: str) -> tuple[int, bool]:
    """``(draws, auto)`` of a repeat: an integer N from 1 to 1000, or ``"auto[:MAX]"`` (MAX from 2 to 1000, default
    5)."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000:
        return value, False
    text = value.strip().lower() if isinstance(value, str) else ""
    if text.isdigit() and 1 <= int(text) <= 1000:
        return int(text), False
    head, _, most = text.partition(":")
    if head == "auto" and (not most or (most.isdigit() and 2 <= int(most) <= 1000)):
        return int(most or 5), True
    place = f"{where}: " if where else ""
    raise pytest.UsageError(
        f"{place}repeat takes an integer from 1 to 1000, or auto[:MAX] with MAX from 2 to 1000 (e.g. "
        f"auto:5); got {value!r}"
    )


def repeat_of(markers: list[Any], default: int | str, where: str) -> tuple[int, bool]:
    """How many draws a test runs, and whether they stop once the case is decided (``auto``): the closest
    ``llmeval(repeat=...)`` marker's, else ``default`` (``--llmeval-repeat``)."""
    for marker in markers:  # closest first
        if "repeat" in marker.kwargs:
            return parse_repeat(marker.kwargs["repeat"], f"{where}: @pytest.mark.llmeval(repeat=...)")
    return parse_repeat(default, "--llmeval-repeat")


MARKER_HELP = (
    "llmeval(model=None, case=None, repeat=None, min_pass=None, defer=None, **tags): tag the test's llmeval checks "
    "with "
    "the model under test, the case id and free tags such as perturbation='typos'; repeat=N runs the test N times as N "
    "draws of one case, and min_pass=K passes the case when at least K of its draws pass (one red test when it fails); "
    "defer=True queues the test's checks, scored in batches with other tests' (--llmeval-defer); record=True records "
    "and replays the test's own model calls (--llmeval-record-mode)"
)


PERTURB_MARKER_HELP = (
    "llmeval_perturb(*perturbations, seed=0): run the test on its original input and on each perturbation "
    "(names such as 'typos', 'uppercase', or pytest_llmeval.perturbation(name, **params)); the test perturbs its "
    "input with the llmeval_perturb fixture"
)


@dataclass(frozen=True)
class Identity:
    """The model, case and tags a test's checks are recorded under."""

    model: str | None = None
    case: str | None = None
    tags: dict[str, Any] = field(default_factory=dict)


def identity(
    item: pytest.Item, *, use_markers: bool = True, repeat: int | str = 1, min_pass: int | None = None
) -> Identity:
    """The test's model, case and tags; a malformed marker is a ``pytest.UsageError`` naming the test.

    A draw of a repeated test whose case passes on ``min_pass`` of its draws (the marker's, else ``min_pass``) is
    tagged with ``draws`` and ``min_pass``: the controller decides the case once its draws are in.
    """
    model = case = None
    tags: dict[str, Any] = {}
    nodeid = _without_group(item)
    callspec = getattr(item, "callspec", None)
    params = getattr(callspec, "params", {}) if callspec is not None else {}
    if isinstance(params.get("llmeval_model"), str):
        model = params["llmeval_model"]
    if "llmeval_perturbation" in params:
        perturbation = params["llmeval_perturbation"]
        label = "original" if perturbation is None else perturbation.id
        tags["perturbation"] = label
        case = sibling_id(nodeid, label, escape=not _escaping_disabled(item.config))
    draw = params.get("llmeval_draw")
    if isinstance(draw, int) and not isinstance(draw, bool):
        # One of a repeated test's draws: the draws are one case, the test id without the draw's part.
        tags["draw"] = draw
        case = sibling_id(case or nodeid, draw_id(draw))
    markers = list(item.iter_markers("llmeval")) if use_markers else []
    for marker in reversed(markers):  # farthest first, closest wins (the marker beats the parametrized model and case)
        if marker.args:
            raise pytest.UsageError(
                f"{item.nodeid}: @pytest.mark.llmeval takes keyword arguments only, e.g. llmeval(model='gpt-4o', "
                "case='q1')"
            )
        kwargs = dict(marker.kwargs)
        model = kwargs.pop("model", model)
        case = kwargs.pop("case", case)
        kwargs.pop("repeat", None)  # how many draws (pytest_generate_tests), not a tag
        min_pass = kwargs.pop("min_pass", min_pass)  # how many draws must pass (the controller's), not a tag
        for flag in (
            "defer",
            "record",
        ):  # whether the checks may wait (harness.deferring), a cassette (harness.cassettes)
            value = kwargs.pop(flag, False)
            if not isinstance(value, bool):
                raise pytest.UsageError(
                    f"{item.nodeid}: llmeval marker argument {flag!r} must be True or False, got {value!r}"
                )
        tags.update(kwargs)
    auto = False
    if "draw" in tags:
        draws, auto = repeat_of(markers, repeat, item.nodeid)
        if auto and min_pass is None:
            min_pass = draws // 2 + 1  # a majority of the draws
    if min_pass is not None and "draw" in tags:
        if isinstance(min_pass, bool) or not isinstance(min_pass, int) or not 1 <= min_pass <= draws:
            raise pytest.UsageError(
                f"{item.nodeid}: min_pass (the draws that must pass) takes an integer from 1 to the "
                f"test's {draws} draws; got {min_pass!r}"
            )
        tags["draws"], tags["min_pass"] = draws, min_pass
        if auto:
            tags["auto"] = True  # draws stop once the case's verdict is certain
    for name, value in (("model", model), ("case", case)):
        if value is not None and not isinstance(value, str):
            raise pytest.UsageError(f"{item.nodeid}: llmeval marker argument {name!r} must be a str, got {value!r}")
    if model is not None and not any("case" in m.kwargs for m in markers):
        # A test parametrized over models: its case is the test id without the model's part, so one
        # case compares the models ("test_capital[q1]", not "test_capital[q1-beta]").
        case = without_id_part(case or nodeid, model)
    return Identity(model, case, tags)


def _without_group(item: pytest.Item) -> str:
    """The test's id without the ``@group`` xdist adds under ``--dist loadgroup`` for a ``repeat=auto`` case's group."""
    for mark in item.iter_markers("xdist_group"):
        name = str(mark.kwargs.get("name", ""))
        if name.startswith("llmeval-case:") and item.nodeid.endswith(f"@{name}"):
            return item.nodeid[: -len(name) - 1]
    return item.nodeid


def _escaping_disabled(config: pytest.Config) -> bool:
    try:
        return bool(config.getini("disable_test_id_escaping_and_forfeit_all_rights_to_community_support"))
    except ValueError:
        return False


def outcome_of(report: pytest.TestReport) -> str:
    """What pytest concluded about a test, from one of its phase reports."""
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "skipped" if report.skipped else "passed"
