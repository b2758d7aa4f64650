"""Checks run outside pytest (a notebook, a script): the process's one model cache and one instance per check class
and parameters (`standalone()`), and the claim verifier and detector a call names there.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.evaluator import Evaluator
from .tiers import detector_for, verifier_for

if TYPE_CHECKING:
    from ..models.detectors import Detector
    from ..models.verifier import Verifier

__all__ = ["Standalone", "standalone"]


E = TypeVar("E", bound=Evaluator)


class Standalone:
    """Outside pytest (a notebook, a script): one model cache and one instance per check class and
    parameters for the whole process, so a model loads once, not on every call."""

    def __init__(self) -> None:
        from ..models.cache import ModelCache

        self.models = ModelCache()
        self._evaluators: dict[tuple[type[Evaluator], str], Evaluator] = {}

    def evaluator(self, cls: type[E], params: Mapping[str, Any]) -> E:
        key = (cls, json.dumps(params, sort_keys=True, default=repr))
        if key not in self._evaluators:
            evaluator = cls(**params)
            bind = getattr(evaluator, "bind", None)
            if bind is not None:
                bind(self.models)
            self._evaluators[key] = evaluator
        found: E = self._evaluators[key]  # type: ignore[assignment]  # keyed by its class
        return found

    def detector(self, evaluator: Evaluator, spec: str | None) -> Detector | None:
        """The detector ``spec`` names for ``evaluator`` (outside pytest only a call's ``detector=`` names one)."""
        return detector_for(evaluator, spec, self.models)

    def verifier(self, evaluator: Evaluator, setting: str | None) -> Verifier | None:
        """The claim verifier ``setting`` names for ``evaluator`` (outside pytest only a call's ``verifier=`` does)."""
        return verifier_for(evaluator, setting, self.models)


@functools.lru_cache(maxsize=1)
def standalone() -> Standalone:
    """The process's `Standalone` (built on the first check run outside pytest)."""
    return Standalone()
