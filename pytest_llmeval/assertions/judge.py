"""LLM-judge checks (pytest-llmeval[judge]): network and cost; skipped without a judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..result import Result
from .core import _common, assert_check

__all__ = ['assert_fact_checked', 'assert_faithful', 'assert_context_precision', 'assert_context_relevant_judged', 'assert_answer_in_context', 'assert_no_hallucinated_sentences', 'assert_no_hallucination_judged', 'assert_context_recall', 'assert_answer_correct', 'assert_answer_relevant', 'assert_ragas', 'assert_correct', 'assert_rubric', 'assert_bucket', 'assert_coherent_summary', 'assert_no_contact_info', 'assert_same_language', 'assert_not_sexist', 'assert_no_stereotypes', 'assert_good_summary_judged', 'assert_unbiased_opinions', 'assert_non_toxic_opinions', 'assert_prompt', 'assert_geval', 'assert_dag', 'assert_summary_qag', 'assert_task_completed', 'assert_self_checked']

# -- LLM-judge checks (pytest-llmeval[judge]) ---------------------------------------------


def assert_faithful(actual: str, context: Any, *, unknown_claims: str = "unsupported", binary: bool = False, **kwargs: Any) -> Result:
    """The context supports the answer's claims (LLM judge; threshold 0.75). Skipped when no judge is configured.

    ``binary=True`` decides on ``faithful``: 1 only when every claim is supported (seed 003's shape).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"unknown_claims": unknown_claims, "binary": binary}
    return assert_check("faithfulness", actual=actual, context=context, params=params, **kwargs)


def assert_context_precision(question: str, expected: Any, context: Any, **kwargs: Any) -> Result:
    """Chunks useful for the expected answer are ranked first (LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("context_precision", question=question, expected=expected, context=context, **kwargs)


def assert_context_relevant_judged(
    question: str, context: Any, *, unit: str = "sentence", max_sentences: int = 100, **kwargs: Any
) -> Result:
    """The retrieved context is relevant to the question, as the judge reads it (LLM judge; threshold 0.75).

    ``unit="sentence"`` (the catalog's formula) counts relevant sentences, ``unit="chunk"`` relevant chunks.
    """
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    params = {"unit": unit, "max_sentences": max_sentences}
    return assert_check("context_relevancy_judge", question=question, context=context, params=params, **kwargs)


def assert_answer_in_context(actual: str, context: Any, *, max_sentences: int = 100, **kwargs: Any) -> Result:
    """Most of the answer's sentences are found in the context (seed 002's context recall; LLM judge; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("context_recall_sentences", actual=actual, context=context, params={"max_sentences": max_sentences}, **kwargs)


def assert_no_hallucinated_sentences(actual: str, context: Any, *, max_sentences: int = 100, **kwargs: Any) -> Result:
    """Few of the answer's sentences lack support in the context (seed 002's hallucination; LLM judge; at most 0.25)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("hallucination_sentences", actual=actual, context=context, params={"max_sentences": max_sentences}, **kwargs)


def assert_no_hallucination_judged(actual: str, context: Any, **kwargs: Any) -> Result:
    """The answer contradicts none of the retrieved chunks, as the judge reads them (LLM judge)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("hallucination_judge", actual=actual, context=context, **kwargs)


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


def assert_rubric(actual: str, criteria: str, rubric: Any, *, expected: Any = None, **kwargs: Any) -> Result:
    """A grade of 4 or 5 on your five-level ``rubric`` (score 1's description first), Prometheus-style (LLM judge).

    ``expected`` is the reference answer that would score 5, when there is one; ``question=`` and
    ``context=`` are shown to the judge too.
    """
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "question", "context"))
    return assert_check("prometheus", actual=actual, expected=expected, params={"criteria": criteria, "rubric": rubric}, **kwargs)


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


def assert_fact_checked(actual: str, *, question: str | None = None, **kwargs: Any) -> Result:
    """The judge finds no false information in the answer, 0-1 (LLM judge; seed 000's fact-check prompt; passes at 0.75)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "context"))
    return assert_check("fact_check", actual=actual, question=question, **kwargs)
