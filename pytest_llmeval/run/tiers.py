"""The model tiers that decide a check's unverified answers after its own rules: the claim verifier and the
detector a call or the run names, each built over a model cache (`verifier_for`, `detector_for`), and the chain that
runs them and then the check's judge (`decide_unverified`: rules, verifier, detector, judge). The session picks them
for a run (`pytest_llmeval.harness.tiers`); outside pytest, `pytest_llmeval.run.standalone` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.case import Case
from ..core.evaluator import Evaluator
from ..core.result import Result
from .escalation import detect, escalate

if TYPE_CHECKING:
    from ..models.detectors import Detector
    from ..models.verifier import Verifier
    from .recording import TestContext

__all__ = ["decide_unverified", "detector_for", "verifier_for"]


def decide_unverified(
    evaluator: Evaluator,
    context: TestContext,
    cases: Sequence[Case],
    results: list[Result],
    action: str,
    tiers: tuple[str | None, str | None],
) -> list[Result]:
    """``results`` with their unverified answers decided by the claim verifier and the detector the run (or the call:
    ``tiers``, its ``detector`` and ``verifier``) has, then by the check's judge, as the test's context provides them
    (the escalation chain: rules, verifier, detector, judge)."""
    verifier = context.verifier(evaluator, tiers[1])
    if verifier is not None:
        results = detect(evaluator, verifier, cases, results, action)
    found = context.detector(evaluator, tiers[0])
    if found is not None:
        results = detect(evaluator, found, cases, results, action)
    judge = context.escalation(evaluator)
    return results if judge is None else escalate(evaluator, judge, cases, results, action)


def detector_for(
    evaluator: Evaluator, spec: str | None, models: Any, band: tuple[float, float] = (0.5, 0.5)
) -> Detector | None:
    """The detector ``spec`` (``FAMILY:MODEL``) for ``evaluator`` over the model cache ``models``, which loads its model
    once (``None``: no spec, or a check no detector decides)."""
    if spec is None or spec == "":
        return None
    if not isinstance(spec, str):
        raise TypeError(
            f"{evaluator.name}: argument 'detector' must be FAMILY:MODEL (token, sequence or nli), got "
            f"{type(spec).__name__}"
        )
    if not evaluator.detects:
        return None
    from ..models.detectors import Detector, parse_detector

    try:
        return Detector(parse_detector(spec, band=band), models)
    except ValueError as exc:
        raise TypeError(f"{evaluator.name}: argument 'detector': {exc}") from None


def verifier_for(evaluator: Evaluator, setting: str | None, models: Any) -> Verifier | None:
    """The claim verifier ``setting`` names (``on``: the shipped one; a folder: a retrained one; ``off`` or ``""``:
    none)
    for ``evaluator`` over the model cache ``models`` (``None``: off, or a check no model tier decides)."""
    from ..models.config import parse_verifier
    from ..models.verifier import Verifier

    if setting is not None:
        try:
            setting = parse_verifier(setting)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{evaluator.name}: argument 'verifier': {exc}") from None
    if not setting or not evaluator.detects:
        return None
    from ..facts.claims import non_claim
    from ..facts.records import read_record

    folder = None if setting == "on" else setting
    # one Verifier per setting and run: its card is read and hashed once, its weights loaded on first use
    made: Verifier = models.keep(
        f"verifier card {setting}", lambda: Verifier(models, folder, skip=non_claim, record=read_record)
    )
    return made
