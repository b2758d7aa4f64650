"""The ``answer_relevancy_judge`` check: How well the answer addresses the question."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Score
from ...kit import require_choice, require_number
from ...kit import Result
from ...kit.judge import JudgeParseError
from ...kit.judge import ask_yes_no, judge_metrics, judge_statements
from .answer_correctness import EmbeddingJudge

__all__ = ["assert_answer_relevant", "AnswerRelevancyJudge"]


def assert_answer_relevant(
    actual: str, question: str, *, method: str = "questions", n: int = 3, **kwargs: Any
) -> Result:
    """The answer addresses the question (LLM judge; threshold 0.75): generated questions' similarity (RAGAS) or
    relevant statements."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history"))
    return check(AnswerRelevancyJudge, actual=actual, question=question, params={"method": method, "n": n}, **kwargs)


QUESTIONS_PROMPT = """Write {n} different questions that the answer below would answer. Also say whether the answer is \
noncommittal
(evasive or vague, such as "I don't know" or "I'm not sure").
Reply with JSON only: {{"questions": ["...", ...], "noncommittal": false}}.

Answer: {answer}
"""


RELEVANT_STATEMENT_PROMPT = """Is the statement relevant to answering the question? Reply with JSON only: {{"verdict": \
"yes"}} or
{{"verdict": "no"}}, plus a short "reason".

Question: {question}
Statement: {statement}
"""


class AnswerRelevancyJudge(EmbeddingJudge):
    """How well the answer addresses the question.

    ``method="questions"`` (RAGAS, default): the judge writes ``n`` questions the answer
    would answer; the score is their mean cosine similarity to the real question
    (clipped at 0; 0 for a noncommittal answer; needs the embedding model).
    ``method="statements"`` (DeepEval): the share of the answer's statements relevant to the question.
    """

    name = "answer_relevancy_judge"
    helper = "assert_answer_relevant"
    extra = "judge"
    description = "The answer addresses the question (LLM judge; generated questions or relevant statements)"
    requires = ("actual", "question")
    defaults: ClassVar[Mapping[str, Any]] = {"method": "questions", "n": 3}
    metrics = judge_metrics(
        "answer_relevancy", "mean similarity of generated questions to the question, or share of relevant statements"
    )

    def configure(self) -> None:
        require_choice(self.name, "method", self.params["method"], ("questions", "statements"))
        require_number(self.name, "n", self.params["n"], low=1, high=20, integer=True)

    def uses_embedder(self) -> bool:
        return bool(self.params["method"] == "questions")

    def score(self, case: Case) -> Score:
        try:
            if self.params["method"] == "statements":
                statements = judge_statements(self, case.actual or "", f"{self.name} statements")
                relevant = [
                    ask_yes_no(
                        self,
                        RELEVANT_STATEMENT_PROMPT,
                        f"{self.name} statement {i}",
                        question=case.question or "",
                        statement=s,
                    )
                    for i, s in enumerate(statements)
                ]
                if not relevant:
                    return self.nothing_to_judge(["answer_relevancy"], "the judge found no statements in the answer")
                value = sum(relevant) / len(relevant)
                return Score(
                    {"answer_relevancy": value, "parse_failure": 0.0},
                    f"{sum(relevant)}/{len(relevant)} statements relevant",
                    {"statements": [{"statement": s, "relevant": r} for s, r in zip(statements, relevant)]},
                )
            schema = {
                "type": "object",
                "properties": {
                    "questions": {"type": "array", "items": {"type": "string"}},
                    "noncommittal": {"type": "boolean"},
                },
                "required": ["questions"],
            }
            reply = self.ask(
                QUESTIONS_PROMPT,
                what=f"{self.name} questions",
                schema=schema,
                n=str(self.params["n"]),
                answer=case.actual or "",
            )
        except JudgeParseError as exc:
            return self.unscored(["answer_relevancy"], exc)
        questions = list(reply["questions"])[: self.params["n"]]
        noncommittal = bool(reply.get("noncommittal", False))
        if noncommittal:
            return Score(
                {"answer_relevancy": 0.0, "parse_failure": 0.0},
                "noncommittal answer",
                {"questions": [{"question": q} for q in questions], "noncommittal": True},
            )
        if not questions:
            self.runner.count_parse_failure(self.name)
            return self.unscored(["answer_relevancy"], JudgeParseError("no questions generated for a committal answer"))
        vectors = self.embedder().encode([case.question or "", *questions])
        similarities = [max(0.0, min(1.0, float(vectors[0] @ v))) for v in vectors[1:]]
        value = sum(similarities) / len(similarities)
        return Score(
            {"answer_relevancy": value, "parse_failure": 0.0},
            f"mean similarity of {len(questions)} generated questions {value:.3f}",
            {
                "questions": [{"question": q, "similarity": round(s, 6)} for q, s in zip(questions, similarities)],
                "noncommittal": False,
            },
        )


#: This check's judge prompts by name (replace them with ``prompts={name: template}`` or the
#: ``pytest_llmeval_judge_prompts`` hook).
PROMPTS: Mapping[str, str] = {"questions": QUESTIONS_PROMPT, "relevant_statement": RELEVANT_STATEMENT_PROMPT}
