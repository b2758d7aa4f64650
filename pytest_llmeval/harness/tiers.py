"""Who decides a check's unverified answers in this run, after its own rules: the claim verifier, the run's detector,
then
its judge.

The session hands these to each test's context (`pytest_llmeval.run.recording.TestContext`), which the check runner
asks (`pytest_llmeval.run.check.run_cases`): the escalation chain is rules, then the claim verifier, then detector, then
judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..core.evaluator import Evaluator
    from ..models.detectors import Detector
    from ..models.verifier import Verifier
    from .options import Settings


class EvalSession(Protocol):
    """What the tiers ask of the session (`pytest_llmeval.harness.session.EvalSession`)."""

    settings: Settings

    @property
    def models(self) -> Any: ...

    def judge_of(self, evaluator: str) -> Any: ...

    def evaluator(self, check: type[Evaluator] | str, params: Mapping[str, Any]) -> Evaluator: ...


__all__ = ["escalation", "detector", "verifier"]


def escalation(session: EvalSession, evaluator: Evaluator) -> Evaluator | None:
    """The judge check that decides ``evaluator``'s unverified answers (its class's ``escalates_to``), when the run
    has a judge for it; else ``None``."""
    target = evaluator.escalates_to
    if not target or session.judge_of(target).judge is None:
        return None
    return session.evaluator(target, {})


def detector(session: EvalSession, evaluator: Evaluator, spec: str | None) -> Detector | None:
    """The detector that decides ``evaluator``'s unverified answers: the call's ``detector=``, else the run's
    ``--llmeval-detector`` (with ``detector.band``), loaded once per run through the session's model cache."""
    from ..run.tiers import detector_for

    spec = spec if spec is not None else (session.settings.detector or None)
    return detector_for(evaluator, spec, session.models, band=session.settings.detector_band)


def verifier(session: EvalSession, evaluator: Evaluator, setting: str | None) -> Verifier | None:
    """The claim verifier that decides ``evaluator``'s unverified answers before any detector or judge: the call's
    ``verifier=``, else the run's ``--llmeval-verifier``, its model loaded once per run through the session's model
    cache; ``None`` when it is off or the check reads no context."""
    from ..run.tiers import verifier_for

    return verifier_for(evaluator, setting if setting is not None else session.settings.verifier, session.models)
