"""Checks by the names users type: ``evaluate("groundedness", ...)`` and ``assert_check("rouge", ...)``.

The name resolves through the registry (built-in checks, entry points, the ``pytest_llmeval_register_evaluators``
hook): inside a test the session's, outside one a registry of the process. Then the check class runs as any
helper runs it (`pytest_llmeval.run.check.check()`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..run.check import CASE_ARGUMENTS, check, run_cases, run_check
from ..run.recording import current_context

if TYPE_CHECKING:
    from ..core.case import Case
    from ..core.evaluator import Evaluator
    from ..core.result import Result
    from .registry import Registry

__all__ = ["evaluate", "evaluate_many", "assert_check", "resolve", "process_registry", "calibrate"]


@functools.lru_cache(maxsize=1)
def process_registry() -> Registry:
    """Outside pytest: one registry for the process (built-in checks and entry points)."""
    from .registry import Registry

    return Registry()


def resolve(name: str) -> type[Evaluator]:
    """The check class registered under ``name``: the session's registry inside a test, else the process's."""
    if not isinstance(name, str):
        raise TypeError(
            f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}"
        )
    context = current_context()
    resolver = getattr(context, "resolve", None)
    return resolver(name) if resolver is not None else process_registry().resolve(name)


def evaluate(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    record: bool = True,
    unverified: str | None = None,
    detector: str | None = None,
    verifier: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` on one case and return the result without asserting.

    ``fields`` are case fields (``actual``, ``expected``, ``question``, ``context``,
    ``conditions``, ``history``, ``model``, ``metadata``); ``params`` go to the
    evaluator. Inside a test the result is recorded unless ``record=False``.
    ``unverified`` (``pass``, ``fail``, ``skip``; default ``--llmeval-unverified``) is
    what an unverified verdict makes of ``passed`` (``skip`` passes it here). ``detector``
    (``FAMILY:MODEL``) decides the unverified answers of a check that reads an answer against its context, after the
    claim verifier when ``verifier`` (``on``, ``off`` or a folder; default ``--llmeval-verifier``) switches it on.
    ``classification`` also takes label lists (``actual=predicted, expected=truth``, and
    ``metadata={"scores": [...], "ids": [...]}``), as ``assert_classification`` does.

    >>> evaluate("exact_match", actual="4", expected=["4", "four"]).passed
    True
    """
    return run_check(
        resolve(name),
        threshold=threshold,
        thresholds=thresholds,
        params=params,
        case=case,
        record=record,
        unverified=unverified,
        detector=detector,
        verifier=verifier,
        **fields,
    )


def assert_check(
    name: str,
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    case: str | None = None,
    unverified: str | None = None,
    detector: str | None = None,
    verifier: str | None = None,
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` and fail the test if the case misses a threshold.

    The generic form of every ``assert_*`` helper, for any registered evaluator:
    ``assert_check("rouge", actual=answer, expected=reference, threshold=0.4)``.
    An unverified verdict passes the test, fails it or skips it as ``unverified``
    (``pass``, ``fail``, ``skip``) says, else as ``--llmeval-unverified`` does.
    """
    __tracebackhide__ = True
    return check(
        resolve(name),
        threshold=threshold,
        thresholds=thresholds,
        params=params,
        case=case,
        unverified=unverified,
        detector=detector,
        verifier=verifier,
        **fields,
    )


def evaluate_many(
    name: str,
    cases: Iterable[Case | Mapping[str, Any]],
    *,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    params: Mapping[str, Any] | None = None,
    record: bool = True,
    unverified: str | None = None,
    detector: str | None = None,
    verifier: str | None = None,
) -> list[Result]:
    """Run evaluator ``name`` on many cases as one batch (one encode, one parse, one judge fan-out) and return their
    results in order, without asserting: what `evaluate()` does for one case, for a notebook or a script scoring a set.

    ``cases``: `pytest_llmeval.Case` objects, or mappings of case fields (``{"actual": ..., "context": [...]}``, with
    an optional ``case_id``). Inside a test every result is recorded unless ``record=False``.

    >>> cases = [{"actual": "4", "expected": ["4"]}, {"actual": "5", "expected": ["4"]}]
    >>> [r.passed for r in evaluate_many("exact_match", cases)]
    [True, False]
    """
    from ..core.case import Case

    cls = resolve(name)
    built: list[Case] = []
    for index, item in enumerate(cases):
        if isinstance(item, Case):
            built.append(item)
            continue
        if not isinstance(item, Mapping):
            raise TypeError(
                f"{name}: argument 'cases'[{index}] must be a Case or a mapping of case fields; got "
                f"{type(item).__name__}"
            )
        fields = dict(item)
        case_id = fields.pop("case_id", None)
        unknown = sorted(set(fields) - set(CASE_ARGUMENTS))
        if unknown:
            raise TypeError(
                f"{name}: argument 'cases'[{index}] has unknown field(s) {', '.join(unknown)}; case fields are "
                f"{', '.join(CASE_ARGUMENTS)} (and case_id)"
            )
        made = cls.cases_from(fields, None if case_id is None else str(case_id))
        if len(made) != 1:
            raise TypeError(f"{name}: reads a set of cases from one call; use evaluate() for it, not evaluate_many()")
        built.extend(made)
    if not built:
        return []
    return run_cases(
        cls,
        built,
        threshold=threshold,
        thresholds=thresholds,
        params=params,
        record=record,
        unverified=unverified,
        detector=detector,
        verifier=verifier,
    )


def calibrate(
    labels: str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    *,
    check: str | None = None,
    params: Mapping[str, Any] | None = None,
    target_precision: float = 0.9,
) -> dict[str, dict[str, Any]]:
    """Each labeled row's check run on it, summed up against the labels: one calibration entry per check signature
    (rows, agreement, Cohen's kappa and its interval, good failed, bad caught, failure precision, unverified share,
    per tier, cost, and a threshold suggestion for a score), as ``pytest --llmeval-calibrate`` writes them.

    ``labels``: a file in the format `cases()` reads, or its rows as dicts, each with ``label`` (``good`` or ``bad``)
    and the ``check`` it calibrates (else ``check=``). Outside pytest the checks run as `evaluate()` runs them there
    (the process's models; a judge check needs a running session's judge, so calibrate judges with pytest).

    >>> rows = [{"id": f"q{i}", "actual_output": a, "expected_output": "Paris", "label": l}
    ...         for i, (a, l) in enumerate([("Paris", "good"), ("Lyon", "bad"), ("Paris", "bad"), ("Paris", "good")])]
    >>> [entry] = calibrate(rows, check="exact_match").values()
    >>> entry["rows"], entry["bad_caught"], entry["good_failed"], entry["agreement"]
    (4, 1, 0, 0.75)
    """
    import time

    from ..core.case import check_fields, parse_case_rows, read_case_rows
    from ..report.calibration import calibrate as summarize

    extra = ("label", "check")
    if isinstance(labels, (str, os.PathLike)):
        rows = read_case_rows(labels, extra=extra)
    else:
        rows = parse_case_rows(((f"row {i + 1}", row) for i, row in enumerate(labels)), extra=extra)
    records = []
    for index, (where, case, found) in enumerate(rows):
        label, name = str(found.get("label", "")).strip().lower(), str(found.get("check") or check or "").strip()
        if label not in ("good", "bad") or not name:
            raise ValueError(
                f"{where}: a labeled row needs 'label' (good or bad) and a check ('check', or calibrate(check=...)); "
                f"got label {found.get('label')!r:.40} and check {name!r:.40}"
            )
        started = time.perf_counter()
        result = run_check(
            resolve(name), params=params, case=case.case_id or f"row{index + 1}", record=False, **check_fields(case)
        )
        records.append(
            {**result.to_dict(), "tags": {"label": label, "seconds": round(time.perf_counter() - started, 4)}}
        )
    return summarize(records, target_precision=target_precision)
