"""deepeval interop: run any deepeval metric as an llmeval check, and hand deepeval our judge.

``pip install 'pytest-llm-verdict[deepeval]'``. deepeval is imported only when one of
these is called. Installing deepeval registers its own pytest plugin, which slows
every pytest start by seconds; switch it off with ``-p no:deepeval`` (our suite's
``addopts`` does).

- `assert_metric()` measures a deepeval metric on one case (built from our case
  fields, or your own ``LLMTestCase``) and records its score like any llmeval check:
  JUnit properties, leaderboards, reports. Pass/fail is the metric's own
  ``is_successful()``; its direction (bias and toxicity metrics pass *below* their
  threshold) is read from that verdict.
- `judge_for_deepeval()` is a ``DeepEvalBaseLLM`` that asks the session's judge,
  so deepeval metrics get our verdict cache (record, replay at zero cost, offline),
  retries, structured output and cost accounting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.result import Result, Signature
from ..judges.base import JudgeParseError

__all__ = ["assert_metric", "measure_metric", "judge_for_deepeval"]


DEEPEVAL_HINT = "deepeval interop needs deepeval: pip install 'pytest-llm-verdict[deepeval]'"


def _deepeval() -> Any:
    try:
        import deepeval
    except ImportError as exc:
        raise ImportError(DEEPEVAL_HINT) from exc
    return deepeval


def _runner_of_current_test() -> Any:
    from .recording import current_context

    context = current_context()
    return context.judge() if context is not None else None


def judge_for_deepeval(runner: Any = None) -> Any:
    """A deepeval model (``DeepEvalBaseLLM``) answering through the llmeval judge and its verdict cache.

    Inside a test it uses the session's judge (``--llmeval-judge-model``); elsewhere pass
    a `JudgeRunner`.
    """
    deepeval = _deepeval()
    from deepeval.models import DeepEvalBaseLLM

    runner = runner if runner is not None else _runner_of_current_test()
    if runner is None:
        raise RuntimeError(
            "judge_for_deepeval(): no judge runner: call it inside a test (the plugin's judge), or pass runner="
        )
    version = getattr(deepeval, "__version__", "unknown")

    class LLMEvalJudge(DeepEvalBaseLLM):
        """deepeval's model interface over the llmeval judge runner."""

        def __init__(self) -> None:
            self.runner = runner
            judge = runner.judge
            super().__init__(f"llmeval:{getattr(judge, 'model', 'unconfigured')}")

        def load_model(self, *args: Any, **kwargs: Any) -> Any:
            return self.runner

        def get_model_name(self, *args: Any, **kwargs: Any) -> str:
            return str(self.name)

        def generate(self, prompt: str, schema: Any = None, **kwargs: Any) -> Any:
            name = getattr(schema, "__name__", "text")
            json_schema = schema.model_json_schema() if schema is not None else None

            def parse(reply: Any) -> Any:
                try:
                    return schema.model_validate(reply.json())
                except ValueError as exc:  # pydantic's ValidationError and JudgeParseError are ValueErrors
                    raise JudgeParseError(
                        f"deepeval {name}: the judge's reply does not fit the schema: {str(exc)[:300]}"
                    ) from None

            reply = self.runner.reply(
                evaluator="deepeval",
                version=version,
                template=f"deepeval {name}",
                messages=[{"role": "user", "content": prompt}],
                schema=json_schema,
                what=f"deepeval {name}",
                parse=None if schema is None else parse,
            )
            if schema is None:
                return reply.text
            try:
                return parse(reply)
            except JudgeParseError:
                self.runner.count_parse_failure("deepeval")
                raise

        async def a_generate(self, prompt: str, schema: Any = None, **kwargs: Any) -> Any:
            return self.generate(prompt, schema)

    return LLMEvalJudge()


def _metric_name(metric: Any) -> str:
    name = getattr(metric, "name", None) or getattr(metric, "__name__", None) or type(metric).__name__
    return str(name)


_CASE_FIELDS = ("actual", "question", "expected", "context")


def _test_case(test_case: Any, fields: Mapping[str, Any]) -> Any:
    """``test_case`` as given, or an ``LLMTestCase`` from our case fields; other keywords go to ``LLMTestCase``."""
    extra = {k: v for k, v in fields.items() if k not in _CASE_FIELDS}
    if test_case is not None:
        if extra or any(fields.get(k) is not None for k in _CASE_FIELDS):
            raise TypeError(
                "assert_metric: pass either test_case= or the case fields (actual, question, ...), not both"
            )
        return test_case
    from deepeval.test_case import LLMTestCase

    expected = fields.get("expected")
    if isinstance(expected, (list, tuple)):
        expected = expected[0] if expected else None
    context = fields.get("context")
    if isinstance(context, str):
        context = [context]
    return LLMTestCase(
        input=fields.get("question") or "",
        actual_output=fields.get("actual"),
        expected_output=expected,
        retrieval_context=list(context) if context is not None else None,
        **extra,
    )


def measure_metric(
    metric: Any,
    *,
    test_case: Any = None,
    model: str | None = None,
    case: str | None = None,
    record: bool = True,
    **fields: Any,
) -> Result:
    """Measure a deepeval ``metric`` and return (and, in a test, record) its `Result`, without asserting."""
    deepeval = _deepeval()
    if not callable(getattr(metric, "measure", None)):
        raise TypeError(
            f"assert_metric: argument 'metric' must be a deepeval metric (with .measure()); got {type(metric).__name__}"
        )
    llm_case = _test_case(test_case, fields)
    from .check import group_defaults
    from .recording import current_context
    from ..judges.runner import JudgeUnavailable

    context = current_context()
    runner = _runner_of_current_test()
    model, case = group_defaults(model, case)
    name = _metric_name(metric)
    try:
        if runner is not None:
            with runner.metered() as usage:
                metric.measure(llm_case)
            details: dict[str, Any] = {"judge": usage.as_dict()}
        else:
            metric.measure(llm_case)
            details = {}
    except JudgeUnavailable as exc:
        if context is None:
            raise
        import pytest

        pytest.skip(str(exc))
    score = None if metric.score is None else float(metric.score)
    threshold = getattr(metric, "threshold", None)
    success = bool(metric.is_successful()) if callable(getattr(metric, "is_successful", None)) else bool(metric.success)
    # deepeval does not say which way a metric points; its own verdict does: a pass below the threshold means lower is
    # better.
    higher = True if score is None or threshold is None or score == threshold else (score > threshold) == success
    judge_model = getattr(metric, "evaluation_model", None)
    signature = Signature(
        evaluator="deepeval",
        version=str(getattr(deepeval, "__version__", "unknown")),
        backend=f"deepeval {getattr(deepeval, '__version__', 'unknown')}",
        model=str(judge_model) if judge_model else None,
        params={
            "metric": name,
            "class": type(metric).__name__,
            "strict_mode": bool(getattr(metric, "strict_mode", False)),
        },
    )
    thresholds = {"score": float(threshold)} if threshold is not None else {}
    if getattr(metric, "error", None):
        details["error"] = str(metric.error)[:500]
    actual = getattr(llm_case, "actual_output", None)
    result = Result(
        evaluator="deepeval",
        metrics={"score": score},
        primary="score",
        passed=success and score is not None,
        thresholds=thresholds,
        higher_is_better={"score": higher},
        signature=signature,
        reason=f"{name}: {metric.reason}" if getattr(metric, "reason", None) else name,
        details=details,
        model=model,
        case_id=case,
        excerpt=actual[:300] if isinstance(actual, str) else None,
    )
    if record and context is not None:
        context.record(result)
    return result


def assert_metric(
    metric: Any,
    *,
    test_case: Any = None,
    model: str | None = None,
    case: str | None = None,
    actual: str | None = None,
    question: str | None = None,
    expected: Any = None,
    context: Sequence[str] | str | None = None,
    **extra: Any,
) -> Result:
    """Run a deepeval metric as an llmeval check: record its score, fail with an actionable message.

    The case comes from ``test_case`` (a ``deepeval.test_case.LLMTestCase``) or is built
    from ``actual``, ``question``, ``expected`` and ``context`` (deepeval's
    ``retrieval_context``); other keywords (``tools_called=...``) go to ``LLMTestCase``.
    """
    __tracebackhide__ = True
    from .check import raise_failure
    from .message import format_failure, missing_extra

    said: str | None = None
    try:
        result = measure_metric(
            metric,
            test_case=test_case,
            model=model,
            case=case,
            actual=actual,
            question=question,
            expected=expected,
            context=context,
            **extra,
        )
    except ImportError as exc:
        said = missing_extra(exc)
        if said is None:
            raise
    if said is not None:  # outside the except: one line, as every missing extra is said, with no chained traceback
        import pytest

        pytest.fail(said, pytrace=False)
    if not result.passed:
        raise_failure(result, format_failure(result))
    return result
