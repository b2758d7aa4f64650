"""What a check can raise, and what the runner makes of it.

Judges, models and checks raise subclasses of these; the check runner (`pytest_llmeval.run.check`) maps
each base to an outcome of the running test, so no layer below it needs pytest:

- `CheckUnavailable`: the check cannot run in this run (no judge configured): the test is skipped;
- `VerdictMissing`: a verdict the run may only replay was never recorded: the check is recorded as
  failed and the test fails in one line;
- `ScoringError`: the scorer failed for good (a judge that keeps failing): the check is recorded as
  failed, unscored, with the error as its reason, and the error propagates;
- `SetupError`: a scoring model or an extra is missing: the test fails in one line.
"""

from __future__ import annotations

__all__ = [
    "MissingInputError",
    "UncalibratedWarning",
    "CheckUnavailable",
    "VerdictMissing",
    "ScoringError",
    "SetupError",
]


class MissingInputError(ValueError):
    """A case lacks a field the evaluator requires."""


class UncalibratedWarning(UserWarning):
    """A default threshold was measured for other scoring models than the one in use."""


class CheckUnavailable(RuntimeError):
    """The check cannot run in this run (its judge is not configured); inside a test, the test is skipped."""


class VerdictMissing(LookupError):
    """A verdict the run may only replay was never recorded; inside a test, the check fails with this message."""


class ScoringError(RuntimeError):
    """The scorer failed for good; inside a test, the check is recorded unscored and failed, and the error raised."""


class SetupError(RuntimeError):
    """A scoring model could not load or an extra is missing; inside a test, the test fails in one line."""
