"""pytest-llmeval: LLM and RAG evaluation as ordinary pytest tests.

>>> from pytest_llmeval import assert_matches
>>> assert_matches("Brazil revenue was 15,969 million", '"15,969" AND NOT "Real"').passed
True

Importing this package loads only the standard library; every public name is imported on first access
(PEP 562), so loading the plugin costs pytest only the modules it needs itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

# Public names that are not check helpers -> the module that defines them.
_EXPORTS = {
    "LLMEvalAssertionError": "run.check",
    "assert_check": "harness.api",
    "evaluate": "harness.api",
    "calibrate": "harness.api",
    "evaluate_many": "harness.api",
    "assert_metric": "run.deepeval",
    "measure_metric": "run.deepeval",
    "judge_for_deepeval": "run.deepeval",
    "Case": "core.case",
    "load_cases": "core.case",
    "read_cases": "core.case",
    "CaseFileError": "core.case",
    "cases": "harness.dataset",
    "perturb": "run.perturb",
    "perturbation": "text.perturbators",
    "Perturbation": "text.perturbators",
    "PERTURBATORS": "text.perturbators",
    "ConditionSyntaxError": "text.conditions",
    "parse_condition": "text.conditions",
    "Evaluator": "core.evaluator",
    "MetricSpec": "core.evaluator",
    "MissingInputError": "core.errors",
    "Score": "core.evaluator",
    "ModelCache": "models.cache",
    "ModelLoadError": "models.cache",
    "Registry": "harness.registry",
    "UnknownEvaluatorError": "harness.registry",
    "Result": "core.result",
    "Signature": "core.result",
}

# Every check helper -> its check module (written by ``python tools/check_index.py --write``, checked by a test).
# <generated: helpers>
_HELPERS = {
    "Measurement": "checks.operations.generation",
    "assert_accurate": "checks.embedding.answer_accuracy",
    "assert_agent_artifacts": "checks.agents.agent_sanity",
    "assert_answer_correct": "checks.judge_rag.answer_correctness",
    "assert_answer_in_context": "checks.judge_rag.context_recall_sentences",
    "assert_answer_relevant": "checks.judge_rag.answer_relevancy_judge",
    "assert_bertscore": "checks.embedding.bertscore",
    "assert_bleu": "checks.lexical.bleu",
    "assert_bleurt": "checks.language_model.bleurt",
    "assert_bucket": "checks.judge_quality.accuracy_bucket",
    "assert_classification": "checks.classification.classification",
    "assert_coherent_summary": "checks.judge_quality.summary_coherence",
    "assert_context_precision": "checks.judge_rag.context_precision",
    "assert_context_ranked": "checks.embedding.context_mrr",
    "assert_context_recall": "checks.judge_rag.context_recall",
    "assert_context_relevant": "checks.embedding.context_relevancy",
    "assert_context_relevant_judged": "checks.judge_rag.context_relevancy_judge",
    "assert_correct": "checks.judge_quality.correctness",
    "assert_dag": "checks.judge_quality.dag",
    "assert_dale_chall": "checks.text_stats.dale_chall",
    "assert_edit_distance": "checks.lexical.edit_distance",
    "assert_exact_match": "checks.lexical.exact_match",
    "assert_fact_checked": "checks.agents.fact_check",
    "assert_faithful": "checks.judge_rag.faithfulness",
    "assert_flesch_reading_ease": "checks.text_stats.flesch_reading_ease",
    "assert_fluent": "checks.language_model.perplexity",
    "assert_geval": "checks.judge_quality.g_eval",
    "assert_good_summary": "checks.language_model.summarization",
    "assert_good_summary_judged": "checks.judge_quality.summarization_judge",
    "assert_gptscore": "checks.language_model.gptscore",
    "assert_grounded": "checks.embedding.groundedness",
    "assert_japanese_character_count": "checks.text_stats.japanese_character_count",
    "assert_json": "checks.lexical.json_schema",
    "assert_matches": "checks.lexical.text_matching",
    "assert_meteor": "checks.lexical.meteor",
    "assert_moverscore": "checks.language_model.moverscore",
    "assert_no_contact_info": "checks.safety.contact_information",
    "assert_no_encoded_leak": "checks.safety.encoding_guardrail",
    "assert_no_hallucinated_sentences": "checks.judge_rag.hallucination_sentences",
    "assert_no_hallucination": "checks.language_model.hallucination",
    "assert_no_hallucination_judged": "checks.judge_rag.hallucination_judge",
    "assert_no_pii": "checks.safety.pii_leakage",
    "assert_no_pii_presidio": "checks.safety.pii_presidio",
    "assert_no_prompt_injection": "checks.safety.prompt_injection",
    "assert_no_question_drift": "checks.embedding.questions_drift",
    "assert_no_sensitive_data": "checks.safety.sensitive_data",
    "assert_no_stereotypes": "checks.safety.stereotypes",
    "assert_non_toxic_opinions": "checks.safety.toxicity_judge",
    "assert_not_looping": "checks.text_stats.looping",
    "assert_not_sexist": "checks.safety.sexism",
    "assert_not_toxic": "checks.safety.toxicity",
    "assert_prompt": "checks.judge_quality.byop",
    "assert_ragas": "checks.judge_rag.ragas",
    "assert_reading_time": "checks.text_stats.reading_time",
    "assert_relevant": "checks.embedding.answer_relevancy_similarity",
    "assert_rouge": "checks.lexical.rouge",
    "assert_rubric": "checks.judge_quality.prometheus",
    "assert_same_language": "checks.judge_quality.language_mismatch",
    "assert_self_checked": "checks.judge_quality.selfcheckgpt",
    "assert_self_consistent": "checks.embedding.self_consistency",
    "assert_sentence_count": "checks.text_stats.sentence_count",
    "assert_sentiment": "checks.classification.sentiment",
    "assert_similar": "checks.embedding.semantic_similarity",
    "assert_similar_sentences": "checks.embedding.semantic_sentence_similarity",
    "assert_steps_aligned": "checks.embedding.step_alignment",
    "assert_summary_qag": "checks.judge_quality.summarization_qag",
    "assert_syllable_count": "checks.text_stats.syllable_count",
    "assert_task_completed": "checks.agents.task_completion",
    "assert_token_count": "checks.text_stats.token_count",
    "assert_tools_called": "checks.agents.tool_correctness",
    "assert_unbiased": "checks.safety.fairness_bias",
    "assert_unbiased_opinions": "checks.safety.bias_judge",
    "assert_word_count": "checks.text_stats.word_count",
    "measure_generation": "checks.operations.generation",
    "record_generation": "checks.operations.generation",
    "record_label": "checks.classification.label_prediction",
}
# </generated: helpers>

_EXPORTS.update(_HELPERS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_llmeval' has no attribute {name!r}")
    from importlib import import_module

    # Not cached here: the module in sys.modules is the one to ask, so a helper and the errors its check raises always
    # come from the same import of the package (pytester's in-process runs drop and re-import modules).
    return getattr(import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from .harness.api import assert_check, calibrate, evaluate, evaluate_many
    from .run.check import LLMEvalAssertionError
    from .core.case import Case, CaseFileError, load_cases, read_cases
    from .core.errors import MissingInputError
    from .core.evaluator import Evaluator, MetricSpec, Score
    from .harness.registry import Registry, UnknownEvaluatorError
    from .core.result import Result, Signature
    from .harness.dataset import cases
    from .run.deepeval import assert_metric, judge_for_deepeval, measure_metric
    from .models.cache import ModelCache, ModelLoadError
    from .text.conditions import ConditionSyntaxError, parse_condition
    from .run.perturb import perturb
    from .text.perturbators import PERTURBATORS, Perturbation, perturbation

    # <generated: helper types>
    from .checks.agents.agent_sanity import assert_agent_artifacts
    from .checks.agents.fact_check import assert_fact_checked
    from .checks.agents.task_completion import assert_task_completed
    from .checks.agents.tool_correctness import assert_tools_called
    from .checks.classification.classification import assert_classification
    from .checks.classification.label_prediction import record_label
    from .checks.classification.sentiment import assert_sentiment
    from .checks.embedding.answer_accuracy import assert_accurate
    from .checks.embedding.answer_relevancy_similarity import assert_relevant
    from .checks.embedding.bertscore import assert_bertscore
    from .checks.embedding.context_mrr import assert_context_ranked
    from .checks.embedding.context_relevancy import assert_context_relevant
    from .checks.embedding.groundedness import assert_grounded
    from .checks.embedding.questions_drift import assert_no_question_drift
    from .checks.embedding.self_consistency import assert_self_consistent
    from .checks.embedding.semantic_sentence_similarity import assert_similar_sentences
    from .checks.embedding.semantic_similarity import assert_similar
    from .checks.embedding.step_alignment import assert_steps_aligned
    from .checks.judge_quality.accuracy_bucket import assert_bucket
    from .checks.judge_quality.byop import assert_prompt
    from .checks.judge_quality.correctness import assert_correct
    from .checks.judge_quality.dag import assert_dag
    from .checks.judge_quality.g_eval import assert_geval
    from .checks.judge_quality.language_mismatch import assert_same_language
    from .checks.judge_quality.prometheus import assert_rubric
    from .checks.judge_quality.selfcheckgpt import assert_self_checked
    from .checks.judge_quality.summarization_judge import assert_good_summary_judged
    from .checks.judge_quality.summarization_qag import assert_summary_qag
    from .checks.judge_quality.summary_coherence import assert_coherent_summary
    from .checks.judge_rag.answer_correctness import assert_answer_correct
    from .checks.judge_rag.answer_relevancy_judge import assert_answer_relevant
    from .checks.judge_rag.context_precision import assert_context_precision
    from .checks.judge_rag.context_recall import assert_context_recall
    from .checks.judge_rag.context_recall_sentences import assert_answer_in_context
    from .checks.judge_rag.context_relevancy_judge import assert_context_relevant_judged
    from .checks.judge_rag.faithfulness import assert_faithful
    from .checks.judge_rag.hallucination_judge import assert_no_hallucination_judged
    from .checks.judge_rag.hallucination_sentences import assert_no_hallucinated_sentences
    from .checks.judge_rag.ragas import assert_ragas
    from .checks.language_model.bleurt import assert_bleurt
    from .checks.language_model.gptscore import assert_gptscore
    from .checks.language_model.hallucination import assert_no_hallucination
    from .checks.language_model.moverscore import assert_moverscore
    from .checks.language_model.perplexity import assert_fluent
    from .checks.language_model.summarization import assert_good_summary
    from .checks.lexical.bleu import assert_bleu
    from .checks.lexical.edit_distance import assert_edit_distance
    from .checks.lexical.exact_match import assert_exact_match
    from .checks.lexical.json_schema import assert_json
    from .checks.lexical.meteor import assert_meteor
    from .checks.lexical.rouge import assert_rouge
    from .checks.lexical.text_matching import assert_matches
    from .checks.operations.generation import Measurement, measure_generation, record_generation
    from .checks.safety.bias_judge import assert_unbiased_opinions
    from .checks.safety.contact_information import assert_no_contact_info
    from .checks.safety.encoding_guardrail import assert_no_encoded_leak
    from .checks.safety.fairness_bias import assert_unbiased
    from .checks.safety.pii_leakage import assert_no_pii
    from .checks.safety.pii_presidio import assert_no_pii_presidio
    from .checks.safety.prompt_injection import assert_no_prompt_injection
    from .checks.safety.sensitive_data import assert_no_sensitive_data
    from .checks.safety.sexism import assert_not_sexist
    from .checks.safety.stereotypes import assert_no_stereotypes
    from .checks.safety.toxicity import assert_not_toxic
    from .checks.safety.toxicity_judge import assert_non_toxic_opinions
    from .checks.text_stats.dale_chall import assert_dale_chall
    from .checks.text_stats.flesch_reading_ease import assert_flesch_reading_ease
    from .checks.text_stats.japanese_character_count import assert_japanese_character_count
    from .checks.text_stats.looping import assert_not_looping
    from .checks.text_stats.reading_time import assert_reading_time
    from .checks.text_stats.sentence_count import assert_sentence_count
    from .checks.text_stats.syllable_count import assert_syllable_count
    from .checks.text_stats.token_count import assert_token_count
    from .checks.text_stats.word_count import assert_word_count
    # </generated: helper types>

__all__ = ["__version__", *sorted(_EXPORTS)]
