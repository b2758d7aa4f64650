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
(`pytest_llmeval.text.basics.split_sentences()`); at most ``max_sentences`` are judged
per case, and a result that judged fewer than there were says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, ask_yes_no
from ...kit.text import excerpt, sentences_or_text

__all__ = [
    "MAX_SENTENCES",
    "SENTENCE_SUPPORTED_PROMPT",
    "sentences_of",
    "check_max_sentences",
    "capped_sentences",
    "support_metrics",
    "SentenceSupport",
    "PROMPTS",
]

#: Judge calls one case may make at most by default (one per sentence).
MAX_SENTENCES = 100


SENTENCE_SUPPORTED_PROMPT = """Is the information in the sentence present in, or directly supported by, the context? \
Reply with
JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Sentence: {sentence}
"""


def sentences_of(texts: Sequence[str]) -> list[str]:
    """Every sentence of ``texts`` in order (a text without a sentence boundary is one sentence)."""
    return [sentence for text in texts for sentence in sentences_or_text(text)]


def check_max_sentences(evaluator: JudgeEvaluator) -> None:
    require_number(evaluator.name, "max_sentences", evaluator.params["max_sentences"], low=1, integer=True)


def capped_sentences(items: list[str], limit: int) -> tuple[list[str], str]:
    """The first ``limit`` items and, when some are left out, the words saying so."""
    if len(items) <= limit:
        return items, ""
    return items[:limit], f" (the first {limit} of {len(items)} sentences judged: raise max_sentences to judge all)"


def support_metrics(primary: str) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec(
            "context_recall",
            "share of answer sentences the context supports",
            threshold=0.75,
            primary=primary == "context_recall",
        ),
        MetricSpec(
            "hallucination",
            "share of answer sentences the context does not support",
            higher_is_better=False,
            threshold=0.25,
            primary=primary == "hallucination",
        ),
        PARSE_FAILURE,
    )


class SentenceSupport(JudgeEvaluator):
    """Seed 002's RAG checks: one verdict per answer sentence, "is it in the context?"."""

    requires = ("actual", "context")
    extra = "judge"
    defaults: ClassVar[Mapping[str, Any]] = {"max_sentences": MAX_SENTENCES}
    verdicts_of = "sentence_support"  # both checks of one answer share the cached verdicts

    def configure(self) -> None:
        check_max_sentences(self)

    def score(self, case: Case) -> Score:
        sentences, note = capped_sentences(sentences_of([case.actual or ""]), self.params["max_sentences"])
        if not sentences:
            return self.nothing_to_judge(
                ["context_recall", "hallucination"], "the answer has no sentence to judge", {"verdicts": []}
            )
        context = "\n\n".join(case.context)
        try:
            supported = self.fan_out(
                [
                    lambda i=i, s=s: ask_yes_no(
                        self,
                        SENTENCE_SUPPORTED_PROMPT,
                        f"{self.name} sentence {i}",  # type: ignore[misc]
                        context=context,
                        sentence=s,
                    )
                    for i, s in enumerate(sentences)
                ]
            )
        except JudgeParseError as exc:
            return self.unscored(["context_recall", "hallucination"], exc)
        share = sum(supported) / len(supported)
        unsupported = [excerpt(s, 120) for s, ok in zip(sentences, supported) if not ok]
        reason = f"{sum(supported)}/{len(supported)} answer sentences are in the context{note}"
        if unsupported:
            reason += f"; first unsupported: {unsupported[0]!r}"
        return Score(
            {"context_recall": share, "hallucination": 1.0 - share, "parse_failure": 0.0},
            reason,
            {"verdicts": supported, "unsupported": unsupported[:5]},
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"sentence_supported": SENTENCE_SUPPORTED_PROMPT}
