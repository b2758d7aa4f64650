"""Assertion helpers: score, record on the current test, fail with an actionable message.

Each ``assert_*`` helper wraps one evaluator. On success it returns the
:class:`~pytest_llmeval.core.result.Result`; on failure it raises
:class:`LLMEvalAssertionError` (an ``AssertionError``) whose message shows each
metric against its threshold, the evidence, the model and case, and the
signature. Every helper takes these keyword arguments besides its own:

- ``threshold``: threshold of the primary metric for this call;
- ``thresholds``: ``{metric: value}`` for any metric (``None`` switches one off);
- ``model``, ``case``: the model under test and the case id (default: from the
  ``llmeval`` marker or fixture);
- ``question``, ``metadata``: recorded with the case;
- ``unverified``: what an *unverified* verdict does to the test (``pass``, ``fail``
  or ``skip``; default ``--llmeval-unverified``, itself ``pass``). A check with an
  offline evidence model fails only on evidence it can name; an answer with no
  evidence against it that it cannot confirm either is unverified.

Threshold precedence: this call, then ``--llmeval-threshold``, then the
``llmeval_thresholds`` ini option, then the catalog default.
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .case import Case
from .recording import current_context
from .result import UNVERIFIED_ACTIONS, Result

__all__ = ["LLMEvalAssertionError", "format_failure", "evaluate", "assert_check", "raise_failure", "unverified_action", "standalone",
           "check_kwargs", "group_defaults", "scorer_argument"]


_CASE_FIELDS = ("actual", "expected", "question", "context", "conditions", "history", "model", "metadata")


_CASE_FIELD_SET = frozenset(_CASE_FIELDS)


class LLMEvalAssertionError(AssertionError):
    """An llmeval check failed; ``result`` holds the scores and evidence."""

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        self.result = result


def raise_failure(result: Result, message: str) -> None:
    """Fail the running test on a failed check, unless the run gates in aggregate (``--llmeval-gate=aggregate``):
    then the failure is recorded (the result is already in the test's records) and the test goes on."""
    __tracebackhide__ = True
    context = current_context()
    if context is not None and context.gate == "aggregate":
        return
    raise LLMEvalAssertionError(message, result)


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0f}" if value == int(value) and abs(value) > 1 else f"{value:.3f}"


def _missed(result: Result, metric: str) -> str:
    """How a metric missed its threshold: ``support 0.472 < threshold 0.700``; a count as a count (``evidence 2 >
    threshold 0``)."""
    sign = "<" if result.higher_is_better.get(metric, True) else ">"
    value, limit = result.metrics[metric], result.thresholds[metric]
    if sign == ">" and value is not None and math.isfinite(value) and value == int(value) and limit == int(limit):
        return f"{metric} {value:.0f} > threshold {limit:.0f}"
    return f"{metric} {_fmt(value)} {sign} threshold {_fmt(limit)}"


def format_failure(result: Result, length: int | None = None) -> str:
    """The message of a failed check (or of an unverified one the run fails)."""
    lines = []
    failed = result.failed_metrics()
    escalated = result.details.get("escalated") if result.details else None
    if isinstance(escalated, Mapping) and escalated.get("verdict") == "fail":
        lines.append(f"llmeval {result.evaluator} failed: the judge ({escalated.get('check')}) found the answer wrong, where the "
                     "offline evidence could not decide")
    elif result.verdict == "unverified":
        missed = "; ".join(_missed(result, metric) for metric in failed)
        lines.append(f"llmeval {result.evaluator} unverified: no evidence against the answer, but it could not be confirmed "
                     f"offline" + (f" ({missed})" if missed else ""))
        lines.append("  decide it: set a judge (--llmeval-judge-model) or an NLI model (params={'method': 'nli', 'nli_model': ...}); "
                     "--llmeval-unverified or unverified= chooses what an unverified answer does to the test")
    elif failed:
        lines.append(f"llmeval {result.evaluator} failed: " + "; ".join(_missed(result, metric) for metric in failed))
    else:
        lines.append(f"llmeval {result.evaluator} failed: {result.primary} could not be scored")
    if result.reason:
        lines.append(f"  why: {result.reason}")
    scores = ", ".join(f"{k}={_fmt(v)}" for k, v in result.metrics.items() if v is not None)
    lines.append(f"  scores: {scores}")
    who = []
    if result.model:
        who.append(f"model: {result.model}")
    if result.case_id:
        who.append(f"case: {result.case_id}")
    if who:
        lines.append("  " + "  ".join(who))
    if result.excerpt is not None:
        more = f" ... ({length} chars)" if length is not None and length > len(result.excerpt) else ""
        lines.append(f"  answer: {result.excerpt!r}{more}")
    lines.append(f"  signature: {result.signature.key}")
    from ..text.basics import replace_surrogates

    return replace_surrogates("\n".join(lines))  # the terminal cannot print a lone surrogate


def _thresholds(
    name: str, threshold: float | None, thresholds: Mapping[str, float | None] | None, primary: str, session: Mapping[str, float]
) -> dict[str, float | None]:
    merged: dict[str, float | None] = dict(session)
    if thresholds is not None:
        if not isinstance(thresholds, Mapping):
            raise TypeError(f"{name}: argument 'thresholds' must be a mapping of metric to number, got {type(thresholds).__name__}")
        merged.update(thresholds)
    if threshold is not None:
        merged[primary] = threshold
    return merged


def evaluate(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    record: bool = True,
    unverified: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` on one case and return the result without asserting.

    ``fields`` are case fields (``actual``, ``expected``, ``question``, ``context``,
    ``conditions``, ``history``, ``model``, ``metadata``); ``params`` go to the
    evaluator. Inside a test the result is recorded unless ``record=False``.
    ``unverified`` (``pass``, ``fail``, ``skip``; default ``--llmeval-unverified``) is
    what an unverified verdict makes of ``passed`` (``skip`` passes it here).
    ``classification`` also takes label lists (``actual=predicted, expected=truth``, and
    ``metadata={"scores": [...], "ids": [...]}``), as :func:`assert_classification` does.

    >>> evaluate("exact_match", actual="4", expected=["4", "four"]).passed
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}")
    unknown = [] if fields.keys() <= _CASE_FIELD_SET else sorted(set(fields) - _CASE_FIELD_SET)
    if unknown:
        raise TypeError(
            f"{name}: unknown argument(s) {', '.join(unknown)}; case fields are {', '.join(_CASE_FIELDS)} "
            f"and evaluator parameters go in params={{...}}"
        )
    fields["model"], case = group_defaults(fields.get("model"), case)
    if name == "classification" and not isinstance(fields.get("actual"), (str, type(None))):
        from ..checks.classification.labels import label_set

        result = _run(name, label_set(name, fields, case), threshold, thresholds, params, False, unverified)[0]
        context = current_context()
        if record and context is not None:
            context.record(result)
        return result
    [result] = _run(name, [Case(case_id=case, **fields)], threshold, thresholds, params, record, unverified)
    return result


def unverified_action(name: str, unverified: str | None) -> str:
    """What an unverified verdict does: the check's ``unverified=``, else the run's ``--llmeval-unverified``, else pass."""
    if unverified is None:
        context = current_context()
        return context.unverified if context is not None else "pass"
    if unverified not in UNVERIFIED_ACTIONS:
        raise ValueError(f"{name}: argument 'unverified' must be one of {', '.join(map(repr, UNVERIFIED_ACTIONS))}; got {unverified!r:.80}")
    return unverified


def _run(
    name: str,
    cases: list[Case],
    threshold: float | None,
    thresholds: Mapping[str, float | None] | None,
    params: Mapping[str, Any] | None,
    record: bool,
    unverified: str | None = None,
) -> list[Result]:
    """Score ``cases`` as one batch with the session's evaluator; record the results on the test."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"{name}: argument 'params' must be a mapping, got {type(params).__name__}")
    action = unverified_action(name, unverified)
    context = current_context()
    params = dict(params or {})
    if context is not None:
        evaluator = context.evaluator(name, params)
        session_thresholds = context.threshold_overrides(name)
    else:
        evaluator = standalone().evaluator(name, params)
        session_thresholds = {}
    in_force = _thresholds(name, threshold, thresholds, evaluator.active_primary().name, session_thresholds)
    if context is not None:
        context.prefetch(evaluator, cases)
    if getattr(evaluator, "needs_judge", False):
        from ..judges.base import JudgeError
        from ..judges.cache import ReplayMiss
        from ..judges.runner import JudgeUnavailable

        try:
            results = evaluator.evaluate(cases, thresholds=in_force, unverified=action)
        except JudgeUnavailable as exc:
            if context is None:
                raise
            import pytest

            pytest.skip(str(exc))
        except ReplayMiss as exc:
            # Replay-only and a verdict was never recorded: a failure of the check, with its record
            # and the one line that says what to do (not a traceback through the cache).
            if context is None:
                raise
            import pytest

            if record:
                for result in evaluator.error_results(cases, in_force, f"judge verdict missing: {exc}"):
                    context.record(result)
            pytest.fail(f"llmeval: {exc}", pytrace=False)
        except JudgeError as exc:
            # The judge failed for good: the check still leaves a record (no scores, not passed, the
            # error as its reason), so the leaderboard and reports count it instead of losing it.
            if record and context is not None:
                for result in evaluator.error_results(cases, in_force, f"judge error: {exc}"):
                    context.record(result)
            raise
    else:
        short = None
        try:
            results = evaluator.evaluate(cases, thresholds=in_force, unverified=action)
        except Exception as exc:  # noqa: BLE001 - only our setup errors are shortened; the rest re-raise
            short = _short_setup_failure(exc, context)
            if short is None:
                raise
        if short is not None:
            import pytest

            pytest.fail(short, pytrace=False)
    if record and context is not None:
        for result in results:
            context.record(result)
    return results


def _short_setup_failure(exc: Exception, context: Any) -> str | None:
    """Inside a test, a missing extra or a model that cannot load fails in one line, not a 30-line traceback."""
    if context is None:
        return None
    from ..models.cache import ModelLoadError

    if isinstance(exc, ModelLoadError) or (isinstance(exc, ImportError) and "pip install" in str(exc)):
        return f"llmeval: {exc}"
    return None


def assert_check(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    unverified: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` and fail the test if the case misses a threshold.

    The generic form of every ``assert_*`` helper, for any registered evaluator:
    ``assert_check("rouge", actual=answer, expected=reference, threshold=0.4)``.
    An unverified verdict passes the test, fails it or skips it as ``unverified``
    (``pass``, ``fail``, ``skip``) says, else as ``--llmeval-unverified`` does.
    """
    __tracebackhide__ = True
    action = unverified_action(name, unverified)
    result = evaluate(name, threshold=threshold, thresholds=thresholds, params=params, case=case, unverified=action, **fields)
    if not result.passed:
        actual = fields.get("actual")
        raise_failure(result, format_failure(result, len(actual) if isinstance(actual, str) else None))
        return result
    if result.verdict == "unverified" and action == "skip" and current_context() is not None:
        import pytest

        pytest.skip(f"llmeval {name} unverified: {result.reason[:300]}")
    return result


def check_kwargs(kwargs: dict[str, Any], allowed: Sequence[str] = ("question", "model", "metadata", "history")) -> None:
    bad = sorted(set(kwargs) - set(allowed) - {"threshold", "thresholds", "case", "unverified"})
    if bad:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(bad)}")


def group_defaults(model: str | None, case: str | None) -> tuple[str | None, str | None]:
    context = current_context()
    if context is None:
        return model, case
    return (model if model is not None else context.model), (case if case is not None else (context.case or context.nodeid))


def scorer_argument(helper: str, scorer: str | None, **old: str | None) -> str | None:
    """The model that scores the check: ``scorer=``, or one of the older names (deprecated, warned)."""
    given = {name: value for name, value in old.items() if value is not None}
    for name in given:
        warnings.warn(f"{helper}: {name}= is deprecated and goes in the next release; pass scorer= (the model that scores "
                      f"the check) instead", DeprecationWarning, stacklevel=3)
    if scorer is not None and given:
        raise TypeError(f"{helper}: give the scoring model once, as scorer=; got scorer= and {', '.join(n + '=' for n in given)}")
    if scorer is not None and not isinstance(scorer, str):
        raise TypeError(f"{helper}: argument 'scorer' must be a model name or local folder (str); got {type(scorer).__name__}")
    return scorer if scorer is not None else next(iter(given.values()), None)


class Standalone:
    """Outside pytest (a notebook, a script): one registry, one model cache and one instance per evaluator and
    parameters for the whole process, so a model loads once, not on every call."""

    def __init__(self) -> None:
        from ..models.cache import ModelCache
        from .registry import Registry

        self.registry = Registry()
        self.models = ModelCache()
        self._evaluators: dict[tuple[str, str], Any] = {}

    def evaluator(self, name: str, params: Mapping[str, Any]) -> Any:
        key = (name, json.dumps(params, sort_keys=True, default=repr))
        if key not in self._evaluators:
            evaluator = self.registry.create(name, **params)
            bind = getattr(evaluator, "bind", None)
            if bind is not None:
                bind(self.models)
            self._evaluators[key] = evaluator
        return self._evaluators[key]


@functools.lru_cache(maxsize=1)
def standalone() -> Standalone:
    """The process's :class:`Standalone` (built on the first check run outside pytest)."""
    return Standalone()
