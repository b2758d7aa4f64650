"""The ``selfcheckgpt`` check: Inconsistency of the answer with other samples of the same model (SelfCheckGPT, prompt
variant)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit import JudgeEvaluator
from ...kit.judge import PARSE_FAILURE, verdict_schema
from ...kit.text import split_sentences

__all__ = ["assert_self_checked", "SelfCheckGPT"]


def assert_self_checked(actual: str, samples: Any, **kwargs: Any) -> Result:
    """SelfCheckGPT: the answer's sentences agree with other samples of the same model (LLM judge; threshold 0.5, lower
    is better)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(SelfCheckGPT, actual=actual, context=samples, **kwargs)


SUPPORTS_PROMPT = """Is the sentence supported by the context? Reply with JSON only: {{"verdict": "yes"}} or \
{{"verdict": "no"}}.

Context: {sample}
Sentence: {sentence}
"""


class SelfCheckGPT(JudgeEvaluator):
    """Inconsistency of the answer with other samples of the same model (SelfCheckGPT, prompt variant).

    One judge call per sentence and sample: ``max_sentences`` (default 20) bounds
    the sentences judged, the first ones; the result says how many were.
    """

    name = "selfcheckgpt"
    helper = "assert_self_checked"
    extra = "judge"
    defaults: ClassVar[Mapping[str, Any]] = {"max_sentences": 20}
    description = (
        "The answer's sentences agree with other sampled answers of the same model (LLM judge; lower is better)"
    )
    requires = ("actual", "context")
    metrics = (
        MetricSpec(
            "selfcheck",
            "mean share of samples not supporting a sentence",
            higher_is_better=False,
            threshold=0.5,
            primary=True,
        ),
        MetricSpec("max_sentence", "the least consistent sentence's score", higher_is_better=False, threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        super().configure()
        require_number(self.name, "max_sentences", self.params["max_sentences"], low=1, integer=True)

    def score(self, case: Case) -> Score:
        every = split_sentences(case.actual or "")
        if not every:
            return self.nothing_to_judge(["selfcheck", "max_sentence"], "the answer has no sentence to check")
        sentences = every[: self.params["max_sentences"]]
        try:
            scores = []
            for i, sentence in enumerate(sentences):
                unsupported = [
                    self.ask(
                        SUPPORTS_PROMPT,
                        what=f"{self.name} sentence {i} sample {j}",
                        schema=verdict_schema("yes", "no"),
                        sample=sample,
                        sentence=sentence,
                    )["verdict"]
                    == "no"
                    for j, sample in enumerate(case.context)
                ]
                scores.append(sum(unsupported) / len(unsupported))
        except JudgeParseError as exc:
            return self.unscored(["selfcheck", "max_sentence"], exc)
        worst = max(range(len(scores)), key=scores.__getitem__)
        value = sum(scores) / len(scores)
        judged = (
            f"{len(sentences)} sentences"
            if len(sentences) == len(every)
            else f"the first {len(sentences)} of {len(every)} sentences (max_sentences)"
        )
        return Score(
            {"selfcheck": value, "max_sentence": scores[worst], "parse_failure": 0.0},
            f"{judged} against {len(case.context)} samples; least consistent ({scores[worst]:.2f}): "
            f"{sentences[worst][:100]!r}",
            {
                "sentences": [{"sentence": s[:300], "score": v} for s, v in zip(sentences[:100], scores)],
                "sentences_judged": len(sentences),
                "sentences_total": len(every),
            },
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"supports": SUPPORTS_PROMPT}
