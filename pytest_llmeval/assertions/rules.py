"""Rule-based checks: conditions, JSON, leakage, looping, lexical overlap (no model, no network)."""

from __future__ import annotations

from typing import Any

from ..result import Result
from .core import _common, assert_check

__all__ = ['assert_matches', 'assert_json', 'assert_no_pii', 'assert_no_pii_presidio', 'assert_no_sensitive_data', 'assert_no_encoded_leak', 'assert_not_looping', 'assert_rouge', 'assert_bleu', 'assert_exact_match', 'assert_edit_distance']

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
    actual: str, schema: Any = None, *, context: Any = None, strip_fences: bool = True, allow_remote_refs: bool = False,
    **kwargs: Any
) -> Result:
    """The answer parses as JSON and follows ``schema`` (a JSON Schema; ``None`` or ``{}``: any JSON).

    ``$ref`` resolves inside the schema only; ``allow_remote_refs=True`` lets it fetch URLs. With
    ``context`` (retrieved JSON fragments), ``invalid_retrieved_json`` is the share that fails too.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"schema": {} if schema is None else schema, "strip_fences": strip_fences, "allow_remote_refs": allow_remote_refs}
    return assert_check("json_schema", actual=actual, context=context, params=params, **kwargs)


def assert_no_pii(
    actual: str, *, context: Any = None, kinds: Any = None, allow: Any = (), evaluate_context: bool = True, **kwargs: Any
) -> Result:
    """No e-mail, card number, SSN, phone number, IBAN or IP address in the answer (or context)."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"kinds": kinds, "allow": allow, "evaluate_context": evaluate_context}
    return assert_check("pii_leakage", actual=actual, context=context, params=params, **kwargs)


def assert_no_pii_presidio(
    actual: str, *, context: Any = None, entities: Any = None, score_threshold: float = 0.5, entity_thresholds: Any = None,
    evaluate_context: bool = True, language: str = "en", spacy_model: str | None = None, **kwargs: Any,
) -> Result:
    """No PII by Microsoft Presidio (names, contacts, addresses, IDs) in the answer (or context); the detail has an anonymised text.

    ``entity_thresholds`` sets Presidio confidences per entity type (default: phone numbers at 0.4, others at ``score_threshold``).
    ``language="ja"`` analyses Japanese text with GiNZA (``pip install 'pytest-llmeval[presidio-ja]'``); the metric
    ``pii_occurrences`` is the number of PII findings, all entity types summed (seed 003's Japanese PII Occurrence Count).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"entities": entities, "score_threshold": score_threshold, "entity_thresholds": entity_thresholds,
              "evaluate_context": evaluate_context, "language": language, "spacy_model": spacy_model}
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


def assert_rouge(
    actual: str, expected: Any, *, use_stemmer: bool = False, split_summaries: bool = True,
    rouge_types: Any = ("rouge1", "rouge2", "rougeL", "rougeLsum"), f_measure: str = "f1", **kwargs: Any
) -> Result:
    """ROUGE against the expected answer(s); primary metric ROUGE-L F1.

    ``rouge_types`` picks the types computed (it must hold ``rougeL``); ``f_measure="max_pr"``
    reports each as the larger of precision and recall (DataRobot's ROUGE-1) instead of F1.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"use_stemmer": use_stemmer, "split_summaries": split_summaries, "rouge_types": rouge_types,
              "f_measure": f_measure}
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
