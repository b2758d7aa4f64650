"""Embedding checks (pytest-llmeval[embeddings]): grounding, similarity, relevance, groups, steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..case import Case
from ..current import current_context
from ..result import Result
from .core import _common, _group_defaults, _run, _scorer, assert_check, format_failure, raise_failure

__all__ = ['assert_grounded', 'assert_accurate', 'assert_similar', 'assert_similar_sentences', 'assert_relevant', 'assert_context_relevant', 'assert_context_ranked', 'assert_bertscore', 'assert_self_consistent', 'assert_no_question_drift', 'assert_steps_aligned']

# -- embedding checks (pytest-llmeval[embeddings]) ---------------------------------------


def assert_grounded(
    actual: str, context: Any, *, method: str = "facts", entities: str = "auto", short_answer_words: int = 5,
    nli_model: str | None = None, model: str | None = None, scorer: str | None = None, embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer's claims are stated in the context (groundedness): pass, fail on named evidence, or unverified.

    ``method="facts"`` (default): the check fails only on evidence it names: a
    number, date, unit or name the context does not state (``'Mumbai' (sentence 1)
    appears nowhere in the context``), a negation flip, a role swap or conflicting
    relation, a claim sharing nothing with the context. Without evidence, the answer
    passes when every claim's support (similarity plus word support) reaches the
    threshold calibrated for the embedding model (0.70 for the embedded
    all-MiniLM-L6-v2), and is *unverified* otherwise (``unverified=`` says what that
    does to the test; with a judge configured, the judge's faithfulness check decides
    it). Sentences that claim nothing (questions back, thanks) are not checked. Pass
    ``question=`` too: a short answer is then judged as the claim question and answer
    make together. ``method="embeddings"``: the catalog's embedding groundedness
    alone (0.75). ``method="nli"``: the evidence plus the NLI cross-encoder
    ``nli_model``, which decides. ``scorer``: the embedding model
    (``embedding_model=`` is its deprecated name).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_grounded", scorer, embedding_model=embedding_model), "method": method,
              "entities": entities, "short_answer_words": short_answer_words,
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
    sentence_level_metrics: bool = True,
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The least accurate answer sentence is close to the expected answer, and its facts agree (answer accuracy).

    Short answers (both at most ``short_string_threshold`` characters) are scored by
    ``short_string_metric`` instead: ``normalized_edit_distance``, ``exact_match``,
    ``token_jaccard`` or ``embeddings``. With ``facts=True`` a number, date or name
    that the expected answer does not state fails the check and is named.
    ``sentence_level_metrics=False`` leaves each sentence's score out of the record.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_accurate", scorer, embedding_model=embedding_model), "short_string_metric": short_string_metric, "short_string_threshold": short_string_threshold,
              "facts": facts, "entities": entities, "sentence_level_metrics": sentence_level_metrics}
    return assert_check("answer_accuracy", actual=actual, expected=expected, params=params, **kwargs)


def assert_similar(
    actual: str, expected: Any, *, method: str = "embeddings", cross_encoder: str | None = None,
    facts: bool = True, entities: str = "auto", scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any,
) -> Result:
    """The answer means the same as the expected answer, and its facts agree (semantic similarity).

    ``method="cross-encoder"`` scores the pair with the ``cross_encoder`` model instead
    of embeddings. With ``facts=True`` ("The capital is Sydney" vs "... Canberra")
    a number, date or name that the expected answer does not state fails the check.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_similar", scorer, embedding_model=embedding_model), "method": method, "cross_encoder": cross_encoder, "facts": facts, "entities": entities}
    return assert_check("semantic_similarity", actual=actual, expected=expected, params=params, **kwargs)


def assert_similar_sentences(actual: str, expected: Any, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """Answer sentences are close to expected sentences (mean similarity 0.75; ``thresholds`` for the minimum)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("semantic_sentence_similarity", actual=actual, expected=expected, params={"model": _scorer("assert_similar_sentences", scorer, embedding_model=embedding_model)}, **kwargs)


def assert_relevant(actual: str, question: str, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """Some answer sentence is close to the question (answer relevancy, 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    return assert_check("answer_relevancy_similarity", actual=actual, question=question, params={"model": _scorer("assert_relevant", scorer, embedding_model=embedding_model)}, **kwargs)


def assert_context_relevant(question: str, context: Any, *, scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any) -> Result:
    """The retrieved context is relevant to the question (soft recall 0.75; ``thresholds`` for precision)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("context_relevancy", question=question, context=context, params={"model": _scorer("assert_context_relevant", scorer, embedding_model=embedding_model)}, **kwargs)


def assert_context_ranked(
    question: str, context: Any, *, relevance_threshold: float = 0.7, out_of_range_rank: int = 10,
    scorer: str | None = None, embedding_model: str | None = None, **kwargs: Any,
) -> Result:
    """The first relevant chunk is ranked high (reciprocal rank, 0.75: the first chunk must be relevant)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    params = {"model": _scorer("assert_context_ranked", scorer, embedding_model=embedding_model), "relevance_threshold": relevance_threshold, "out_of_range_rank": out_of_range_rank}
    return assert_check("context_mrr", question=question, context=context, params=params, **kwargs)


def assert_bertscore(
    actual: str, expected: Any, *, idf: bool = False, matching: str = "bert_score", scorer: str | None = None,
    bertscore_model: str | None = None, **kwargs: Any
) -> Result:
    """BERTScore F1 against the expected answer(s) (default threshold 0.75; precision and recall via ``thresholds``).

    ``matching="bert_score"`` (default) computes what the bert-score package does; ``"content_tokens"``
    is version 2's variant (special tokens dropped, cosines clamped; 0.52 calibrated for the embedded MiniLM).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_bertscore", scorer, bertscore_model=bertscore_model), "idf": idf, "matching": matching}
    return assert_check("bertscore", actual=actual, expected=expected, params=params, **kwargs)


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
    min_test_cases: int = 2,
) -> list[Result]:
    """Answers one model gave to the same question agree with each other (mean pairwise ROUGE-L, 0.75).

    Records one result per answer; fails naming the least consistent answer. Fewer than
    ``min_test_cases`` answers (default 2) are scored all the same, with a warning; one answer
    scores 1.0 (consistent with itself, as seed 000 says).
    """
    __tracebackhide__ = True
    if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence) or not answers:
        raise TypeError(f"assert_self_consistent: argument 'answers' must be a non-empty list of str; got {type(answers).__name__}")
    bad = next((i for i, a in enumerate(answers) if not isinstance(a, str)), None)
    if bad is not None:
        raise TypeError(f"assert_self_consistent: argument 'answers' must hold str; answers[{bad}] is {type(answers[bad]).__name__}")
    model, case = _group_defaults(model, case)
    cases = [Case(actual=a, question=question, model=model, case_id=case) for a in answers]
    params = {"max_group_size": max_group_size, "use_stemmer": use_stemmer, "min_test_cases": min_test_cases}
    results = _run("self_consistency", cases, threshold, thresholds, params, True)
    failed = [i for i, r in enumerate(results) if not r.passed]
    if failed:
        worst = min(failed, key=lambda i: score if (score := results[i].score) is not None else -1.0)
        message = format_failure(results[worst], len(answers[worst]))
        raise_failure(results[worst], f"{message}\n  {len(failed)} of {len(answers)} answers below the threshold; least consistent: #{worst}")
    return results


def assert_no_question_drift(
    questions: Sequence[str],
    *,
    split_ratio: float = 0.5,
    min_test_cases: int = 10,
    threshold: float | None = None,
    scorer: str | None = None,
    embedding_model: str | None = None,
    case: str | None = None,
    min_cases: int | None = None,
) -> Result:
    """The later questions mean the same kind of thing as the earlier ones (centroid cosine distance, 0.1).

    ``questions`` must be in chronological order. Records one result for the set; with fewer than
    ``min_test_cases`` questions it is unscored (``min_cases``: the old name, deprecated).
    """
    __tracebackhide__ = True
    if isinstance(questions, str) or not isinstance(questions, Sequence) or not questions:
        raise TypeError("assert_no_question_drift: argument 'questions' must be a non-empty sequence of str")
    _, case = _group_defaults(None, case)
    # None and empty questions are left out, as the catalog does; the rest must be str.
    cases = [Case(question=q, case_id=case) for q in questions if q is not None and q != ""] or [Case(question="", case_id=case)]
    evaluator_params = {"model": _scorer("assert_no_question_drift", scorer, embedding_model=embedding_model), "split_ratio": split_ratio,
                        "min_test_cases": min_test_cases if min_cases is None else min_cases}
    if min_cases is not None:
        import warnings

        warnings.warn("assert_no_question_drift: 'min_cases' is now 'min_test_cases'", DeprecationWarning, stacklevel=2)
    # Drift is one number for the whole set: every case gets it, one result is recorded.
    result = _run("questions_drift", cases, threshold, None, evaluator_params, False)[0]
    context = current_context()
    if context is not None:
        context.record(result)
    if not result.passed:
        raise_failure(result, format_failure(result))
    return result


def assert_steps_aligned(
    actual: str, context: Any, *, match_threshold: float = 0.7, sentence_level_metrics: bool = True, scorer: str | None = None,
    embedding_model: str | None = None, **kwargs: Any
) -> Result:
    """The answer gives the procedure of the retrieved context: all steps, in order (edits, 0.75: none allowed).

    ``sentence_level_metrics=False`` leaves the steps found out of the record.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_steps_aligned", scorer, embedding_model=embedding_model), "match_threshold": match_threshold,
              "sentence_level_metrics": sentence_level_metrics}
    return assert_check("step_alignment", actual=actual, context=context, params=params, **kwargs)
