"""What a check author needs, in one import: ``from pytest_llmeval.kit import Evaluator, MetricSpec, Score, check``.

- the contract: `Evaluator` (declare ``name``, ``requires``, ``metrics``, ``defaults``; implement ``score`` or
  ``score_batch``; override ``decide`` to decide otherwise), `MetricSpec`, `Score`, `Verdict`,
  `Case`, `Result`;
- parameter checks that name the parameter: `require_choice()`, `require_type()`, `require_number()`;
- the runner a helper hands its class to: `check()` (asserts), `run_check()` (returns the result),
  `check_kwargs()` (refuses unknown keyword arguments);
- bases for checks that run a local model (`ModelEvaluator`) or ask the judge (`JudgeEvaluator`,
  whose ``PROMPTS`` table in your module is public and replaceable);
- what a check may raise for the runner to map to the test's outcome: `CheckUnavailable` (skip),
  `SetupError` (fail in one line), `ScoringError` (recorded unscored), `MissingInputError`.

More for a check that needs it, each a module of this package: `pytest_llmeval.kit.text` (sentences, excerpts,
text conditions, the PII and secret patterns), `pytest_llmeval.kit.judge` (asking the judge, its reply schemas and
metrics), `pytest_llmeval.kit.models` (loading a local model, the embedding cache), `pytest_llmeval.kit.facts` (the
fact layer groundedness reads). The built-in checks import from nothing else of the package (a test keeps it so), so
a check of yours can be written as they are.

Everything else in the package is its own business and may change between releases.
"""

from __future__ import annotations

from ..core.case import CASE_FIELDS, Case
from ..core.errors import CheckUnavailable, MissingInputError, ScoringError, SetupError, UncalibratedWarning
from ..core.evaluator import Evaluator, MetricSpec, Score, package_version
from ..core.params import require_choice, require_number, require_type
from ..core.result import Result
from ..core.verdict import Verdict
from ..judges.evaluator import JudgeEvaluator
from ..models.evaluator import ModelEvaluator
from ..run.check import (
    check,
    check_kwargs,
    format_failure,
    group_defaults,
    raise_failure,
    run_cases,
    run_check,
    scorer_argument,
)
from ..run.recording import current_context
from ..stats import classmetrics

__all__ = [
    "CASE_FIELDS",
    "UncalibratedWarning",
    "package_version",
    "format_failure",
    "group_defaults",
    "raise_failure",
    "run_cases",
    "scorer_argument",
    "current_context",
    "classmetrics",
    "Case",
    "Result",
    "Evaluator",
    "MetricSpec",
    "Score",
    "Verdict",
    "require_choice",
    "require_number",
    "require_type",
    "check",
    "run_check",
    "check_kwargs",
    "ModelEvaluator",
    "JudgeEvaluator",
    "CheckUnavailable",
    "SetupError",
    "ScoringError",
    "MissingInputError",
]
