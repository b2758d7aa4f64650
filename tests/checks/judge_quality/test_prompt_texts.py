"""Prompt texts that must say what the scoring reads: QAG summarization's alignment question and GPTScore's QA
templates."""

from __future__ import annotations

import json
import re

import pytest

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.language_model import gptscore

# -- summarization_qag: the alignment question and its answer key agree ------------------------------------

SOURCE = "The library opens at 9 am on weekdays. Entry is free for students."
FACTS = {  # claim -> does the source support it (True) or contradict it (False)
    "The library opens at 9 am on weekdays.": True,
    "Students get in free.": True,
    "The library opens at noon.": False,
    "Students pay for entry.": False,
}
SUMMARIES = {
    "The library opens at 9 am on weekdays and students get in free.": [
        "The library opens at 9 am on weekdays.",
        "Students get in free.",
    ],
    "The library opens at noon and students pay.": ["The library opens at noon.", "Students pay for entry."],
}
QUESTIONS = ["Does the library open at 9 am on weekdays?", "Is entry free for students?"]


def truthful_judge(body):
    """Answers each prompt's question as it is written, from the facts above."""
    prompt = body["messages"][-1]["content"]
    props = body["response_format"]["json_schema"]["schema"].get("properties", {})
    if "claims" in props:
        summary = prompt.rsplit("Answer:", 1)[1].strip()
        return {"text": json.dumps({"claims": SUMMARIES[summary]})}
    if "questions" in props:
        return {"text": json.dumps({"questions": QUESTIONS})}
    claim = re.search(r"^Claim: (.*)$", prompt, re.MULTILINE)
    if claim:
        supported = FACTS[claim.group(1).strip()]
        asked = prompt.split("?", 1)[0].lower()
        if "contradict" in asked:
            yes = not supported
        elif "agree" in asked or "support" in asked:
            yes = supported
        else:
            return {"text": "cannot tell what is asked"}
        return {"text": json.dumps({"verdict": "yes" if yes else "no", "reason": "read as asked"})}
    text = re.search(r"^Text: (.*)$", prompt, re.MULTILINE).group(1)
    said = text == SOURCE or "9 am" in text and "free" in text
    return {"text": json.dumps({"verdict": "yes" if said else "no"})}


@pytest.fixture
def qag(server, tmp_path):
    pytest.importorskip("openai")
    from pytest_llmeval.judges.cache import VerdictCache
    from pytest_llmeval.judges.openai_judge import OpenAIJudge
    from pytest_llmeval.judges.runner import JudgeRunner

    server.responder = truthful_judge
    evaluator = Registry(entry_points=False).create("summarization_qag", n=2)
    evaluator.bind_judge(
        JudgeRunner(
            OpenAIJudge("truthful", base_url=server.base_url, max_retries=0), VerdictCache(str(tmp_path), "off")
        )
    )
    return evaluator


def test_a_judge_answering_the_question_as_asked_aligns_the_supported_summary(qag, server):
    supported, contradicting = SUMMARIES
    [good, bad] = qag.evaluate([Case(actual=supported, context=[SOURCE]), Case(actual=contradicting, context=[SOURCE])])
    assert good.metrics["parse_failure"] == bad.metrics["parse_failure"] == 0.0
    assert good.metrics["alignment"] == 1.0 and good.passed, good.reason
    assert bad.metrics["alignment"] == 0.0 and not bad.passed, bad.reason
    [align] = {
        r["messages"][-1]["content"].split("?", 1)[0]
        for r in server.requests
        if "Claim:" in r["messages"][-1]["content"]
    }
    assert "agree" in align and "contradict" not in align  # the seed's question: does the claim agree with the source?


def test_summarization_qag_version_is_bumped():
    assert Registry(entry_points=False).create("summarization_qag").version != "1"


# -- GPTScore QA: the seed's templates, line breaks included -----------------------------------------------

# The catalog's Question Answering (GPTScore) instruction, one line per part; {history} is the conversation.
SEED_QA = "\n".join(
    [
        "Answer the question based on the conversation between a human and AI.",
        "Question: Are the responses of AI {quality}? (a) Yes. (b) No.",
        "Conversation: {history}",
        "Answer: Yes",
    ]
)
SEED_QUALITIES = {
    "interest": "interesting",
    "engagement": "engaging",
    "understandability": "understandable",
    "relevance": "relevant to the conversation",
    "specific": "generic or specific to the conversation",
    "correctness": "correct to conversations",
    "semantically_appropriate": "semantically appropriate",
    "fluency": "fluently written",
}


@pytest.mark.parametrize("aspect", sorted(SEED_QUALITIES))
def test_gptscore_qa_scores_the_seeds_text(aspect):
    evaluator = gptscore.GPTScoreQA()
    [(history, target)] = evaluator.pairs(Case(actual="Paris.", question="What is the capital of France?"))
    scored = evaluator.templates[aspect].format(source=history, target=" " + target)
    assert scored == SEED_QA.format(quality=SEED_QUALITIES[aspect], history=history)
    assert scored.count("\n") == 4 and "\\" not in scored  # three line breaks of the template, one in the conversation


def test_no_gptscore_template_holds_an_escaped_line_break():
    for cls in (
        gptscore.GPTScoreSummaryRef,
        gptscore.GPTScoreSummary,
        gptscore.GPTScoreTranslation,
        gptscore.GPTScoreQA,
    ):
        assert not [a for a, t in cls.templates.items() if "\\" in t], cls.name
    assert set(gptscore.GPTScoreQA.templates) == set(SEED_QUALITIES)
    assert gptscore.GPTScoreQA.version != "1"
