"""Per-seed coverage audit: every item of the reference catalogs, and what implements it here.

The five reference documents (``../shared/seeds/``) name evaluators, metrics, report
features and data formats. :data:`SEED_COVERAGE` maps each item to the checks (registry
names), options, report features or dataset functions of this package that implement it,
or says why it is out of scope, or that it is missing. :func:`coverage_table` renders
the audit as Markdown (the README block between ``<!-- coverage:start -->`` and
``<!-- coverage:end -->``); ``tests/test_coverage.py`` keeps both honest: every name
resolves in the registry, every helper named exists, and the counts hold.

Regenerate the README block with::

    python -c "from tests.seed_coverage import coverage_table; print('\\n'.join(coverage_table()))"

Standard library only; nothing of the package is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Coverage",
    "SEED_COVERAGE",
    "SEEDS",
    "STATUSES",
    "IMPLEMENTED",
    "coverage_table",
    "coverage_counts",
    "missing",
]

#: The seeds, in order, with what each one is.
SEEDS: dict[str, str] = {
    "000": "H2O Sonar evaluator catalog",
    "001": "Valor metrics",
    "002": "dataset format and judge checks",
    "003": "DataRobot LLM custom metrics",
    "004": "survey notes: metric families, LLM scorers, RAG and agent metrics",
}

#: How the docs name each catalog (its authors' name, not the number of its file).
CATALOG_NAMES: dict[str, str] = {
    "000": "H2O Sonar",
    "001": "Valor",
    "002": "Dataset and judge checks",
    "003": "DataRobot",
    "004": "RAG and DeepEval survey",
}

#: What a status means. The first four count as implemented.
STATUSES: dict[str, str] = {
    "check": "an evaluator implements it (`evaluators` are registry names)",
    "option": "a parameter or option of a check implements it (named in `how`)",
    "report": "a report feature implements it (`how` says where)",
    "feature": "a package feature outside checks and reports implements it (dataset loading, interop)",
    "out of scope": "not a per-answer check of a text plugin (`how` says why)",
    "missing": "nothing here implements it (`how` says what is missing)",
}
IMPLEMENTED = ("check", "option", "report", "feature")


@dataclass(frozen=True)
class Coverage:
    """One seed item and what implements it."""

    seed: str
    item: str
    status: str
    evaluators: tuple[str, ...]
    how: str


def _r(seed: str, item: str, status: str, evaluators: str, how: str) -> Coverage:
    """A row; ``evaluators`` is space-separated registry names (or empty)."""
    return Coverage(seed, item, status, tuple(evaluators.split()), how)


_NOT_TEXT = "object detection / segmentation over image regions; a text plugin has no boxes, masks or IoU"
_BENCHMARK = (
    "a benchmark suite: a fixed data set to score a model on, not a check of one "
    "answer; run its items as cases if wanted"
)

SEED_COVERAGE: tuple[Coverage, ...] = (
    # ---- 000: H2O Sonar evaluator catalog (44 evaluators) ----
    _r(
        "000",
        "Agent Sanity Check Evaluator",
        "check",
        "agent_sanity",
        "assert_agent_artifacts: each artifact exists, is not empty, parses and holds the expected fields; score = "
        "share of sane artifacts",
    ),
    _r(
        "000",
        "Answer Accuracy (Semantic Similarity) Evaluator",
        "check",
        "answer_accuracy",
        "assert_accurate: weakest answer sentence's best match in the expected answer, short-string fallback, plus the "
        "fact layer",
    ),
    _r(
        "000",
        "Answer Correctness Evaluator",
        "check",
        "answer_correctness",
        "assert_answer_correct: statement F1 (weight 0.75) with embedding similarity (0.25)",
    ),
    _r(
        "000",
        "Answer Semantic Similarity Evaluator",
        "check",
        "semantic_similarity",
        "assert_similar: embedding cosine, or method='cross-encoder' as the catalog scores it",
    ),
    _r(
        "000",
        "Answer Semantic Sentence Similarity Evaluator",
        "check",
        "semantic_sentence_similarity",
        "assert_similar_sentences: mean and minimum of each answer sentence's best match",
    ),
    _r(
        "000",
        "Context Relevancy Evaluator",
        "check",
        "context_relevancy_judge",
        "assert_context_relevant_judged: relevant context sentences / all context sentences, judged per sentence",
    ),
    _r(
        "000",
        "Context Relevancy (Soft Recall and Precision) Evaluator",
        "check",
        "context_relevancy",
        "assert_context_relevant: recall_relevancy (best chunk) and precision_relevancy (mean chunk) from "
        "question-sentence cosines",
    ),
    _r(
        "000",
        "Groundedness (Semantic Similarity) Evaluator",
        "check",
        "groundedness",
        "assert_grounded: method='embeddings' is the catalog's minimum over sentences; the default fails on named "
        "evidence (unstated facts, negation flips, role swaps) and leaves answers too reworded to confirm unverified",
    ),
    _r(
        "000",
        "Hallucination Evaluator",
        "check",
        "hallucination",
        "assert_no_hallucination: HHEM (or an NLI cross-encoder) consistency over chunks, plus the fact layer",
    ),
    _r(
        "000",
        "RAGAS Evaluator",
        "check",
        "ragas",
        "assert_ragas: harmonic mean of faithfulness, answer relevancy, context precision and context recall",
    ),
    _r(
        "000",
        "Text Matching Evaluator",
        "check",
        "text_matching",
        "assert_matches: quoted strings and regexp() combined with AND, OR, NOT",
    ),
    _r(
        "000",
        "Context Precision Evaluator",
        "check",
        "context_precision",
        "assert_context_precision: rank-weighted precision of the chunks useful for the expected answer",
    ),
    _r(
        "000",
        "Fact-Check (Agent-based) Evaluator",
        "check",
        "fact_check",
        "assert_fact_checked: the catalog's fact-check question to the judge, 0-1 (no web search)",
    ),
    _r(
        "000",
        "Faithfulness Evaluator",
        "check",
        "faithfulness",
        "assert_faithful: claims of the answer, one verdict each against the context",
    ),
    _r(
        "000",
        "Context Recall Evaluator",
        "check",
        "context_recall",
        "assert_context_recall: expected-answer statements the context holds",
    ),
    _r(
        "000",
        "Context Mean Reciprocal Rank Evaluator",
        "check",
        "context_mrr",
        "assert_context_ranked: reciprocal rank of the first chunk over relevance_threshold",
    ),
    _r(
        "000",
        "Answer Relevancy Evaluator",
        "check",
        "answer_relevancy_judge",
        "assert_answer_relevant: questions the answer answers, mean cosine to the real question",
    ),
    _r(
        "000",
        "Answer Relevancy (Sentence Similarity) Evaluator",
        "check",
        "answer_relevancy_similarity",
        "assert_relevant: the answer sentence closest to the question",
    ),
    _r(
        "000",
        "PII Leakage Evaluator",
        "check",
        "pii_leakage",
        "assert_no_pii: checksummed patterns over answer and context (retrieval_leak, generation_leak)",
    ),
    _r(
        "000",
        "JSON Schema Evaluator",
        "check",
        "json_schema",
        "assert_json: parses and validates against a JSON Schema",
    ),
    _r(
        "000",
        "Encoding Guardrail Evaluator",
        "check",
        "encoding_guardrail",
        "assert_no_encoded_leak: decodes base16 / base64 parts, then applies the conditions",
    ),
    _r(
        "000",
        "Sensitive Data Leakage Evaluator",
        "check",
        "sensitive_data",
        "assert_no_sensitive_data: private keys, certificates, API keys, tokens, passwords",
    ),
    _r(
        "000",
        "Toxicity Evaluator",
        "check",
        "toxicity",
        "assert_not_toxic: profanity-check, detoxify or a transformers classifier, worst sentence",
    ),
    _r("000", "Fairness Bias Evaluator", "check", "fairness_bias", "assert_unbiased: probability of the biased class"),
    _r(
        "000",
        "Contact Information Evaluator",
        "check",
        "contact_information",
        "assert_no_contact_info: judge verdict on the answer and each retrieved chunk",
    ),
    _r(
        "000",
        "Language Mismatch (Judge) Evaluator",
        "check",
        "language_mismatch",
        "assert_same_language: judge compares the answer's language with the question's",
    ),
    _r(
        "000",
        "Looping Detection Evaluator",
        "check",
        "looping",
        "assert_not_looping: repeated sentences and substrings, compressibility",
    ),
    _r(
        "000",
        "Parameterizable BYOP Evaluator",
        "check",
        "byop",
        "assert_prompt: your true/false prompt over {question}, {actual}, {expected}, {context}",
    ),
    _r(
        "000",
        "Perplexity Evaluator",
        "check",
        "perplexity",
        "assert_fluent: exp(mean token NLL) of a causal LM; default threshold 200 (the catalog's 0.5 is below any "
        "perplexity)",
    ),
    _r(
        "000",
        "Questions Drift Evaluator",
        "check",
        "questions_drift",
        "assert_no_question_drift: cosine distance between the mean embeddings of earlier and later questions",
    ),
    _r("000", "Sexism (Judge) Evaluator", "check", "sexism", "assert_not_sexist: judge pass/fail"),
    _r(
        "000",
        "Step Alignment and Completeness Evaluator",
        "check",
        "step_alignment",
        "assert_steps_aligned: steps aligned by dynamic programming; insertions, deletions, mismatches",
    ),
    _r(
        "000",
        "Stereotypes (Judge) Evaluator",
        "check",
        "stereotypes",
        "assert_no_stereotypes: judge 0-10, fails from cutoff 5",
    ),
    _r(
        "000",
        "Summarization (Completeness and Faithfulness) Evaluator",
        "check",
        "summarization",
        "assert_good_summary: geometric completeness plus zero-shot NLI faithfulness",
    ),
    _r(
        "000",
        "Summarization (Judge) Evaluator",
        "check",
        "summarization_judge",
        "assert_good_summary_judged: comprehensive, concise, coherent, independent",
    ),
    _r(
        "000",
        "Summarization with reference (GPTScore) Evaluator",
        "check",
        "gptscore_summary_ref",
        "assert_gptscore('summary_ref', ...): LM likelihood under the catalog's templates, both directions",
    ),
    _r(
        "000",
        "Summarization without reference (GPTScore) Evaluator",
        "check",
        "gptscore_summary",
        "assert_gptscore('summary', ...) against the source",
    ),
    _r("000", "BERTScore Evaluator", "check", "bertscore", "assert_bertscore: token-matching precision, recall, F1"),
    _r("000", "BLEU Evaluator", "check", "bleu", "assert_bleu: bleu1 .. bleu4 with brevity penalty"),
    _r("000", "ROUGE Evaluator", "check", "rouge", "assert_rouge: rouge1, rouge2, rougeL, rougeLsum"),
    _r(
        "000",
        "Self-Consistency Evaluator",
        "check",
        "self_consistency",
        "assert_self_consistent: pairwise ROUGE between answers to one question, sampled above 100",
    ),
    _r(
        "000",
        "Classification Evaluator",
        "check",
        "classification label_prediction",
        "assert_classification (a set) or record_label (per test, gathered per model): accuracy, precision, recall, "
        "F1, ROC AUC",
    ),
    _r(
        "000",
        "Machine Translation (GPTScore) Evaluator",
        "check",
        "gptscore_translation",
        "assert_gptscore('translation', ...) against the expected translation",
    ),
    _r(
        "000",
        "Question Answering (GPTScore) Evaluator",
        "check",
        "gptscore_qa",
        "assert_gptscore('qa', ...): likelihood of 'Yes' to the catalog's quality questions",
    ),
    # 000: what every evaluator section reports besides its metric
    _r(
        "000",
        "insight: best performing model",
        "report",
        "",
        "'best model' in the terminal summary, JSON (summary.best_model), Markdown and HTML",
    ),
    _r(
        "000",
        "insight: most difficult test case",
        "report",
        "",
        "'most difficult case' (the case most models fail), with the models that failed it",
    ),
    _r(
        "000",
        "insight: most and least accurate, best and worst retrieval model",
        "report",
        "",
        "per-check leaderboard ranks the models (mean, sd, pass rate); first and last rows",
    ),
    _r(
        "000",
        "insight: fastest, slowest, cheapest, most expensive model",
        "report",
        "generation",
        "generation table of every report names them from measure_generation / record_generation records",
    ),
    _r(
        "000",
        "insight: weakest answer sentence (least grounded, least accurate)",
        "report",
        "",
        "Markdown / HTML insights: each check's worst result with the evaluator's evidence",
    ),
    _r(
        "000",
        "problem: metric flipped by a perturbation",
        "report",
        "",
        "perturbation flips table (terminal, JSON, Markdown, HTML, JUnit llmeval.flip.N); llmeval_perturb marker or "
        "perturbation_of rows",
    ),
    _r(
        "000",
        "problem: model whose mean score is below the threshold",
        "report",
        "",
        "summary problems: each model whose mean of a check's primary metric misses the threshold (terminal "
        "'below threshold:' lines, JSON summary.problems, Markdown and HTML)",
    ),
    _r(
        "000",
        "explanation: heatmap leaderboard",
        "report",
        "",
        "HTML report: leaderboard as a colour-scaled heatmap (models by check); per-case values in the JSON report",
    ),
    _r(
        "000",
        "explanation: evaluation results frame",
        "report",
        "",
        "JSON report: every result with metrics, thresholds, reason, evidence and signature",
    ),
    _r(
        "000",
        "parameter: metric threshold",
        "option",
        "",
        "threshold= / thresholds= on every helper, --llmeval-threshold EVALUATOR.METRIC=N, llmeval_thresholds ini",
    ),
    _r(
        "000",
        "parameter: custom judge per evaluator",
        "option",
        "",
        "--override-ini=llmeval_judge_for=EVALUATOR=MODEL (ini llmeval_judge_for): that check's own judge model",
    ),
    # ---- 001: Valor metrics ----
    _r(
        "001",
        "classification: Precision",
        "check",
        "classification label_prediction",
        "assert_classification metric precision (average= macro, weighted or micro); record_label per model",
    ),
    _r(
        "001",
        "classification: Recall",
        "check",
        "classification label_prediction",
        "assert_classification metric recall; per-label values in the details",
    ),
    _r(
        "001",
        "classification: F1",
        "check",
        "classification label_prediction",
        "assert_classification metric f1; macro F1 per model in the classification table",
    ),
    _r(
        "001",
        "classification: Accuracy",
        "check",
        "classification label_prediction",
        "assert_classification primary metric accuracy (0.75); record_label fails a wrong prediction",
    ),
    _r(
        "001",
        "classification: ROC AUC",
        "check",
        "classification label_prediction",
        "metric roc_auc given scores=: binary from the positive label, one-vs-rest macro for more labels",
    ),
    _r(
        "001",
        "classification: Precision-Recall Curves",
        "check",
        "classification label_prediction",
        "details.curves: ROC and precision-recall points per label; HTML draws them per model",
    ),
    _r(
        "001",
        "classification: Detailed Precision-Recall Curves",
        "option",
        "classification",
        "assert_classification(detailed_curve=True): per label at 0.05 .. 0.95, TP/FP/FN/TN with misclassified and "
        "unpredicted examples",
    ),
    _r("001", "detection: Average Precision (AP)", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: AP Averaged Over IOUs", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: Mean Average Precision (mAP)", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: mAP Averaged Over IOUs", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: Average Recall (AR)", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: Mean Average Recall (mAR)", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: Precision-Recall Curves (IoU matched)", "out of scope", "", _NOT_TEXT),
    _r("001", "detection: Detailed Precision-Recall Curves (boxes)", "out of scope", "", _NOT_TEXT),
    _r("001", "segmentation: Intersection Over Union (IOU)", "out of scope", "", _NOT_TEXT),
    _r("001", "segmentation: Mean IOU", "out of scope", "", _NOT_TEXT),
    _r(
        "001",
        "text: Answer Correctness",
        "option",
        "answer_correctness",
        "assert_answer_correct(f1_weight=1, similarity_weight=0): statement F1 alone, no embedding model",
    ),
    _r(
        "001",
        "text: Answer Relevance",
        "option",
        "answer_relevancy_judge",
        "assert_answer_relevant(method='statements'): relevant statements / all statements",
    ),
    _r(
        "001", "text: Bias", "check", "bias_judge", "assert_unbiased_opinions: biased opinions / opinions (0 with none)"
    ),
    _r(
        "001",
        "text: BLEU",
        "check",
        "bleu",
        "assert_bleu records bleu4 (uniform 4-gram weights) and bleu with weights=; several expected answers are "
        "references",
    ),
    _r(
        "001",
        "text: Context Precision",
        "check",
        "context_precision",
        "assert_context_precision: useful for any of several expected answers",
    ),
    _r(
        "001",
        "text: Context Recall",
        "check",
        "context_recall",
        "assert_context_recall: best over several expected answers",
    ),
    _r(
        "001",
        "text: Context Relevance",
        "option",
        "context_relevancy_judge",
        "assert_context_relevant_judged(unit='chunk'): relevant chunks / all chunks",
    ),
    _r("001", "text: Faithfulness", "check", "faithfulness", "assert_faithful: implied claims / claims"),
    _r(
        "001",
        "text: Hallucination",
        "check",
        "hallucination_judge",
        "assert_no_hallucination_judged: contradicted chunks / chunks (lower is better)",
    ),
    _r(
        "001",
        "text: ROUGE",
        "check",
        "rouge",
        "assert_rouge: rouge1, rouge2, rougeL, rougeLsum; use_stemmer= and rouge_types= as Valor passes them",
    ),
    _r(
        "001",
        "text: Summary Coherence",
        "check",
        "summary_coherence",
        "assert_coherent_summary: 1-5 against the source",
    ),
    _r(
        "001",
        "text: Toxicity",
        "check",
        "toxicity_judge",
        "assert_non_toxic_opinions: toxic opinions / opinions (0 with none)",
    ),
    # ---- 002: dataset format and judge checks ----
    _r(
        "002",
        "dataset: input (question, conversation history)",
        "feature",
        "",
        "cases() / load_cases(): input.question becomes case.question, input.conversation_history case.history",
    ),
    _r(
        "002",
        "dataset: expected output",
        "feature",
        "",
        "cases() / load_cases(): expected_output.answer (one text or several) becomes case.expected",
    ),
    _r(
        "002",
        "dataset: metadata (category, difficulty)",
        "feature",
        "",
        "cases() / load_cases(): metadata kept on the case; category and difficulty become llmeval marker tags",
    ),
    _r(
        "002",
        "Accuracy",
        "check",
        "accuracy_bucket",
        "assert_bucket(scale='accuracy'): Accurate / Slightly Inaccurate / Completely Incorrect; accept= picks passing "
        "buckets",
    ),
    _r(
        "002",
        "Facts Compare",
        "check",
        "facts_compare",
        "assert_bucket(scale='facts'): Superset / Identical / Similar / Subset / Disagreement",
    ),
    _r(
        "002",
        "SQL Eval",
        "check",
        "sql_eval",
        "assert_bucket(scale='sql'): Best / Acceptable / Incorrect / Undetermined",
    ),
    _r(
        "002",
        "RAG Context Recall",
        "check",
        "context_recall_sentences",
        "assert_answer_in_context: share of answer sentences found in the context",
    ),
    _r(
        "002",
        "RAG Context Precision",
        "option",
        "context_relevancy_judge",
        "assert_context_relevant_judged(unit='chunk'): share of chunks relevant to the input",
    ),
    _r(
        "002",
        "RAG Hallucination",
        "check",
        "hallucination_sentences",
        "assert_no_hallucinated_sentences: share of answer sentences the context does not support (lower is better)",
    ),
    # ---- 003: DataRobot LLM custom metrics (22 rows) ----
    _r(
        "003",
        "ROUGE-1",
        "option",
        "rouge",
        "assert_rouge with the retrieved context as expected= and f_measure='max_pr': max of unigram precision and "
        "recall; gate rouge1",
    ),
    _r(
        "003",
        "Faithfulness",
        "option",
        "faithfulness",
        "assert_faithful(binary=True): 1 only when every claim is supported",
    ),
    _r("003", "Correctness", "check", "correctness", "assert_correct: judge 1-5 with the question, passes at 4"),
    _r(
        "003",
        "Prompt Injection Classifier",
        "check",
        "prompt_injection",
        "assert_no_prompt_injection: probability of the injection class (deberta-v3-base-injection reference)",
    ),
    _r(
        "003",
        "Sentiment Classifier",
        "option",
        "sentiment",
        "assert_sentiment(backend='transformers', scale='probability'): positive-class probability in [0, 1]",
    ),
    _r("003", "Sentiment Classifier (NLTK)", "check", "sentiment", "assert_sentiment: VADER compound score, -1 .. 1"),
    _r(
        "003",
        "PII Detection",
        "check",
        "pii_presidio",
        "assert_no_pii_presidio: Presidio findings (entities= picks types), anonymised text in the details",
    ),
    _r(
        "003",
        "Japanese PII Occurrence Count",
        "option",
        "pii_presidio",
        "assert_no_pii_presidio(language='ja'): Presidio with GiNZA (ja_ginza) and Japanese address, phone and "
        "passport patterns; the metric pii_occurrences sums the findings over entity types (presidio-ja extra)",
    ),
    _r(
        "003",
        "Toxicity",
        "option",
        "toxicity",
        "assert_not_toxic(backend='transformers', scorer='martin-ha/toxic-comment-model')",
    ),
    _r(
        "003",
        "Dale-Chall Readability",
        "check",
        "dale_chall",
        "assert_dale_chall: raw score with the 3.6365 adjustment, grade band",
    ),
    _r("003", "Flesch Reading Ease", "check", "flesch_reading_ease", "assert_flesch_reading_ease: min= / max= bounds"),
    _r(
        "003",
        "Token Count",
        "check",
        "token_count",
        "assert_token_count: tiktoken cl100k_base (or encoding=), fields= adds question and context",
    ),
    _r(
        "003",
        "Cost",
        "check",
        "generation",
        "measure_generation(price=(prompt, completion)) or record_generation(cost=); max_cost= budget",
    ),
    _r("003", "Latency", "check", "generation", "measure_generation times the call; max_latency_ms= budget"),
    _r(
        "003",
        "Completion Tokens Mean",
        "report",
        "generation",
        "JSON summary.operations completion_tokens_mean per model, from generation records",
    ),
    _r("003", "Prompt Tokens Mean", "report", "generation", "JSON summary.operations prompt_tokens_mean per model"),
    _r(
        "003",
        "Tokens Mean",
        "report",
        "generation",
        "tokens_mean per model in the terminal, JSON, Markdown and HTML generation tables",
    ),
    _r(
        "003",
        "Completion Reading Time",
        "check",
        "reading_time",
        "assert_reading_time: words at 265 per minute plus image time",
    ),
    _r(
        "003",
        "Character Count [Japanese]",
        "check",
        "japanese_character_count",
        "assert_japanese_character_count: kana and kanji; fields= adds the prompt",
    ),
    _r("003", "Sentence Count", "check", "sentence_count", "assert_sentence_count: fields= sums prompt and answer"),
    _r("003", "Syllable Count", "check", "syllable_count", "assert_syllable_count: CMU Pronouncing Dictionary"),
    _r(
        "003",
        "Word Count",
        "check",
        "word_count",
        "assert_word_count: punctuation is not a word; fields= adds the prompt",
    ),
    # ---- 004: survey notes ----
    _r("004", "benchmark: GLUE", "out of scope", "", _BENCHMARK),
    _r("004", "benchmark: SuperGLUE", "out of scope", "", _BENCHMARK),
    _r("004", "benchmark: HellaSwag", "out of scope", "", _BENCHMARK),
    _r("004", "benchmark: TruthfulQA", "out of scope", "", _BENCHMARK),
    _r("004", "benchmark: MMLU", "out of scope", "", _BENCHMARK),
    _r(
        "004",
        "Answer Relevancy",
        "check",
        "answer_relevancy_judge answer_relevancy_similarity",
        "assert_answer_relevant (method='statements': share of relevant statements) or assert_relevant",
    ),
    _r(
        "004",
        "Task Completion",
        "check",
        "task_completion",
        "assert_task_completed: judge reads task, outcome and tools called, 0-1",
    ),
    _r("004", "Correctness", "check", "answer_correctness correctness", "assert_answer_correct or assert_correct"),
    _r(
        "004",
        "Hallucination",
        "check",
        "hallucination_judge hallucination selfcheckgpt",
        "assert_no_hallucination_judged (contradicted contexts), assert_no_hallucination, assert_self_checked",
    ),
    _r(
        "004",
        "Tool Correctness",
        "check",
        "tool_correctness",
        "assert_tools_called: expected tools by name; match_arguments=, match_output=, consider_ordering=, "
        "exact_match=",
    ),
    _r(
        "004",
        "Contextual Relevancy",
        "check",
        "context_relevancy_judge context_relevancy",
        "assert_context_relevant_judged (unit='chunk': per retrieved document) or assert_context_relevant",
    ),
    _r(
        "004",
        "Bias (responsible metric)",
        "check",
        "bias_judge fairness_bias",
        "assert_unbiased_opinions, assert_unbiased, or assert_geval with a bias criterion",
    ),
    _r(
        "004",
        "Toxicity (responsible metric)",
        "check",
        "toxicity_judge toxicity",
        "assert_non_toxic_opinions or assert_not_toxic",
    ),
    _r(
        "004",
        "Task-specific metrics (summarization)",
        "check",
        "summarization_qag summarization_judge g_eval",
        "assert_summary_qag, assert_good_summary_judged, or assert_geval with your criterion",
    ),
    _r("004", "BLEU", "check", "bleu", "assert_bleu"),
    _r("004", "ROUGE", "check", "rouge", "assert_rouge"),
    _r("004", "METEOR", "check", "meteor", "assert_meteor: form, stem and synonym matches with an order penalty"),
    _r(
        "004",
        "Levenshtein distance",
        "check",
        "edit_distance",
        "assert_edit_distance: normalised character edit similarity",
    ),
    _r(
        "004",
        "NLI",
        "option",
        "groundedness hallucination",
        "assert_grounded(method='nli', nli_model=...) or assert_no_hallucination(method='nli', scorer=...)",
    ),
    _r("004", "BLEURT", "check", "bleurt", "assert_bleurt: a local BLEURT PyTorch checkpoint via scorer="),
    _r("004", "BERTScore", "check", "bertscore", "assert_bertscore: idf= optional"),
    _r(
        "004",
        "MoverScore",
        "check",
        "moverscore",
        "assert_moverscore: earth mover's distance over contextual token embeddings",
    ),
    _r(
        "004",
        "G-Eval",
        "check",
        "g_eval",
        "assert_geval: evaluation steps from the criterion, 0-10 weighted by score-token probabilities when logprobs "
        "come back",
    ),
    _r("004", "DAG", "check", "dag", "assert_dag: judgement and task nodes, scores at the leaves"),
    _r(
        "004",
        "Prometheus",
        "check",
        "prometheus",
        "assert_rubric: 1-5 against a given five-level rubric in Prometheus's absolute-grading prompt "
        "(a Prometheus model judges it through --override-ini=llmeval_judge_for=prometheus=MODEL)",
    ),
    _r(
        "004",
        "QAG Score",
        "check",
        "summarization_qag faithfulness",
        "assert_summary_qag (closed yes/no questions) and assert_faithful (a verdict per claim)",
    ),
    _r(
        "004",
        "GPTScore",
        "check",
        "gptscore_summary_ref gptscore_summary gptscore_translation gptscore_qa",
        "assert_gptscore: LM likelihood of the answer under an instruction template",
    ),
    _r(
        "004",
        "SelfCheckGPT",
        "check",
        "selfcheckgpt",
        "assert_self_checked: sentences against other samples of the same model",
    ),
    _r(
        "004",
        "Faithfulness (QAG, idk counts as truthful)",
        "option",
        "faithfulness",
        "assert_faithful(unknown_claims='supported'): yes and idk claims count, as the notes define it",
    ),
    _r("004", "Contextual Precision", "check", "context_precision", "assert_context_precision"),
    _r("004", "Contextual Recall", "check", "context_recall", "assert_context_recall"),
    _r(
        "004",
        "code-based: correct structure of output",
        "check",
        "json_schema text_matching",
        "assert_json (schema) or assert_matches (regexp conditions)",
    ),
    _r(
        "004",
        "code-based: specific data in output",
        "check",
        "text_matching",
        "assert_matches: required and forbidden strings",
    ),
    _r(
        "004",
        "DeepEval metrics",
        "feature",
        "",
        "assert_metric runs any deepeval metric as a check; the llmeval_deepeval_judge fixture records its judge calls",
    ),
    _r(
        "004",
        "evaluation platforms (Azure AI Foundry, OpenAI Evals, W&B, LangSmith, TruLens, Vertex AI, Bedrock, Parea, "
        "Opik)",
        "out of scope",
        "",
        "hosted or separate evaluation products, not checks; their metrics are mapped in the rows above",
    ),
)


def coverage_counts() -> dict[str, tuple[int, int, int]]:
    """Per seed: (items, implemented, out of scope); the rest are missing."""
    out: dict[str, tuple[int, int, int]] = {}
    for seed in SEEDS:
        rows = [r for r in SEED_COVERAGE if r.seed == seed]
        out[seed] = (
            len(rows),
            sum(r.status in IMPLEMENTED for r in rows),
            sum(r.status == "out of scope" for r in rows),
        )
    return out


def missing() -> list[Coverage]:
    """The rows nothing here implements."""
    return [r for r in SEED_COVERAGE if r.status == "missing"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def coverage_table() -> list[str]:
    """The audit as Markdown lines: a summary per seed, then one table per seed."""
    counts = coverage_counts()
    lines = ["| catalog | what it is | items | implemented | out of scope | missing |", "|---|---|---:|---:|---:|---:|"]
    for seed, (total, done, out) in counts.items():
        lines.append(f"| {CATALOG_NAMES[seed]} | {SEEDS[seed]} | {total} | {done} | {out} | {total - done - out} |")
    for seed in SEEDS:
        lines += [
            "",
            f"**{CATALOG_NAMES[seed]}: {SEEDS[seed]}**",
            "",
            "| item | status | what implements it |",
            "|---|---|---|",
        ]
        for row in SEED_COVERAGE:
            if row.seed != seed:
                continue
            names = ", ".join(f"`{name}`" for name in row.evaluators)
            what = f"{names}: {row.how}" if names else row.how
            lines.append(f"| {_cell(row.item)} | {row.status} | {_cell(what)} |")
    return lines
