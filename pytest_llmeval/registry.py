"""Evaluator names mapped to dotted paths, imported on first use.

Built-in evaluators are listed in :data:`BUILTIN_EVALUATORS`. Third parties add
their own in one of two ways:

- an entry point in the ``pytest_llmeval.evaluators`` group, in their ``pyproject.toml``::

      [project.entry-points."pytest_llmeval.evaluators"]
      my_check = "my_package.checks:MyCheck"

- the ``pytest_llmeval_register_evaluators`` hook in a ``conftest.py`` or plugin::

      def pytest_llmeval_register_evaluators(registry):
          registry.register("my_check", "my_package.checks:MyCheck")

>>> registry = Registry()
>>> registry.resolve("exact_match").__name__
'ExactMatch'
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from .evaluators.base import Evaluator

__all__ = ["Registry", "BUILTIN_EVALUATORS", "ENTRY_POINT_GROUP", "UnknownEvaluatorError"]

ENTRY_POINT_GROUP = "pytest_llmeval.evaluators"

#: Name -> "module:Class" of every evaluator this package ships.
BUILTIN_EVALUATORS: Mapping[str, str] = MappingProxyType(
    {
        "text_matching": "pytest_llmeval.evaluators.matching:TextMatching",
        "json_schema": "pytest_llmeval.evaluators.structure:JsonSchema",
        "pii_leakage": "pytest_llmeval.evaluators.safety:PiiLeakage",
        "sensitive_data": "pytest_llmeval.evaluators.safety:SensitiveDataLeakage",
        "encoding_guardrail": "pytest_llmeval.evaluators.safety:EncodingGuardrail",
        "looping": "pytest_llmeval.evaluators.textstats:Looping",
        "rouge": "pytest_llmeval.evaluators.lexical:Rouge",
        "bleu": "pytest_llmeval.evaluators.lexical:Bleu",
        "exact_match": "pytest_llmeval.evaluators.lexical:ExactMatch",
        "edit_distance": "pytest_llmeval.evaluators.lexical:EditDistance",
        "groundedness": "pytest_llmeval.evaluators.groundedness:Groundedness",
        "answer_accuracy": "pytest_llmeval.evaluators.semantic:AnswerAccuracy",
        "semantic_sentence_similarity": "pytest_llmeval.evaluators.semantic:SemanticSentenceSimilarity",
        "semantic_similarity": "pytest_llmeval.evaluators.semantic:SemanticSimilarity",
        "answer_relevancy_similarity": "pytest_llmeval.evaluators.semantic:AnswerRelevancySimilarity",
        "context_relevancy": "pytest_llmeval.evaluators.semantic:ContextRelevancy",
        "context_mrr": "pytest_llmeval.evaluators.semantic:ContextMRR",
        "bertscore": "pytest_llmeval.evaluators.bertscore:BertScore",
        "bleurt": "pytest_llmeval.evaluators.learned:Bleurt",
        "moverscore": "pytest_llmeval.evaluators.learned:MoverScore",
        "self_consistency": "pytest_llmeval.evaluators.groups:SelfConsistency",
        "questions_drift": "pytest_llmeval.evaluators.groups:QuestionsDrift",
        "step_alignment": "pytest_llmeval.evaluators.steps:StepAlignment",
        "toxicity": "pytest_llmeval.evaluators.classification:Toxicity",
        "sentiment": "pytest_llmeval.evaluators.classification:Sentiment",
        "fairness_bias": "pytest_llmeval.evaluators.detectors:FairnessBias",
        "prompt_injection": "pytest_llmeval.evaluators.detectors:PromptInjection",
        "hallucination": "pytest_llmeval.evaluators.detectors:Hallucination",
        "perplexity": "pytest_llmeval.evaluators.language_model:Perplexity",
        "gptscore_summary_ref": "pytest_llmeval.evaluators.gptscore:GPTScoreSummaryRef",
        "gptscore_summary": "pytest_llmeval.evaluators.gptscore:GPTScoreSummary",
        "gptscore_translation": "pytest_llmeval.evaluators.gptscore:GPTScoreTranslation",
        "gptscore_qa": "pytest_llmeval.evaluators.gptscore:GPTScoreQA",
        "summarization": "pytest_llmeval.evaluators.summarization:Summarization",
        "pii_presidio": "pytest_llmeval.evaluators.presidio:PresidioPii",
        "context_precision": "pytest_llmeval.evaluators.judged:ContextPrecision",
        "faithfulness": "pytest_llmeval.evaluators.judged:Faithfulness",
        "context_recall": "pytest_llmeval.evaluators.judged:ContextRecall",
        "context_relevancy_judge": "pytest_llmeval.evaluators.judge_rag:ContextRelevancyJudge",
        "hallucination_judge": "pytest_llmeval.evaluators.judge_rag:HallucinationJudge",
        "context_recall_sentences": "pytest_llmeval.evaluators.judge_rag:SentenceContextRecall",
        "hallucination_sentences": "pytest_llmeval.evaluators.judge_rag:SentenceHallucination",
        "answer_correctness": "pytest_llmeval.evaluators.judged:AnswerCorrectness",
        "correctness": "pytest_llmeval.evaluators.judge_catalog:Correctness",
        "summary_coherence": "pytest_llmeval.evaluators.judge_catalog:SummaryCoherence",
        "prometheus": "pytest_llmeval.evaluators.judge_grades:Prometheus",
        "accuracy_bucket": "pytest_llmeval.evaluators.judge_catalog:AccuracyBucket",
        "facts_compare": "pytest_llmeval.evaluators.judge_catalog:FactsCompare",
        "sql_eval": "pytest_llmeval.evaluators.judge_catalog:SqlEval",
        "contact_information": "pytest_llmeval.evaluators.judge_catalog:ContactInformation",
        "language_mismatch": "pytest_llmeval.evaluators.judge_catalog:LanguageMismatch",
        "sexism": "pytest_llmeval.evaluators.judge_catalog:Sexism",
        "stereotypes": "pytest_llmeval.evaluators.judge_catalog:Stereotypes",
        "summarization_judge": "pytest_llmeval.evaluators.judge_catalog:SummarizationJudge",
        "byop": "pytest_llmeval.evaluators.judge_catalog:Byop",
        "bias_judge": "pytest_llmeval.evaluators.judge_catalog:BiasJudge",
        "toxicity_judge": "pytest_llmeval.evaluators.judge_catalog:ToxicityJudge",
        "answer_relevancy_judge": "pytest_llmeval.evaluators.judge_catalog:AnswerRelevancyJudge",
        "ragas": "pytest_llmeval.evaluators.judge_catalog:Ragas",
        "g_eval": "pytest_llmeval.evaluators.custom_judges:GEval",
        "dag": "pytest_llmeval.evaluators.custom_judges:Dag",
        "summarization_qag": "pytest_llmeval.evaluators.custom_judges:SummarizationQAG",
        "task_completion": "pytest_llmeval.evaluators.custom_judges:TaskCompletion",
        "selfcheckgpt": "pytest_llmeval.evaluators.custom_judges:SelfCheckGPT",
        "classification": "pytest_llmeval.evaluators.labels:Classification",
        "label_prediction": "pytest_llmeval.evaluators.labels:LabelPrediction",
        "word_count": "pytest_llmeval.evaluators.readability:WordCount",
        "sentence_count": "pytest_llmeval.evaluators.readability:SentenceCount",
        "syllable_count": "pytest_llmeval.evaluators.readability:SyllableCount",
        "flesch_reading_ease": "pytest_llmeval.evaluators.readability:FleschReadingEase",
        "dale_chall": "pytest_llmeval.evaluators.readability:DaleChall",
        "reading_time": "pytest_llmeval.evaluators.readability:ReadingTime",
        "token_count": "pytest_llmeval.evaluators.readability:TokenCount",
        "japanese_character_count": "pytest_llmeval.evaluators.readability:JapaneseCharacterCount",
        "generation": "pytest_llmeval.evaluators.operations:Generation",
        "meteor": "pytest_llmeval.evaluators.agents:Meteor",
        "tool_correctness": "pytest_llmeval.evaluators.agents:ToolCorrectness",
        "fact_check": "pytest_llmeval.evaluators.agent_checks:FactCheck",
        "agent_sanity": "pytest_llmeval.evaluators.agent_checks:AgentSanity",
    }
)

Target = Union[str, "type[Evaluator]"]


class UnknownEvaluatorError(LookupError):
    """No evaluator is registered under that name."""


class Registry:
    """Name -> evaluator class, resolved lazily.

    Args:
        entry_points: also read the ``pytest_llmeval.evaluators`` entry-point group.
    """

    def __init__(self, *, entry_points: bool = True) -> None:
        self._targets: dict[str, Target] = dict(BUILTIN_EVALUATORS)
        self._resolved: dict[str, type[Evaluator]] = {}
        # Scanning installed distributions costs milliseconds: done when first needed.
        self._entry_points_pending = entry_points

    def _load_entry_points(self) -> None:
        if not self._entry_points_pending:
            return
        self._entry_points_pending = False
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            self._targets.setdefault(entry.name, entry.value)

    def register(self, name: str, target: Target, *, replace: bool = False) -> None:
        """Register ``target`` ("module:Class" or the class itself) under ``name``."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"evaluator name must be an identifier like 'my_check', got {name!r}")
        if not isinstance(target, str) and not isinstance(target, type):
            raise TypeError(f"evaluator {name!r}: target must be 'module:Class' or a class, got {target!r}")
        if isinstance(target, str) and ":" not in target:
            raise ValueError(f"evaluator {name!r}: target must look like 'package.module:Class', got {target!r}")
        if name in self._targets and not replace and self._targets[name] != target:
            raise ValueError(f"evaluator {name!r} is already registered ({self._targets[name]!r}); pass replace=True")
        self._targets[name] = target
        self._resolved.pop(name, None)

    def __contains__(self, name: object) -> bool:
        if name not in self._targets:
            self._load_entry_points()
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._targets)

    def _unknown(self, name: str) -> str:
        """The error for an unknown name: the close names first, then where to see them all."""
        import difflib

        names = self.names()
        lowered = {n.lower(): n for n in names}
        close = [lowered[n] for n in difflib.get_close_matches(name.lower(), lowered, n=3, cutoff=0.7)]
        # a name inside the typed one (``bleu_score``) or the typed one inside a name (``pii``)
        close += [n for n in names if n not in close and len(name) >= 3 and (name.lower() in n or n in name.lower())][: 5 - len(close)]
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        return f"no evaluator named {name!r}{hint} (`pytest --llmeval-evaluators` lists all {len(names)})"

    def resolve(self, name: str) -> type[Evaluator]:
        """The evaluator class registered under ``name``, imported now if needed."""
        if not isinstance(name, str):
            raise TypeError(f"the evaluator name must be a str such as 'groundedness'; got {type(name).__name__} {name!r:.80}")
        if name in self._resolved:
            return self._resolved[name]
        if name not in self._targets:
            self._load_entry_points()
        if name not in self._targets:
            raise UnknownEvaluatorError(self._unknown(name))
        target = self._targets[name]
        if isinstance(target, str):
            module_name, _, attribute = target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                raise ImportError(
                    f"evaluator {name!r} needs the module {exc.name!r}, which is not installed "
                    f"(is an extra of pytest-llmeval missing?)"
                ) from exc
            cls = getattr(module, attribute, None)
            if cls is None:
                raise ImportError(f"evaluator {name!r}: {module_name} has no attribute {attribute!r}")
        else:
            cls = target
        from .evaluators.base import Evaluator

        if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
            raise TypeError(f"evaluator {name!r} resolves to {cls!r}, which is not an Evaluator subclass")
        self._resolved[name] = cls
        return cls

    def create(self, name: str, **params: object) -> Evaluator:
        """Build the evaluator ``name`` with ``params``."""
        return self.resolve(name)(**params)
