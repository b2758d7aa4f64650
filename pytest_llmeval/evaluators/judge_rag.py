"""Judge checks of retrieval, counted by sentence or by chunk.

- ``context_relevancy_judge`` (seed 000, after RAGAS): the share of the retrieved
  context's sentences that the judge finds relevant to the question
  (``unit="sentence"``, the catalog's formula: relevant sentences / all sentences),
  or the share of relevant chunks (``unit="chunk"``).
- ``hallucination_judge`` (seed 001): the share of chunks the answer contradicts.
- ``context_recall_sentences`` and ``hallucination_sentences`` (seed 002): the judge
  says of each sentence of the answer whether the context supports it; the first
  reports the share that does (higher is better), the second the share that does
  not (lower is better). Both ask the same question, so with the judge cache on
  the second check of an answer costs no calls.

Sentences are split as everywhere else in the package
(:func:`pytest_llmeval.text.split_sentences`); at most ``max_sentences`` are judged
per case, and a result that judged fewer than there were says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..judges.base import JudgeParseError
from ..text import excerpt, sentences_or_text
from .base import MetricSpec, Score, require_choice, require_number
from .judged import PARSE_FAILURE, JudgeEvaluator, _judge_metrics, _yes

__all__ = ["ContextRelevancyJudge", "HallucinationJudge", "SentenceContextRecall", "SentenceHallucination"]

#: Judge calls one case may make at most by default (one per sentence).
MAX_SENTENCES = 100

_RELEVANT = """Is this part of the retrieved context relevant to answering the question? Reply with JSON only:
{{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Question: {question}
Context {unit}: {chunk}
"""

_CONTRADICTS = """Does the text directly contradict the context? Answer "yes" only for a direct contradiction, otherwise "no".
Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Text: {text}
"""

_SENTENCE_SUPPORTED = """Is the information in the sentence present in, or directly supported by, the context? Reply with
JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Sentence: {sentence}
"""


def _sentences(texts: Sequence[str]) -> list[str]:
    """Every sentence of ``texts`` in order (a text without a sentence boundary is one sentence)."""
    return [sentence for text in texts for sentence in sentences_or_text(text)]


def _check_max(evaluator: JudgeEvaluator) -> None:
    require_number(evaluator.name, "max_sentences", evaluator.params["max_sentences"], low=1, integer=True)


def _capped(items: list[str], limit: int) -> tuple[list[str], str]:
    """The first ``limit`` items and, when some are left out, the words saying so."""
    if len(items) <= limit:
        return items, ""
    return items[:limit], f" (the first {limit} of {len(items)} sentences judged: raise max_sentences to judge all)"


class ContextRelevancyJudge(JudgeEvaluator):
    """Share of the retrieved context the judge finds relevant to the question, by sentence (default) or chunk.

    Parameters:
        unit: ``sentence`` (seed 000: relevant sentences / all sentences of the context) or
            ``chunk`` (relevant chunks / all chunks).
        max_sentences: sentences judged at most per case (one judge call each).
    """

    name = "context_relevancy_judge"
    version = "2"  # 2: sentence-level by default (the catalog's formula)
    helper = "assert_context_relevant_judged"
    extra = "judge"
    description = "The retrieved context is relevant to the question, sentence by sentence (LLM judge)"
    requires = ("question", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unit": "sentence", "max_sentences": MAX_SENTENCES}
    metrics = _judge_metrics("context_relevancy", "share of relevant context sentences (or chunks)")

    def configure(self) -> None:
        require_choice(self.name, "unit", self.params["unit"], ("sentence", "chunk"))
        _check_max(self)

    def score(self, case: Case) -> Score:
        unit = self.params["unit"]
        parts, note = (_capped(_sentences(case.context), self.params["max_sentences"]) if unit == "sentence"
                       else (list(case.context), ""))
        if not parts:
            return Score({"context_relevancy": None, "parse_failure": 0.0}, "the context has no sentence to judge", {})
        try:
            relevant = self.fan_out([lambda i=i, part=part: _yes(self, _RELEVANT, f"{self.name} {unit} {i}",  # type: ignore[misc]
                                                                 question=case.question or "", unit=unit, chunk=part)
                                     for i, part in enumerate(parts)])
        except JudgeParseError as exc:
            return self.unscored(["context_relevancy"], exc)
        value = sum(relevant) / len(relevant)
        details: dict[str, Any] = {"unit": unit, "verdicts": relevant}
        if unit == "sentence":
            details["irrelevant"] = [excerpt(p, 120) for p, ok in zip(parts, relevant) if not ok][:5]
        return Score({"context_relevancy": value, "parse_failure": 0.0}, f"{sum(relevant)}/{len(relevant)} {unit}s relevant{note}",
                     details)


class HallucinationJudge(JudgeEvaluator):
    """Share of retrieved chunks the answer contradicts (lower is better)."""

    name = "hallucination_judge"
    helper = "assert_no_hallucination_judged"
    extra = "judge"
    description = "The answer contradicts none of the retrieved chunks (LLM judge)"
    requires = ("actual", "context")
    metrics = _judge_metrics("hallucination", "share of chunks the answer contradicts", higher_is_better=False)

    def score(self, case: Case) -> Score:
        try:
            contradicted = self.fan_out([lambda i=i, chunk=chunk: _yes(self, _CONTRADICTS, f"{self.name} chunk {i}",  # type: ignore[misc]
                                                                       context=chunk, text=case.actual or "")
                                         for i, chunk in enumerate(case.context)])
        except JudgeParseError as exc:
            return self.unscored(["hallucination"], exc)
        value = sum(contradicted) / len(contradicted)
        return Score({"hallucination": value, "parse_failure": 0.0}, f"contradicts {sum(contradicted)}/{len(contradicted)} chunks",
                     {"verdicts": contradicted})


def _support_metrics(primary: str) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec("context_recall", "share of answer sentences the context supports", threshold=0.75,
                   primary=primary == "context_recall"),
        MetricSpec("hallucination", "share of answer sentences the context does not support", higher_is_better=False,
                   threshold=0.25, primary=primary == "hallucination"),
        PARSE_FAILURE,
    )


class _SentenceSupport(JudgeEvaluator):
    """Seed 002's RAG checks: one verdict per answer sentence, "is it in the context?"."""

    requires = ("actual", "context")
    extra = "judge"
    defaults: ClassVar[Mapping[str, Any]] = {"max_sentences": MAX_SENTENCES}
    verdicts_of = "sentence_support"  # both checks of one answer share the cached verdicts

    def configure(self) -> None:
        _check_max(self)

    def score(self, case: Case) -> Score:
        sentences, note = _capped(_sentences([case.actual or ""]), self.params["max_sentences"])
        if not sentences:
            return self.nothing_to_judge(["context_recall", "hallucination"], "the answer has no sentence to judge", {"verdicts": []})
        context = "\n\n".join(case.context)
        try:
            supported = self.fan_out([lambda i=i, s=s: _yes(self, _SENTENCE_SUPPORTED, f"{self.name} sentence {i}",  # type: ignore[misc]
                                                            context=context, sentence=s) for i, s in enumerate(sentences)])
        except JudgeParseError as exc:
            return self.unscored(["context_recall", "hallucination"], exc)
        share = sum(supported) / len(supported)
        unsupported = [excerpt(s, 120) for s, ok in zip(sentences, supported) if not ok]
        reason = f"{sum(supported)}/{len(supported)} answer sentences are in the context{note}"
        if unsupported:
            reason += f"; first unsupported: {unsupported[0]!r}"
        return Score({"context_recall": share, "hallucination": 1.0 - share, "parse_failure": 0.0}, reason,
                     {"verdicts": supported, "unsupported": unsupported[:5]})


class SentenceContextRecall(_SentenceSupport):
    """Seed 002's context recall: share of the answer's sentences found in the context (higher is better)."""

    name = "context_recall_sentences"
    helper = "assert_answer_in_context"
    description = "The answer's sentences are found in the retrieved context (LLM judge)"
    metrics = _support_metrics("context_recall")


class SentenceHallucination(_SentenceSupport):
    """Seed 002's hallucination: share of the answer's sentences the context does not support (lower is better)."""

    name = "hallucination_sentences"
    helper = "assert_no_hallucinated_sentences"
    description = "No answer sentence lacks support in the retrieved context (LLM judge)"
    metrics = _support_metrics("hallucination")
