"""Perturbations on the running test: the session's judge writes paraphrases, and a perturbation that cannot run
here (no judge) skips the test. The perturbations themselves are `pytest_llmeval.text.perturbators`."""

from __future__ import annotations

from typing import Any

from ..core.errors import CheckUnavailable
from ..text import perturbators
from ..text.perturbators import Perturbation
from .recording import current_context

__all__ = ["perturb", "Perturber"]


def _session_judge(judge: Any) -> Any:
    """``judge``, else the running test's session judge (``None`` outside a test)."""
    if judge is not None:
        return judge
    context = current_context()
    return context.judge() if context is not None else None


def perturb(text: str, name: str, *, seed: int = 0, judge: Any = None, **params: Any) -> str:
    """``text`` perturbed by ``name`` with ``params``; the same seed gives the same text everywhere.

    ``paraphrase`` asks ``judge``, inside a test the session's (`pytest_llmeval.text.perturbators.paraphrase()`).
    """
    return perturbators.perturb(
        text, name, seed=seed, judge=_session_judge(judge) if name == "paraphrase" else judge, **params
    )


class Perturber:
    """What the ``llmeval_perturb`` fixture returns: call it on each input text of the test."""

    def __init__(self, perturbation: Perturbation | None, seed: int = 0) -> None:
        self.perturbation = perturbation
        self.seed = seed

    @property
    def name(self) -> str:
        return "original" if self.perturbation is None else self.perturbation.id

    def __call__(self, text: str) -> str:
        if self.perturbation is None:
            if not isinstance(text, str):
                raise TypeError(f"llmeval_perturb: argument 'text' must be a str, got {type(text).__name__}")
            return text
        try:
            return self.perturbation.apply(
                text, seed=self.seed, judge=_session_judge(None) if self.perturbation.name == "paraphrase" else None
            )
        except CheckUnavailable as exc:
            import pytest

            pytest.skip(str(exc))

    def __repr__(self) -> str:
        return f"<llmeval_perturb {self.name} seed={self.seed}>"
