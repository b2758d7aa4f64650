"""pytest-llmeval: LLM and RAG evaluation as ordinary pytest tests.

>>> from pytest_llmeval import assert_matches
>>> assert_matches("Brazil revenue was 15,969 million", '"15,969" AND NOT "Real"').passed
True

Importing this package loads only the standard library, pytest and light
modules; evaluators import their libraries when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

# Public names -> the module that defines them. They are imported on first access
# (PEP 562), so loading the plugin costs pytest only the modules it needs itself.
_EXPORTS = {
    "LLMEvalAssertionError": "assertions",
    "assert_accurate": "assertions",
    "assert_bertscore": "assertions",
    "assert_no_question_drift": "assertions",
    "assert_self_consistent": "assertions",
    "assert_steps_aligned": "assertions",
    "assert_not_toxic": "assertions",
    "assert_sentiment": "assertions",
    "assert_unbiased": "assertions",
    "assert_no_prompt_injection": "assertions",
    "assert_no_hallucination": "assertions",
    "assert_fluent": "assertions",
    "assert_good_summary": "assertions",
    "assert_gptscore": "assertions",
    "assert_faithful": "assertions",
    "assert_context_precision": "assertions",
    "assert_classification": "assertions",
    "record_label": "assertions",
    "assert_meteor": "assertions",
    "assert_word_count": "assertions",
    "assert_sentence_count": "assertions",
    "assert_syllable_count": "assertions",
    "assert_flesch_reading_ease": "assertions",
    "assert_dale_chall": "assertions",
    "assert_reading_time": "assertions",
    "assert_token_count": "assertions",
    "assert_japanese_character_count": "assertions",
    "assert_agent_artifacts": "assertions",
    "assert_fact_checked": "assertions",
    "assert_tools_called": "assertions",
    "measure_generation": "assertions",
    "Measurement": "assertions",
    "record_generation": "assertions",
    "assert_context_relevant_judged": "assertions",
    "assert_bleurt": "assertions",
    "assert_moverscore": "assertions",
    "assert_answer_in_context": "assertions",
    "assert_rubric": "assertions",
    "assert_no_hallucinated_sentences": "assertions",
    "assert_no_hallucination_judged": "assertions",
    "assert_context_recall": "assertions",
    "assert_answer_correct": "assertions",
    "assert_answer_relevant": "assertions",
    "assert_ragas": "assertions",
    "assert_correct": "assertions",
    "assert_bucket": "assertions",
    "assert_coherent_summary": "assertions",
    "assert_no_contact_info": "assertions",
    "assert_same_language": "assertions",
    "assert_not_sexist": "assertions",
    "assert_no_stereotypes": "assertions",
    "assert_good_summary_judged": "assertions",
    "assert_unbiased_opinions": "assertions",
    "assert_non_toxic_opinions": "assertions",
    "assert_prompt": "assertions",
    "assert_geval": "assertions",
    "assert_dag": "assertions",
    "assert_summary_qag": "assertions",
    "assert_task_completed": "assertions",
    "assert_self_checked": "assertions",
    "assert_metric": "deepeval_bridge",
    "measure_metric": "deepeval_bridge",
    "judge_for_deepeval": "deepeval_bridge",
    "assert_bleu": "assertions",
    "assert_check": "assertions",
    "assert_context_ranked": "assertions",
    "assert_context_relevant": "assertions",
    "assert_edit_distance": "assertions",
    "assert_exact_match": "assertions",
    "assert_grounded": "assertions",
    "assert_json": "assertions",
    "assert_matches": "assertions",
    "assert_no_encoded_leak": "assertions",
    "assert_no_pii": "assertions",
    "assert_no_pii_presidio": "assertions",
    "assert_no_sensitive_data": "assertions",
    "assert_not_looping": "assertions",
    "assert_relevant": "assertions",
    "assert_rouge": "assertions",
    "assert_similar": "assertions",
    "assert_similar_sentences": "assertions",
    "evaluate": "assertions",
    "Case": "case",
    "load_cases": "case",
    "cases": "dataset",
    "read_cases": "case",
    "CaseFileError": "case",
    "perturb": "perturbators",
    "perturbation": "perturbators",
    "Perturbation": "perturbators",
    "PERTURBATORS": "perturbators",
    "ConditionSyntaxError": "conditions",
    "parse_condition": "conditions",
    "Evaluator": "evaluators.base",
    "MetricSpec": "evaluators.base",
    "MissingInputError": "evaluators.base",
    "Score": "evaluators.base",
    "ModelCache": "models",
    "ModelLoadError": "models",
    "Registry": "registry",
    "UnknownEvaluatorError": "registry",
    "Result": "result",
    "Signature": "result",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_llmeval' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from .assertions import (
        LLMEvalAssertionError,
        Measurement,
        assert_agent_artifacts,
        assert_fact_checked,
        assert_meteor,
        assert_word_count,
        assert_sentence_count,
        assert_syllable_count,
        assert_flesch_reading_ease,
        assert_dale_chall,
        assert_reading_time,
        assert_token_count,
        assert_japanese_character_count,
        assert_tools_called,
        measure_generation,
        record_generation,
        record_label,
        assert_accurate,
        assert_bertscore,
        assert_no_question_drift,
        assert_self_consistent,
        assert_steps_aligned,
        assert_not_toxic,
        assert_sentiment,
        assert_unbiased,
        assert_no_prompt_injection,
        assert_no_hallucination,
        assert_fluent,
        assert_good_summary,
        assert_gptscore,
        assert_faithful,
        assert_classification,
        assert_context_precision,
        assert_context_relevant_judged,
        assert_bleurt,
        assert_moverscore,
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
        assert_context_ranked,
        assert_context_relevant,
        assert_grounded,
        assert_relevant,
        assert_similar,
        assert_similar_sentences,
        assert_bleu,
        assert_check,
        assert_edit_distance,
        assert_exact_match,
        assert_json,
        assert_matches,
        assert_no_encoded_leak,
        assert_no_pii,
        assert_no_pii_presidio,
        assert_no_sensitive_data,
        assert_not_looping,
        assert_rouge,
        evaluate,
    )
    from .deepeval_bridge import assert_metric, judge_for_deepeval, measure_metric
    from .case import Case, CaseFileError, load_cases, read_cases
    from .dataset import cases
    from .perturbators import PERTURBATORS, Perturbation, perturb, perturbation
    from .conditions import ConditionSyntaxError, parse_condition
    from .evaluators.base import Evaluator, MetricSpec, MissingInputError, Score
    from .models import ModelCache, ModelLoadError
    from .registry import Registry, UnknownEvaluatorError
    from .result import Result, Signature

__all__ = ["__version__", *sorted(_EXPORTS)]
