"""Classifier and language-model checks: toxicity, sentiment, bias, injection, hallucination, fluency."""

from __future__ import annotations

from typing import Any

from ..result import Result
from .core import _common, _scorer, assert_check

__all__ = ['assert_not_toxic', 'assert_sentiment', 'assert_unbiased', 'assert_no_prompt_injection', 'assert_no_hallucination', 'assert_fluent', 'assert_good_summary', 'assert_gptscore']

# -- classifier checks (pytest-llmeval[toxicity], [sentiment]) ------------------------------


def assert_not_toxic(
    actual: str, *, backend: str = "auto", scorer: str | None = None, config_path: str | None = None, checkpoint: str | None = None,
    **kwargs: Any
) -> Result:
    """No sentence of the answer is toxic (max toxicity over sentences, default threshold 0.75).

    ``backend="auto"``: detoxify when ``scorer`` (a detoxify checkpoint file; ``checkpoint=``
    is its deprecated name) is given, else the offline profanity-check model.
    ``backend="transformers"``: any Hugging Face text classifier, ``scorer`` its name or folder
    (reference martin-ha/toxic-comment-model); ``params={"toxic_labels": [...]}`` names its toxic labels. The failure names the most toxic sentence and category.
    """
    __tracebackhide__ = True
    _common(kwargs)
    model = _scorer("assert_not_toxic", scorer, checkpoint=checkpoint)
    params: dict[str, Any] = {"backend": backend, "config_path": config_path}
    # the scoring model is a detoxify checkpoint file, or a Hugging Face classifier (backend="transformers")
    params["model" if backend == "transformers" else "checkpoint"] = model
    return assert_check("toxicity", actual=actual, params=params, **kwargs)


def assert_sentiment(
    actual: str, *, backend: str = "vader", scorer: str | None = None, positive_label: str = "POSITIVE",
    scale: str = "signed", classifier: str | None = None, **kwargs: Any
) -> Result:
    """The answer's sentiment is at least the threshold (default -0.05: not negative; scale -1..1).

    ``scale="probability"`` decides on ``positivity`` in [0, 1] instead (default threshold 0.475, the same verdicts).
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"backend": backend, "model": _scorer("assert_sentiment", scorer, classifier=classifier), "positive_label": positive_label,
              "scale": scale}
    return assert_check("sentiment", actual=actual, params=params, **kwargs)


def assert_unbiased(actual: str, *, scorer: str | None = None, classifier: str | None = None, **kwargs: Any) -> Result:
    """No gender, racial or political bias (reference classifier d4data/bias-detection-model; threshold 0.75)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("fairness_bias", actual=actual, params={"model": _scorer("assert_unbiased", scorer, classifier=classifier)}, **kwargs)


def assert_no_prompt_injection(question: str, *, scorer: str | None = None, classifier: str | None = None, **kwargs: Any) -> Result:
    """The prompt is not an injection attempt (reference deepset/deberta-v3-base-injection; threshold 0.5)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history", "actual"))
    return assert_check("prompt_injection", question=question, params={"model": _scorer("assert_no_prompt_injection", scorer, classifier=classifier)}, **kwargs)


def assert_no_hallucination(
    actual: str, context: Any, *, method: str = "hhem", scorer: str | None = None, entities: str = "auto",
    nli_model: str | None = None, **kwargs: Any
) -> Result:
    """The answer is supported by a context chunk (HHEM or NLI factual consistency, threshold 0.75), and so are its facts."""
    __tracebackhide__ = True
    _common(kwargs)
    params = {"method": method, "model": _scorer("assert_no_hallucination", scorer, nli_model=nli_model), "entities": entities}
    return assert_check("hallucination", actual=actual, context=context, params=params, **kwargs)


def assert_fluent(actual: str, *, scorer: str | None = None, language_model: str | None = None, **kwargs: Any) -> Result:
    """The answer's perplexity under a language model is at most the threshold (default 200)."""
    __tracebackhide__ = True
    _common(kwargs)
    return assert_check("perplexity", actual=actual, params={"model": _scorer("assert_fluent", scorer, language_model=language_model)}, **kwargs)


def assert_good_summary(summary: str, source: str, *, scorer: str | None = None, nli_model: str | None = None, **kwargs: Any) -> Result:
    """The summary covers its source (geometric completeness, 0.75) and is entailed by it (``thresholds`` for faithfulness)."""
    __tracebackhide__ = True
    _common(kwargs, allowed=("model", "metadata", "history"))
    nli = _scorer("assert_good_summary", scorer, nli_model=nli_model)
    params = {} if nli is None else {"nli_model": nli}
    return assert_check("summarization", actual=summary, question=source, params=params, **kwargs)


def assert_gptscore(kind: str, actual: str, *, scorer: str | None = None, language_model: str | None = None, **kwargs: Any) -> Result:
    """GPTScore of ``kind`` (``summary_ref``, ``summary``, ``translation`` or ``qa``); records scores, gates only with a threshold.

    Pass ``expected=`` for ``summary_ref`` and ``translation``, ``question=`` for ``summary`` and ``qa``.
    """
    __tracebackhide__ = True
    kinds = ("summary_ref", "summary", "translation", "qa")
    if kind not in kinds:
        raise ValueError(f"assert_gptscore: argument 'kind' must be one of {', '.join(kinds)}; got {kind!r}")
    _common(kwargs, allowed=("model", "metadata", "history", "question", "expected"))
    return assert_check(f"gptscore_{kind}", actual=actual, params={"model": _scorer("assert_gptscore", scorer, language_model=language_model)}, **kwargs)
