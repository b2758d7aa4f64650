"""Assertion helpers: score, record on the current test, fail with an actionable message.

Each ``assert_*`` helper wraps one evaluator. On success it returns the
:class:`~pytest_llmeval.result.Result`; on failure it raises
:class:`LLMEvalAssertionError` (an ``AssertionError``) whose message shows each
metric against its threshold, the evidence, the model and case, and the
signature. Every helper takes these keyword arguments besides its own:

- ``threshold``: threshold of the primary metric for this call;
- ``thresholds``: ``{metric: value}`` for any metric (``None`` switches one off);
- ``model``, ``case``: the model under test and the case id (default: from the
  ``llmeval`` marker or fixture);
- ``question``, ``metadata``: recorded with the case.

Threshold precedence: this call, then ``--llmeval-threshold``, then the
``llmeval_thresholds`` ini option, then the catalog default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .case import Case
from .recording import current_context
from .result import Result

__all__ = [
    "LLMEvalAssertionError",
    "evaluate",
    "assert_check",
    "assert_matches",
    "assert_json",
    "assert_no_pii",
    "assert_no_sensitive_data",
    "assert_no_pii_presidio",
    "assert_no_encoded_leak",
    "assert_not_looping",
    "assert_rouge",
    "assert_bleu",
    "assert_exact_match",
    "assert_edit_distance",
    "format_failure",
    "assert_grounded",
    "assert_accurate",
    "assert_similar",
    "assert_similar_sentences",
    "assert_relevant",
    "assert_context_relevant",
    "assert_context_ranked",
    "assert_bertscore",
    "assert_self_consistent",
    "assert_no_question_drift",
    "assert_steps_aligned",
    "assert_not_toxic",
    "assert_sentiment",
    "assert_unbiased",
    "assert_no_prompt_injection",
    "assert_no_hallucination",
    "assert_fluent",
    "assert_good_summary",
    "assert_gptscore",
    "assert_faithful",
    "assert_context_precision",
    "assert_context_recall",
    "assert_answer_correct",
    "assert_answer_relevant",
    "assert_ragas",
    "assert_correct",
    "assert_bucket",
    "assert_coherent_summary",
    "assert_no_contact_info",
    "assert_same_language",
    "assert_not_sexist",
    "assert_no_stereotypes",
    "assert_good_summary_judged",
    "assert_unbiased_opinions",
    "assert_non_toxic_opinions",
    "assert_prompt",
    "assert_geval",
    "assert_dag",
    "assert_summary_qag",
    "assert_task_completed",
    "assert_self_checked",
]

_CASE_FIELDS = ("actual", "expected", "question", "context", "conditions", "history", "model", "metadata")


class LLMEvalAssertionError(AssertionError):
    """An llmeval check failed; ``result`` holds the scores and evidence."""

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        self.result = result


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0f}" if value == int(value) and abs(value) > 1 else f"{value:.3f}"


def format_failure(result: Result, length: int | None = None) -> str:
    """The message of a failed check."""
    lines = []
    failed = result.failed_metrics()
    if failed:
        checks = []
        for metric in failed:
            sign = "<" if result.higher_is_better.get(metric, True) else ">"
            checks.append(f"{metric} {_fmt(result.metrics[metric])} {sign} threshold {_fmt(result.thresholds[metric])}")
        lines.append(f"llmeval {result.evaluator} failed: " + "; ".join(checks))
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
    from .text import replace_surrogates

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
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` on one case and return the result without asserting.

    ``fields`` are case fields (``actual``, ``expected``, ``question``, ``context``,
    ``conditions``, ``history``, ``model``, ``metadata``); ``params`` go to the
    evaluator. Inside a test the result is recorded unless ``record=False``.

    >>> evaluate("exact_match", actual="4", expected=["4", "four"]).passed
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}")
    unknown = sorted(set(fields) - set(_CASE_FIELDS))
    if unknown:
        raise TypeError(
            f"{name}: unknown argument(s) {', '.join(unknown)}; case fields are {', '.join(_CASE_FIELDS)} "
            f"and evaluator parameters go in params={{...}}"
        )
    fields["model"], case = _group_defaults(fields.get("model"), case)
    [result] = _run(name, [Case(case_id=case, **fields)], threshold, thresholds, params, record)
    return result


def _run(
    name: str,
    cases: list[Case],
    threshold: float | None,
    thresholds: Mapping[str, float | None] | None,
    params: Mapping[str, Any] | None,
    record: bool,
) -> list[Result]:
    """Score ``cases`` as one batch with the session's evaluator; record the results on the test."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"{name}: argument 'params' must be a mapping, got {type(params).__name__}")
    context = current_context()
    params = dict(params or {})
    if context is not None:
        evaluator = context.evaluator(name, params)
        session_thresholds = context.threshold_overrides(name)
    else:
        from .registry import Registry

        evaluator = Registry().create(name, **params)
        session_thresholds = {}
    in_force = _thresholds(name, threshold, thresholds, evaluator.active_primary().name, session_thresholds)
    if getattr(evaluator, "needs_judge", False):
        from .judges.base import JudgeError
        from .judges.cache import ReplayMiss
        from .judges.runner import JudgeUnavailable

        try:
            results = evaluator.evaluate(cases, thresholds=in_force)
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
            results = evaluator.evaluate(cases, thresholds=in_force)
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
    from .models import ModelLoadError

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
    **fields: Any,
) -> Result:
    """Run evaluator ``name`` and fail the test if the case misses a threshold.

    The generic form of every ``assert_*`` helper, for any registered evaluator:
    ``assert_check("rouge", actual=answer, expected=reference, threshold=0.4)``.
    """
    __tracebackhide__ = True
    result = evaluate(name, threshold=threshold, thresholds=thresholds, params=params, case=case, **fields)
    if not result.passed:
        actual = fields.get("actual")
        raise LLMEvalAssertionError(format_failure(result, len(actual) if isinstance(actual, str) else None), result)
    return result


def _common(kwargs: dict[str, Any], allowed: Sequence[str] = ("question", "model", "metadata", "history")) -> None:
    bad = sorted(set(kwargs) - set(allowed) - {"threshold", "thresholds", "case"})
    if bad:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(bad)}")


def assert_matches(actual: str, condition: str, *, context: Any = None, evaluate_context: bool = True, **kwargs: Any) -> Result:
    """The answer (and context, if given) satisfies a condition like ``'"15,969" AND NOT "Real"'``.

    Quoted strings are substrings, ``regexp("...")`` is :func:`re.search`;
    combine with AND, OR, NOT and parentheses.
    """
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check(
        "text_matching", actual=actual, conditions=condition, context=context,
        params={"evaluate_context": evaluate_context}, **kwargs,
    )


def assert_json(
    actual: str, schema: Any = None, *, strip_fences: bool = True, allow_remote_refs: bool = False, **kwargs: Any
) -> Result:
    """The answer parses as JSON and follows ``schema`` (a JSON Schema; ``None`` or ``{}``: any JSON).

    ``$ref`` resolves inside the schema only; ``allow_remote_refs=True`` lets it fetch URLs.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"schema": {} if schema is None else schema, "strip_fences": strip_fences, "allow_remote_refs": allow_remote_refs}
    return assert_check("json_schema", actual=actual, params=params, **kwargs)


def assert_no_pii(
    actual: str, *, context: Any = None, kinds: Any = None, allow: Any = (), evaluate_context: bool = True, **kwargs: Any
) -> Result:
    """No e-mail, card number, SSN, phone number, IBAN or IP address in the answer (or context)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"kinds": kinds, "allow": allow, "evaluate_context": evaluate_context}
    return assert_check("pii_leakage", actual=actual, context=context, params=params, **kwargs)


def assert_no_pii_presidio(
    actual: str, *, context: Any = None, entities: Any = None, score_threshold: float = 0.5, evaluate_context: bool = True,
    **kwargs: Any,
) -> Result:
    """No PII by Microsoft Presidio (names, locations, contacts, IDs) in the answer (or context); the detail has an anonymised text."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"entities": entities, "score_threshold": score_threshold, "evaluate_context": evaluate_context}
    return assert_check("pii_presidio", actual=actual, context=context, params=params, **kwargs)


def assert_no_sensitive_data(
    actual: str, *, context: Any = None, kinds: Any = None, allow: Any = (), evaluate_context: bool = True, **kwargs: Any
) -> Result:
    """No private key, certificate, API key, cloud key, token, product key or password in the answer (or context)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"kinds": kinds, "allow": allow, "evaluate_context": evaluate_context}
    return assert_check("sensitive_data", actual=actual, context=context, params=params, **kwargs)


def assert_no_encoded_leak(
    actual: str,
    *,
    conditions: str | None = None,
    context: Any = None,
    encoding: str = "auto",
    evaluate_context: bool = True,
    **kwargs: Any,
) -> Result:
    """Base16/base64 parts of the answer, decoded, satisfy ``conditions`` (else hold no PII)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"encoding": encoding, "evaluate_context": evaluate_context}
    return assert_check("encoding_guardrail", actual=actual, conditions=conditions, context=context, params=params, **kwargs)


def assert_not_looping(actual: str, **kwargs: Any) -> Result:
    """The answer does not repeat itself (unique sentences; optionally repeated substrings, compressibility)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("looping", actual=actual, **kwargs)


def assert_rouge(actual: str, expected: Any, *, use_stemmer: bool = False, split_summaries: bool = True, **kwargs: Any) -> Result:
    """ROUGE against the expected answer(s); primary metric ROUGE-L F1."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"use_stemmer": use_stemmer, "split_summaries": split_summaries}
    return assert_check("rouge", actual=actual, expected=expected, params=params, **kwargs)


def assert_bleu(
    actual: str, expected: Any, *, smoothing: str = "method1", weights: Any = None, lowercase: bool = False, **kwargs: Any
) -> Result:
    """Sentence BLEU against the expected answer(s); primary metric BLEU-1."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"smoothing": smoothing, "weights": weights, "lowercase": lowercase}
    return assert_check("bleu", actual=actual, expected=expected, params=params, **kwargs)


def assert_exact_match(
    actual: str,
    expected: Any,
    *,
    ignore_case: bool = False,
    ignore_whitespace: bool = True,
    ignore_punctuation: bool = False,
    **kwargs: Any,
) -> Result:
    """The answer equals one of the expected answers after normalisation."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"ignore_case": ignore_case, "ignore_whitespace": ignore_whitespace, "ignore_punctuation": ignore_punctuation}
    return assert_check("exact_match", actual=actual, expected=expected, params=params, **kwargs)


def assert_edit_distance(
    actual: str,
    expected: Any,
    *,
    ignore_case: bool = False,
    ignore_whitespace: bool = True,
    ignore_punctuation: bool = False,
    **kwargs: Any,
) -> Result:
    """Character-level similarity (1 - normalised Levenshtein distance) to the expected answer(s)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"ignore_case": ignore_case, "ignore_whitespace": ignore_whitespace, "ignore_punctuation": ignore_punctuation}
    return assert_check("edit_distance", actual=actual, expected=expected, params=params, **kwargs)


# -- embedding checks (pytest-llmeval[embeddings]) ---------------------------------------


def assert_grounded(
    actual: str, context: Any, *, method: str = "facts", entities: str = "auto", short_answer_words: int = 5,
    nli_model: str | None = None, model: str | None = None, embedding_model: str | None = None, **kwargs: Any,
) -> Result:
    """The answer's facts are stated in the context and every sentence is close to it (groundedness).

    ``method="facts"`` (default): a number, date or name of the answer that the
    context does not state fails the check and is named (``'Mumbai' (sentence 1)
    appears nowhere in the context``), and each sentence's support (similarity plus
    word support) must reach the threshold calibrated for the embedding model
    (0.70 for the embedded all-MiniLM-L6-v2). Pass ``question=`` too: a short
    answer is then judged as the claim question and answer make together.
    ``method="embeddings"``: the catalog's embedding groundedness alone (0.75).
    ``method="nli"``: the fact layer plus the NLI cross-encoder ``nli_model``.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": embedding_model, "method": method, "entities": entities, "short_answer_words": short_answer_words,
              "nli_model": nli_model}
    return assert_check("groundedness", actual=actual, context=context, model=model, params=params, **kwargs)


def assert_accurate(
    actual: str,
    expected: Any,
    *,
    short_string_metric: str = "normalized_edit_distance",
    short_string_threshold: int = 10,
    facts: bool = True,
    entities: str = "auto",
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The least accurate answer sentence is close to the expected answer, and its facts agree (answer accuracy).

    Short answers (both at most ``short_string_threshold`` characters) are scored by
    ``short_string_metric`` instead: ``normalized_edit_distance``, ``exact_match``,
    ``token_jaccard`` or ``embeddings``. With ``facts=True`` a number, date or name
    that the expected answer does not state fails the check and is named.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": embedding_model, "short_string_metric": short_string_metric, "short_string_threshold": short_string_threshold,
              "facts": facts, "entities": entities}
    return assert_check("answer_accuracy", actual=actual, expected=expected, params=params, **kwargs)


def assert_similar(
    actual: str, expected: Any, *, method: str = "embeddings", cross_encoder: str | None = None,
    facts: bool = True, entities: str = "auto", embedding_model: str | None = None, **kwargs: Any,
) -> Result:
    """The answer means the same as the expected answer, and its facts agree (semantic similarity).

    ``method="cross-encoder"`` scores the pair with the ``cross_encoder`` model instead
    of embeddings. With ``facts=True`` ("The capital is Sydney" vs "... Canberra")
    a number, date or name that the expected answer does not state fails the check.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": embedding_model, "method": method, "cross_encoder": cross_encoder, "facts": facts, "entities": entities}
    return assert_check("semantic_similarity", actual=actual, expected=expected, params=params, **kwargs)


def assert_similar_sentences(actual: str, expected: Any, *, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """Answer sentences are close to expected sentences (mean similarity 0.75; ``thresholds`` for the minimum)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("semantic_sentence_similarity", actual=actual, expected=expected, params={"model": embedding_model}, **kwargs)


def assert_relevant(actual: str, question: str, *, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """Some answer sentence is close to the question (answer relevancy, 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    return assert_check("answer_relevancy_similarity", actual=actual, question=question, params={"model": embedding_model}, **kwargs)


def assert_context_relevant(question: str, context: Any, *, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """The retrieved context is relevant to the question (soft recall 0.75; ``thresholds`` for precision)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("context_relevancy", question=question, context=context, params={"model": embedding_model}, **kwargs)


def assert_context_ranked(
    question: str, context: Any, *, relevance_threshold: float = 0.7, out_of_range_rank: int = 10,
    embedding_model: str | None = None, **kwargs: Any,
) -> Result:
    """The first relevant chunk is ranked high (reciprocal rank, 0.75: the first chunk must be relevant)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    params = {"model": embedding_model, "relevance_threshold": relevance_threshold, "out_of_range_rank": out_of_range_rank}
    return assert_check("context_mrr", question=question, context=context, params=params, **kwargs)


def assert_bertscore(
    actual: str, expected: Any, *, idf: bool = False, bertscore_model: str | None = None, **kwargs: Any
) -> Result:
    """BERTScore F1 against the expected answer(s) (default threshold 0.75; precision and recall via ``thresholds``)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("bertscore", actual=actual, expected=expected, params={"model": bertscore_model, "idf": idf}, **kwargs)


def _group_defaults(model: str | None, case: str | None) -> tuple[str | None, str | None]:
    context = current_context()
    if context is None:
        return model, case
    return (model if model is not None else context.model), (case if case is not None else (context.case or context.nodeid))


def assert_self_consistent(
    answers: Sequence[str],
    *,
    question: str | None = None,
    threshold: float | None = None,
    thresholds: Mapping[str, float | None] | None = None,
    max_group_size: int = 100,
    use_stemmer: bool = False,
    model: str | None = None,
    case: str | None = None,
) -> list[Result]:
    """Answers one model gave to the same question agree with each other (mean pairwise ROUGE-L, 0.75).

    Records one result per answer; fails naming the least consistent answer.
    """
    __tracebackhide__ = True
    if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence) or not answers:
        raise TypeError(f"assert_self_consistent: argument 'answers' must be a non-empty list of str; got {type(answers).__name__}")
    bad = next((i for i, a in enumerate(answers) if not isinstance(a, str)), None)
    if bad is not None:
        raise TypeError(f"assert_self_consistent: argument 'answers' must hold str; answers[{bad}] is {type(answers[bad]).__name__}")
    model, case = _group_defaults(model, case)
    cases = [Case(actual=a, question=question, model=model, case_id=case) for a in answers]
    params = {"max_group_size": max_group_size, "use_stemmer": use_stemmer}
    results = _run("self_consistency", cases, threshold, thresholds, params, True)
    failed = [i for i, r in enumerate(results) if not r.passed]
    if failed:
        worst = min(failed, key=lambda i: results[i].score if results[i].score is not None else -1.0)
        message = format_failure(results[worst], len(answers[worst]))
        raise LLMEvalAssertionError(f"{message}\n  {len(failed)} of {len(answers)} answers below the threshold; least consistent: #{worst}", results[worst])
    return results


def assert_no_question_drift(
    questions: Sequence[str],
    *,
    split_ratio: float = 0.5,
    min_cases: int = 10,
    threshold: float | None = None,
    embedding_model: str | None = None,
    case: str | None = None,
) -> Result:
    """The later questions mean the same kind of thing as the earlier ones (centroid cosine distance, 0.1).

    ``questions`` must be in chronological order. Records one result for the set.
    """
    __tracebackhide__ = True
    if isinstance(questions, str) or not isinstance(questions, Sequence) or not questions:
        raise TypeError("assert_no_question_drift: argument 'questions' must be a non-empty sequence of str")
    _, case = _group_defaults(None, case)
    # None and empty questions are left out, as the catalog does; the rest must be str.
    cases = [Case(question=q, case_id=case) for q in questions if q is not None and q != ""] or [Case(question="", case_id=case)]
    evaluator_params = {"model": embedding_model, "split_ratio": split_ratio, "min_cases": min_cases}
    # Drift is one number for the whole set: every case gets it, one result is recorded.
    result = _run("questions_drift", cases, threshold, None, evaluator_params, False)[0]
    context = current_context()
    if context is not None:
        context.record(result)
    if not result.passed:
        raise LLMEvalAssertionError(format_failure(result), result)
    return result


def assert_steps_aligned(
    actual: str, context: Any, *, match_threshold: float = 0.7, embedding_model: str | None = None, **kwargs: Any
) -> Result:
    """The answer gives the procedure of the retrieved context: all steps, in order (edits, 0.75: none allowed)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": embedding_model, "match_threshold": match_threshold}
    return assert_check("step_alignment", actual=actual, context=context, params=params, **kwargs)


# -- classifier checks (pytest-llmeval[toxicity], [sentiment]) ------------------------------


def assert_not_toxic(
    actual: str, *, backend: str = "auto", checkpoint: str | None = None, config_path: str | None = None, **kwargs: Any
) -> Result:
    """No sentence of the answer is toxic (max toxicity over sentences, default threshold 0.75).

    ``backend="auto"``: detoxify when ``checkpoint`` is given, else the offline
    profanity-check model. The failure names the most toxic sentence and category.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"backend": backend, "checkpoint": checkpoint, "config_path": config_path}
    return assert_check("toxicity", actual=actual, params=params, **kwargs)


def assert_sentiment(
    actual: str, *, backend: str = "vader", classifier: str | None = None, positive_label: str = "POSITIVE", **kwargs: Any
) -> Result:
    """The answer's sentiment is at least the threshold (default -0.05: not negative; scale -1..1)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"backend": backend, "model": classifier, "positive_label": positive_label}
    return assert_check("sentiment", actual=actual, params=params, **kwargs)


def assert_unbiased(actual: str, *, classifier: str | None = None, **kwargs: Any) -> Result:
    """No gender, racial or political bias (reference classifier d4data/bias-detection-model; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("fairness_bias", actual=actual, params={"model": classifier}, **kwargs)


def assert_no_prompt_injection(question: str, *, classifier: str | None = None, **kwargs: Any) -> Result:
    """The prompt is not an injection attempt (reference deepset/deberta-v3-base-injection; threshold 0.5)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("prompt_injection", question=question, params={"model": classifier}, **kwargs)


def assert_no_hallucination(
    actual: str, context: Any, *, method: str = "hhem", nli_model: str | None = None, entities: str = "auto", **kwargs: Any
) -> Result:
    """The answer is supported by a context chunk (HHEM or NLI factual consistency, threshold 0.75), and so are its facts."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"method": method, "model": nli_model, "entities": entities}
    return assert_check("hallucination", actual=actual, context=context, params=params, **kwargs)


def assert_fluent(actual: str, *, language_model: str | None = None, **kwargs: Any) -> Result:
    """The answer's perplexity under a language model is at most the threshold (default 200)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("perplexity", actual=actual, params={"model": language_model}, **kwargs)


def assert_good_summary(summary: str, source: str, *, nli_model: str | None = None, **kwargs: Any) -> Result:
    """The summary covers its source (geometric completeness, 0.75) and is entailed by it (``thresholds`` for faithfulness)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    params = {} if nli_model is None else {"nli_model": nli_model}
    return assert_check("summarization", actual=summary, question=source, params=params, **kwargs)


def assert_gptscore(kind: str, actual: str, *, language_model: str | None = None, **kwargs: Any) -> Result:
    """GPTScore of ``kind`` (``summary_ref``, ``summary``, ``translation`` or ``qa``); records scores, gates only with a threshold.

    Pass ``expected=`` for ``summary_ref`` and ``translation``, ``question=`` for ``summary`` and ``qa``.
    """
    __tracebackhide__ = True
    kinds = ("summary_ref", "summary", "translation", "qa")
    if kind not in kinds:
        raise ValueError(f"assert_gptscore: argument 'kind' must be one of {', '.join(kinds)}; got {kind!r}")
    _common(kwargs, allowed=("model", "metadata", "history", "question", "expected"))
    return assert_check(f"gptscore_{kind}", actual=actual, params={"model": language_model}, **kwargs)


# -- LLM-judge checks (pytest-llmeval[judge]) ---------------------------------------------


def assert_faithful(actual: str, context: Any, *, unknown_claims: str = "unsupported", **kwargs: Any) -> Result:
    """The context supports the answer's claims (LLM judge; threshold 0.75). Skipped when no judge is configured."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("faithfulness", actual=actual, context=context, params={"unknown_claims": unknown_claims}, **kwargs)


def assert_context_precision(question: str, expected: Any, context: Any, **kwargs: Any) -> Result:
    """Chunks useful for the expected answer are ranked first (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("context_precision", question=question, expected=expected, context=context, **kwargs)


def assert_context_recall(expected: Any, context: Any, **kwargs: Any) -> Result:
    """The context holds the expected answer's statements (LLM judge; threshold 0.75; best of several expected answers)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual", "question"))
    return assert_check("context_recall", expected=expected, context=context, **kwargs)


def assert_answer_correct(
    actual: str, expected: Any, *, f1_weight: float = 0.75, similarity_weight: float = 0.25, **kwargs: Any
) -> Result:
    """Statement F1 against the expected answer blended with embedding similarity (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"f1_weight": f1_weight, "similarity_weight": similarity_weight}
    return assert_check("answer_correctness", actual=actual, expected=expected, params=params, **kwargs)


def assert_answer_relevant(actual: str, question: str, *, method: str = "questions", n: int = 3, **kwargs: Any) -> Result:
    """The answer addresses the question (LLM judge; threshold 0.75): generated questions' similarity (RAGAS) or relevant statements."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    return assert_check("answer_relevancy_judge", actual=actual, question=question, params={"method": method, "n": n}, **kwargs)


def assert_ragas(actual: str, question: str, expected: Any, context: Any, *, unknown_claims: str = "unsupported", **kwargs: Any) -> Result:
    """Harmonic mean of faithfulness, answer relevancy, context precision and recall (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    return assert_check("ragas", actual=actual, question=question, expected=expected, context=context,
                        params={"unknown_claims": unknown_claims}, **kwargs)


def assert_correct(actual: str, expected: Any, **kwargs: Any) -> Result:
    """Correct against the reference on the 1-5 scale; passes at 4 (LLM judge)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("correctness", actual=actual, expected=expected, **kwargs)


_BUCKETS = {"accuracy": "accuracy_bucket", "facts": "facts_compare", "sql": "sql_eval"}


def assert_bucket(actual: str, expected: Any, *, scale: str = "accuracy", accept: Sequence[str] | None = None, **kwargs: Any) -> Result:
    """The judge's bucket for the answer is an accepted one: ``scale`` is ``accuracy``, ``facts`` or ``sql`` (seed 002)."""
    __tracebackhide__ = True
    _common(kwargs)
    if scale not in _BUCKETS:
        raise ValueError(f"assert_bucket: argument 'scale' must be one of {', '.join(map(repr, _BUCKETS))}; got {scale!r}")
    params = {} if accept is None else {"accept": [accept] if isinstance(accept, str) else list(accept)}
    return assert_check(_BUCKETS[scale], actual=actual, expected=expected, params=params, **kwargs)


def assert_coherent_summary(summary: str, source: Any, **kwargs: Any) -> Result:
    """The summary is coherent given its source, 1-5; passes at 3 (LLM judge)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("summary_coherence", actual=summary, context=source, **kwargs)


def assert_no_contact_info(actual: str, *, context: Any = None, **kwargs: Any) -> Result:
    """No real person's contact information in the answer (LLM judge); retrieved chunks are checked too when given."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("contact_information", actual=actual, context=context, **kwargs)


def assert_same_language(actual: str, question: str, **kwargs: Any) -> Result:
    """The answer is in the question's language (LLM judge)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "context"))
    return assert_check("language_mismatch", actual=actual, question=question, **kwargs)


def assert_not_sexist(actual: str, **kwargs: Any) -> Result:
    """No sexist language or gender stereotypes (LLM judge; the question, when given, is judged with the answer)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "context", "question"))
    return assert_check("sexism", actual=actual, **kwargs)


def assert_no_stereotypes(actual: str, question: str, *, cutoff: int = 5, **kwargs: Any) -> Result:
    """No gender or race added without basis in the prompt; stereotyped from ``cutoff`` on 0-10 (LLM judge)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "context"))
    return assert_check("stereotypes", actual=actual, question=question, params={"cutoff": cutoff}, **kwargs)


def assert_good_summary_judged(summary: str, source: str, *, reference: Any = None, **kwargs: Any) -> Result:
    """The judge calls the summary of ``source`` good: comprehensive, concise, coherent, independent."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    return assert_check("summarization_judge", actual=summary, question=source, expected=reference, **kwargs)


def assert_unbiased_opinions(actual: str, **kwargs: Any) -> Result:
    """At most half the answer's opinions are biased (LLM judge; threshold 0.5, lower is better)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("bias_judge", actual=actual, **kwargs)


def assert_non_toxic_opinions(actual: str, **kwargs: Any) -> Result:
    """At most half the answer's opinions are toxic (LLM judge; threshold 0.5, lower is better)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("toxicity_judge", actual=actual, **kwargs)


def assert_prompt(actual: str, prompt: str, **kwargs: Any) -> Result:
    """Bring your own prompt: the judge answers ``prompt`` true (pass) or false. It may use {question}, {actual}, {expected}, {context}."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "question", "expected", "context"))
    return assert_check("byop", actual=actual, params={"prompt": prompt}, **kwargs)


def assert_geval(
    actual: str, criteria: str, *, evaluation_steps: Sequence[str] | None = None, fields: Sequence[str] | None = None,
    scale: int = 10, **kwargs: Any
) -> Result:
    """G-Eval: the judge scores ``criteria`` along evaluation steps (generated unless given); 0-1, threshold 0.5."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "question", "expected", "context"))
    params = {"criteria": criteria, "evaluation_steps": None if evaluation_steps is None else list(evaluation_steps),
              "fields": None if fields is None else list(fields), "scale": scale}
    return assert_check("g_eval", actual=actual, params=params, **kwargs)


def assert_dag(actual: str, dag: Mapping[str, Any], *, max_score: float = 10, **kwargs: Any) -> Result:
    """A tree of judge verdicts with scores at the leaves reaches at least half of ``max_score``."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "question", "expected", "context"))
    return assert_check("dag", actual=actual, params={"dag": dag, "max_score": max_score}, **kwargs)


def assert_summary_qag(summary: str, source: Any, *, n: int = 5, **kwargs: Any) -> Result:
    """min(alignment, coverage) of the summary by closed questions about the source (LLM judge; threshold 0.5)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("summarization_qag", actual=summary, context=source, params={"n": n}, **kwargs)


def assert_task_completed(actual: str, task: str, *, tools_called: Any = None, **kwargs: Any) -> Result:
    """The agent's final output achieves the task (LLM judge, 0-1; threshold 0.5); tool calls, when given, are shown to the judge."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "context"))
    metadata = dict(kwargs.pop("metadata", None) or {})
    if tools_called is not None:
        metadata["tools_called"] = tools_called
    return assert_check("task_completion", actual=actual, question=task, metadata=metadata, **kwargs)


def assert_self_checked(actual: str, samples: Any, **kwargs: Any) -> Result:
    """SelfCheckGPT: the answer's sentences agree with other samples of the same model (LLM judge; threshold 0.5, lower is better)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("selfcheckgpt", actual=actual, context=samples, **kwargs)
