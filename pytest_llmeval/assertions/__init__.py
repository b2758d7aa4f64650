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
- ``question``, ``metadata``: recorded with the case;
- ``unverified``: what an *unverified* verdict does to the test (``pass``, ``fail``
  or ``skip``; default ``--llmeval-unverified``, itself ``pass``). A check with an
  offline evidence model fails only on evidence it can name; an answer with no
  evidence against it that it cannot confirm either is unverified.

Threshold precedence: this call, then ``--llmeval-threshold``, then the
``llmeval_thresholds`` ini option, then the catalog default.
"""

from __future__ import annotations

from .core import (  # noqa: F401
    LLMEvalAssertionError,
    format_failure,
    evaluate,
    assert_check,
)
from .rules import (  # noqa: F401
    assert_matches,
    assert_json,
    assert_no_pii,
    assert_no_pii_presidio,
    assert_no_sensitive_data,
    assert_no_encoded_leak,
    assert_not_looping,
    assert_rouge,
    assert_bleu,
    assert_exact_match,
    assert_edit_distance,
)
from .embedding import (  # noqa: F401
    assert_grounded,
    assert_accurate,
    assert_similar,
    assert_similar_sentences,
    assert_relevant,
    assert_context_relevant,
    assert_context_ranked,
    assert_bertscore,
    assert_self_consistent,
    assert_no_question_drift,
    assert_steps_aligned,
)
from .classifiers import (  # noqa: F401
    assert_not_toxic,
    assert_sentiment,
    assert_unbiased,
    assert_no_prompt_injection,
    assert_no_hallucination,
    assert_fluent,
    assert_good_summary,
    assert_gptscore,
)
from .textstats import (  # noqa: F401
    assert_word_count,
    assert_sentence_count,
    assert_syllable_count,
    assert_flesch_reading_ease,
    assert_dale_chall,
    assert_reading_time,
    assert_token_count,
    assert_japanese_character_count,
)
from .agents import (  # noqa: F401
    assert_agent_artifacts,
    assert_meteor,
    assert_tools_called,
)
from .operations import (  # noqa: F401
    Measurement,
    measure_generation,
    record_generation,
)
from .labels import (  # noqa: F401
    assert_classification,
    record_label,
)
from .learned import (  # noqa: F401
    assert_bleurt,
    assert_moverscore,
)
from .judge import (  # noqa: F401
    assert_fact_checked,
    assert_faithful,
    assert_context_precision,
    assert_context_relevant_judged,
    assert_answer_in_context,
    assert_rubric,
    assert_no_hallucinated_sentences,
    assert_no_hallucination_judged,
    assert_context_recall,
    assert_answer_correct,
    assert_answer_relevant,
    assert_ragas,
    assert_correct,
    assert_bucket,
    assert_coherent_summary,
    assert_no_contact_info,
    assert_same_language,
    assert_not_sexist,
    assert_no_stereotypes,
    assert_good_summary_judged,
    assert_unbiased_opinions,
    assert_non_toxic_opinions,
    assert_prompt,
    assert_geval,
    assert_dag,
    assert_summary_qag,
    assert_task_completed,
    assert_self_checked,
)

__all__ = [
    "assert_word_count",
    "assert_sentence_count",
    "assert_syllable_count",
    "assert_flesch_reading_ease",
    "assert_dale_chall",
    "assert_reading_time",
    "assert_token_count",
    "assert_japanese_character_count",
    "assert_agent_artifacts",
    "assert_fact_checked",
    "assert_meteor",
    "assert_tools_called",
    "Measurement",
    "measure_generation",
    "record_generation",
    "assert_classification",
    "record_label",
    "LLMEvalAssertionError",
    "format_failure",
    "evaluate",
    "assert_check",
    "assert_matches",
    "assert_json",
    "assert_no_pii",
    "assert_no_pii_presidio",
    "assert_no_sensitive_data",
    "assert_no_encoded_leak",
    "assert_not_looping",
    "assert_rouge",
    "assert_bleu",
    "assert_exact_match",
    "assert_edit_distance",
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
    "assert_context_relevant_judged",
    "assert_bleurt",
    "assert_moverscore",
    "assert_answer_in_context",
    "assert_rubric",
    "assert_no_hallucinated_sentences",
    "assert_no_hallucination_judged",
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
