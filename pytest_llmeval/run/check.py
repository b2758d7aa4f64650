"""The check runner: a helper hands its check class and the case to `check()`, which scores, records on the
current test and fails it with an actionable message.

``assert_grounded(answer, context)`` is ``check(Groundedness, actual=answer, context=context, params={...})``:
following the call reaches ``Groundedness`` and its scoring method without a name lookup (names users type,
``evaluate("groundedness")``, resolve through the registry in `pytest_llmeval.harness.api`). On success the
runner returns the `Result`; on failure it raises
`LLMEvalAssertionError` (an ``AssertionError``) whose message shows the verdict, who decided it, each
metric against its threshold, the evidence, the model and case, and the signature. Every helper takes these
keyword arguments besides its own:

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

What checks raise (`pytest_llmeval.core.errors`) becomes the test's outcome here: a check that cannot run
skips the test, a missing replayed verdict or a missing model fails it in one line, a scorer that failed for
good leaves an unscored, failed record.

The failure message is written in `pytest_llmeval.run.message`, the verifier and detector tiers that decide
unverified answers are built in `pytest_llmeval.run.tiers`, and checks run outside pytest share the process's
state in `pytest_llmeval.run.standalone`; their names are importable from here too.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.case import Case
from ..core.errors import CheckUnavailable, ScoringError, SetupError, VerdictMissing
from ..core.evaluator import Evaluator
from ..core.result import UNVERIFIED_ACTIONS, Result

if TYPE_CHECKING:
    from .recording import TestContext
from .escalation import detect
from .message import format_failure, missing_extra
from .recording import current_context
from .standalone import standalone
from .tiers import decide_unverified, detector_for, verifier_for

__all__ = [
    "LLMEvalAssertionError",
    "format_failure",
    "check",
    "run_check",
    "run_cases",
    "raise_failure",
    "unverified_action",
    "standalone",
    "check_kwargs",
    "group_defaults",
    "scorer_argument",
    "CASE_ARGUMENTS",
    "decide_unverified",
    "detector_for",
    "masked_values",
    "verifier_for",
    "missing_extra",
]


#: The keyword arguments of a case (the rest of a check's arguments are its parameters).
CASE_ARGUMENTS = ("actual", "expected", "question", "context", "conditions", "history", "model", "metadata")


_CASE_ARGUMENT_SET = frozenset(CASE_ARGUMENTS)


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


def _thresholds(
    name: str,
    threshold: float | None,
    thresholds: Mapping[str, float | None] | None,
    primary: str,
    session: Mapping[str, float],
) -> dict[str, float | None]:
    merged: dict[str, float | None] = dict(session)
    if thresholds is not None:
        if not isinstance(thresholds, Mapping):
            raise TypeError(
                f"{name}: argument 'thresholds' must be a mapping of metric to number, got {type(thresholds).__name__}"
            )
        merged.update(thresholds)
    if threshold is not None:
        merged[primary] = threshold
    return merged


def run_check(
    cls: type[Evaluator],
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    record: bool = True,
    unverified: str | None = None,
    prompts: Mapping[str, str] | None = None,
    detector: str | None = None,
    verifier: str | None = None,
    **fields: Any,
) -> Result:
    """Run check ``cls`` on one case and return the result without asserting.

    ``fields`` are case fields (``actual``, ``expected``, ``question``, ``context``,
    ``conditions``, ``history``, ``model``, ``metadata``); ``params`` go to the
    check. Inside a test the result is recorded unless ``record=False``. A check may
    read several cases from the fields and score them as one (``classification``'s
    label lists, `cases_from()`): one result is recorded.
    ``prompts``: a judge check's prompts to replace for this call (``{name: template}``). ``detector``: the detector
    that decides this call's unverified answers (``FAMILY:MODEL``, `pytest_llmeval.models.detectors`; default: the
    run's ``--llmeval-detector``). ``verifier``: ``on``, ``off`` or a verifier folder, the claim verifier that decides
    them first (`pytest_llmeval.models.verifier`; default: the run's ``--llmeval-verifier``).
    """
    params, cases = _call_cases(cls, params, prompts, case, fields)
    if len(cases) == 1:
        [result] = run_cases(
            cls,
            cases,
            threshold=threshold,
            thresholds=thresholds,
            params=params,
            record=record,
            unverified=unverified,
            detector=detector,
            verifier=verifier,
        )
        return result
    result = run_cases(
        cls,
        cases,
        threshold=threshold,
        thresholds=thresholds,
        params=params,
        record=False,
        unverified=unverified,
        detector=detector,
        verifier=verifier,
    )[0]
    context = current_context()
    if record and context is not None:
        context.record(result)
    return result


def _call_cases(
    cls: type[Evaluator],
    params: Mapping[str, Any] | None,
    prompts: Mapping[str, str] | None,
    case: str | None,
    fields: dict[str, Any],
) -> tuple[Mapping[str, Any] | None, list[Case]]:
    """A call's parameters (its ``prompts`` among them) and the cases it reads; a wrong argument raises, naming it."""
    if prompts is not None:
        params = {**(params or {}), "prompts": prompts}
    unknown = [] if fields.keys() <= _CASE_ARGUMENT_SET else sorted(set(fields) - _CASE_ARGUMENT_SET)
    if unknown:
        raise TypeError(
            f"{cls.name}: unknown argument(s) {', '.join(unknown)}; case fields are {', '.join(CASE_ARGUMENTS)} "
            f"and evaluator parameters go in params={{...}}"
        )
    fields["model"], case = group_defaults(fields.get("model"), case)
    return params, cls.cases_from(fields, case)


def check(
    cls: type[Evaluator],
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    unverified: str | None = None,
    prompts: Mapping[str, str] | None = None,
    detector: str | None = None,
    verifier: str | None = None,
    **fields: Any,
) -> Result:
    """Run check ``cls`` on one case, record it, and fail the test if the verdict is *fail*.

    What every ``assert_*`` helper calls: ``check(Rouge, actual=answer, expected=reference, threshold=0.4)``.
    An unverified verdict passes the test, fails it or skips it as ``unverified``
    (``pass``, ``fail``, ``skip``) says, else as ``--llmeval-unverified`` does.
    """
    __tracebackhide__ = True
    action = unverified_action(cls.name, unverified)
    context = current_context()
    if context is not None and context.deferred is not None:  # the test does not need the verdict at once
        deferred = _defer(
            cls, context, threshold, thresholds, params, case, action, prompts, (detector, verifier), fields
        )
        if deferred is not None:
            return deferred
    result = run_check(
        cls,
        threshold=threshold,
        thresholds=thresholds,
        params=params,
        case=case,
        unverified=action,
        prompts=prompts,
        detector=detector,
        verifier=verifier,
        **fields,
    )
    if not result.passed:
        actual = fields.get("actual")
        raise_failure(result, format_failure(result, len(actual) if isinstance(actual, str) else None))
        return result
    if result.verdict == "unverified" and action == "skip" and current_context() is not None:
        import pytest

        pytest.skip(f"llmeval {cls.name} unverified: {result.reason[:300]}")
    return result


def _defer(
    cls: type[Evaluator],
    context: TestContext,
    threshold: float | None,
    thresholds: Mapping[str, float | None] | None,
    params: Mapping[str, Any] | None,
    case: str | None,
    action: str,
    prompts: Mapping[str, str] | None,
    tiers: tuple[str | None, str | None],
    fields: dict[str, Any],
) -> Result | None:
    """Queue the check on the test's deferred queue, its arguments checked as scoring checks them; ``None``: a call that
    reads several cases, scored in place."""
    params, cases = _call_cases(cls, params, prompts, case, fields)
    if len(cases) != 1 or context.deferred is None:
        return None
    evaluator, in_force = _instance(cls, context, params, threshold, thresholds)
    evaluator.resolve_thresholds(in_force)
    evaluator.check_inputs(cases[0])
    context.detector(evaluator, tiers[0])
    context.verifier(evaluator, tiers[1])
    actual = fields.get("actual")
    deferred: Result = context.deferred.add(
        evaluator,
        cases[0],
        in_force,
        action,
        tiers,
        context,
        len(actual) if isinstance(actual, str) else None,
        _caller(),
    )
    return deferred


def _caller() -> str | None:
    """``file:line`` of the test's call of the helper (the first frame outside this package), for a deferred message."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pytest_llmeval."):
        frame = frame.f_back  # type: ignore[assignment]
    return None if frame is None else f"{os.path.relpath(frame.f_code.co_filename)}:{frame.f_lineno}"


def unverified_action(name: str, unverified: str | None) -> str:
    """What an unverified verdict does: the check's ``unverified=``, else the run's ``--llmeval-unverified``, else
    pass."""
    if unverified is None:
        context = current_context()
        return context.unverified if context is not None else "pass"
    if unverified not in UNVERIFIED_ACTIONS:
        raise ValueError(
            f"{name}: argument 'unverified' must be one of {', '.join(map(repr, UNVERIFIED_ACTIONS))}; got "
            f"{unverified!r:.80}"
        )
    return unverified


def _instance(
    cls: type[Evaluator],
    context: TestContext | None,
    params: Mapping[str, Any] | None,
    threshold: float | None,
    thresholds: Mapping[str, float | None] | None,
) -> tuple[Evaluator, dict[str, float | None]]:
    """The session's (outside a test, the process's) instance of ``cls`` with ``params``, and the thresholds in force:
    the call's, then the run's overrides."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"{cls.name}: argument 'params' must be a mapping, got {type(params).__name__}")
    params = dict(params or {})
    evaluator = context.evaluator(cls, params) if context is not None else standalone().evaluator(cls, params)
    overrides = context.threshold_overrides(cls.name) if context is not None else {}
    return evaluator, _thresholds(cls.name, threshold, thresholds, evaluator.active_primary().name, overrides)


def run_cases(
    cls: type[Evaluator],
    cases: list[Case],
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    record: bool = True,
    unverified: str | None = None,
    detector: str | None = None,
    verifier: str | None = None,
) -> list[Result]:
    """Score ``cases`` as one batch with the session's instance of ``cls``; record the results on the test.

    Inside a test, what the check raises becomes the test's outcome (`pytest_llmeval.core.errors`);
    outside one, it propagates.
    """
    name = cls.name
    context = current_context()
    evaluator, in_force = _instance(cls, context, params, threshold, thresholds)
    action = unverified_action(name, unverified)
    if context is None:
        results = evaluator.evaluate(cases, thresholds=in_force, unverified=action)
        for found in (standalone().verifier(evaluator, verifier), standalone().detector(evaluator, detector)):
            results = results if found is None else detect(evaluator, found, cases, results, action)
        return results
    context.prefetch(evaluator, cases)
    import pytest

    # Each outcome is raised after its ``except`` block, so the test's report shows one line, not a chain.
    skip = fail = None
    try:
        results = evaluator.evaluate(cases, thresholds=in_force, unverified=action)
    except CheckUnavailable as exc:
        skip = str(exc)
    except VerdictMissing as exc:
        # Replay-only and a verdict was never recorded: a failure of the check, with its record
        # and the one line that says what to do (not a traceback through the cache).
        if record:
            for result in evaluator.error_results(cases, in_force, f"judge verdict missing: {exc}"):
                context.record(result)
        fail = f"llmeval: {exc}"
    except ScoringError as exc:
        # The scorer failed for good: the check still leaves a record (no scores, not passed, the
        # error as its reason), so the leaderboard and reports count it instead of losing it.
        if record:
            for result in evaluator.error_results(cases, in_force, f"judge error: {exc}"):
                context.record(result)
        raise
    except (SetupError, ImportError) as exc:
        if isinstance(exc, ImportError) and missing_extra(exc) is None:
            raise
        fail = f"llmeval: {exc}"  # a missing extra or model: one line, not a 30-line traceback
    if skip is not None:
        pytest.skip(skip)
    if fail is not None:
        pytest.fail(fail, pytrace=False)
    results = context.calibrated(decide_unverified(evaluator, context, cases, results, action, (detector, verifier)))
    context.mask(masked_values(cases, results))
    if record:
        for result in results:
            context.record(result)
    return results


def masked_values(cases: Sequence[Case], results: Sequence[Result]) -> dict[str, str]:
    """What the checks found and masked in the answers (``details["findings"]`` with the answer's offsets and a masked
    form, as the PII and secret checks give them): each found text -> how the check shows it."""
    found: dict[str, str] = {}
    for case, result in zip(cases, results):
        answer = case.actual or ""
        for item in (result.details.get("findings") or ()) if result.details else ():
            if not isinstance(item, Mapping) or item.get("where") != "answer" or "masked" not in item:
                continue
            start, end = item.get("start"), item.get("end")
            if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(answer):
                found[answer[start:end]] = f"[{item.get('kind', 'masked')}: {item['masked']}]"
    return found


def check_kwargs(kwargs: dict[str, Any], allowed: Sequence[str] = ("question", "model", "metadata", "history")) -> None:
    bad = sorted(
        set(kwargs)
        - set(allowed)
        - {"threshold", "thresholds", "case", "unverified", "prompts", "detector", "verifier"}
    )
    if bad:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(bad)}")


def group_defaults(model: str | None, case: str | None) -> tuple[str | None, str | None]:
    context = current_context()
    if context is None:
        return model, case
    return (model if model is not None else context.model), (
        case if case is not None else (context.case or context.nodeid)
    )


def scorer_argument(helper: str, scorer: str | None, **old: str | None) -> str | None:
    """The model that scores the check: ``scorer=``, or one of the older names (deprecated, warned)."""
    given = {name: value for name, value in old.items() if value is not None}
    for name in given:
        warnings.warn(
            f"{helper}: {name}= is deprecated and goes in the next release; pass scorer= (the model that scores "
            f"the check) instead",
            DeprecationWarning,
            stacklevel=3,
        )
    if scorer is not None and given:
        raise TypeError(
            f"{helper}: give the scoring model once, as scorer=; got scorer= and {', '.join(n + '=' for n in given)}"
        )
    if scorer is not None and not isinstance(scorer, str):
        raise TypeError(
            f"{helper}: argument 'scorer' must be a model name or local folder (str); got {type(scorer).__name__}"
        )
    return scorer if scorer is not None else next(iter(given.values()), None)
