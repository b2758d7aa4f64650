"""Judge checks you shape yourself: G-Eval, a DAG of judgements, QAG summarization, task completion, SelfCheckGPT.

- ``g_eval``: from your ``criteria`` the judge writes evaluation steps (once, recorded
  like any verdict; or pass ``evaluation_steps``), then scores the case 0..``scale``
  following them. When the server returns token log-probabilities, the score is the
  probability-weighted mean of the score tokens (G-Eval's normalisation), which is
  finer-grained than the single integer; the metric is that score divided by ``scale``.
- ``dag``: a tree of judgement nodes with scores at the leaves (DeepEval's DAG). A node
  is ``{"judge": "criteria", "children": {"verdict": child, ...}}`` (binary with yes/no,
  or any verdict labels), or ``{"task": "instructions", "output": "label", "then": child}``
  (the judge's text is shown to later nodes under ``label``); a leaf is a number
  0..``max_score``. The metric is the leaf reached divided by ``max_score``; the path
  is the reason.
- ``summarization_qag`` (question-answer generation): alignment is the share of the
  summary's claims the source does not contradict; coverage asks ``n`` yes/no questions
  the source answers yes and counts those the summary answers yes too; the score is
  the lower of the two.
- ``task_completion``: the judge states the task and the outcome (from the answer and,
  when given, the tool calls in ``metadata["tools_called"]`` or the context), then
  scores 0-1 how fully the outcome achieves the task.
- ``selfcheckgpt`` (prompt variant): each sentence of the answer is checked against each
  sampled answer of the same model (passed as ``context``); a sentence's score is the
  share of samples that do not support it. The mean is the inconsistency (lower is
  better); the least consistent sentence is named.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..judges.base import JudgeParseError
from ..text import split_sentences
from .base import MetricSpec, Score, require_number, require_type
from .judged import _CLAIMS, PARSE_FAILURE, JudgeEvaluator, _score_schema, list_schema, verdict_schema

__all__ = ["GEval", "Dag", "SummarizationQAG", "TaskCompletion", "SelfCheckGPT", "weighted_score", "validate_dag"]

_LABELS = {"question": "Input", "actual": "Actual output", "expected": "Expected output", "context": "Context"}


def _case_block(case: Case, fields: Sequence[str] | None = None) -> str:
    values = {"question": case.question, "actual": case.actual, "expected": "\n".join(case.expected) if case.expected else None,
              "context": "\n\n".join(case.context) if case.context else None}
    names = fields or [name for name, value in values.items() if value]
    return "\n".join(f"{_LABELS[name]}: {values[name] or ''}" for name in names)


_SCORE_KEY = re.compile(r'"score"\s*:\s*$')


def weighted_score(top_logprobs: Sequence[Mapping[str, Any]], low: int, high: int, expected: int | None = None) -> float | None:
    """Probability-weighted score from the token log-probabilities of a ``{"score": N}`` reply.

    Finds the token after ``"score":`` and weights each integer alternative in
    ``low..high`` by its probability. ``None`` (use the plain score) when there is no
    such token, when the score is split over several tokens (``1``, ``0`` for 10, as
    some tokenizers do), or when the token is not the score ``expected``.

    >>> tokens = [{"token": '{"score": ', "top": {}}, {"token": "7", "top": {"7": math.log(0.6), "8": math.log(0.4)}}]
    >>> round(weighted_score(tokens, 0, 10), 3)
    7.4
    """
    before = ""
    for index, entry in enumerate(top_logprobs):
        token = str(entry.get("token", ""))
        if _SCORE_KEY.search(before) and token.strip().isdigit():
            following = str(top_logprobs[index + 1].get("token", "")) if index + 1 < len(top_logprobs) else ""
            if following[:1].isdigit() or (expected is not None and int(token.strip()) != expected):
                return None
            weights: dict[int, float] = {}
            for alternative, logprob in dict(entry.get("top") or {token: 0.0}).items():
                text = str(alternative).strip()
                if text.isdigit() and low <= int(text) <= high:
                    weights[int(text)] = weights.get(int(text), 0.0) + math.exp(float(logprob))
            total = sum(weights.values())
            return sum(k * p for k, p in weights.items()) / total if total > 0 else None
        before += token
    return None


# -- G-Eval ---------------------------------------------------------------------------------------

_STEPS = """You will write evaluation steps for grading an LLM's output on this criterion:

{criteria}

Write 3 to 5 concise, concrete evaluation steps a grader should follow. Reply with JSON only: {{"steps": ["...", "..."]}}.
"""

_GEVAL = """Grade the case below on the criterion, following the evaluation steps.

Criterion: {criteria}
Evaluation steps:
{steps}

{case}

Give a score from 0 (does not meet the criterion at all) to {scale} (fully meets it).
Reply with JSON only: {{"score": <0-{scale}>, "reason": "<one sentence>"}}.
"""


class GEval(JudgeEvaluator):
    """Your criterion, scored by the judge along generated (or given) evaluation steps."""

    name = "g_eval"
    helper = "assert_geval"
    extra = "judge"
    description = "Your criterion, judged along evaluation steps, 0-1 (G-Eval)"
    requires = ("actual",)
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"criteria": None, "evaluation_steps": None, "fields": None, "scale": 10, "logprobs": 20}
    metrics = (
        MetricSpec("g_eval", "score / scale, probability-weighted when the server gives log-probabilities", threshold=0.5, primary=True),
        MetricSpec("raw_score", "the judge's integer score", range=(0.0, 100.0), threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        require_type(self.name, "criteria", self.params["criteria"], str, "the criterion to judge, e.g. 'Coherence - ...'")
        steps = self.params["evaluation_steps"]
        if steps is not None:
            require_type(self.name, "evaluation_steps", steps, (list, tuple), "a list of step strings (or None to generate them)")
            if not steps or not all(isinstance(s, str) and s.strip() for s in steps):
                raise ValueError(f"{self.name}: parameter 'evaluation_steps' must be non-empty strings; got {steps!r}")
            self.params["evaluation_steps"] = list(steps)
        fields = self.params["fields"]
        if fields is not None:
            if isinstance(fields, str) or not isinstance(fields, (list, tuple)) or not set(fields) <= set(_LABELS) or not fields:
                raise ValueError(f"{self.name}: parameter 'fields' must list case fields from {', '.join(_LABELS)}; got {fields!r}")
            self.params["fields"] = list(fields)
        require_number(self.name, "scale", self.params["scale"], low=1, high=100, integer=True)
        require_number(self.name, "logprobs", self.params["logprobs"], low=0, high=20, integer=True)
        self._generated_steps: list[str] | None = None
        self._steps_lock = threading.Lock()

    def steps(self) -> list[str]:
        """The evaluation steps: given, or generated once per evaluator (every case is graded along the same ones)."""
        if self.params["evaluation_steps"]:
            return list(self.params["evaluation_steps"])
        with self._steps_lock:
            if self._generated_steps is None:
                self._generated_steps = list(self.ask(_STEPS, what=f"{self.name} evaluation steps", schema=list_schema("steps"),
                                                      criteria=self.params["criteria"])["steps"])
            return list(self._generated_steps)

    def score(self, case: Case) -> Score:
        scale = self.params["scale"]
        try:
            steps = self.steps()
            fields = dict(criteria=self.params["criteria"], steps="\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)),
                          case=_case_block(case, self.params["fields"]), scale=str(scale))
            options = {"logprobs": self.params["logprobs"]} if self.params["logprobs"] else None
            value, reply = self.ask_reply(_GEVAL, what=self.name, schema=_score_schema(0, scale), options=options, **fields)
        except JudgeParseError as exc:
            return self.unscored(["g_eval", "raw_score"], exc)
        weighted = weighted_score(reply.extra.get("top_logprobs") or [], 0, scale, expected=int(value["score"]))
        raw = float(value["score"])
        final = (weighted if weighted is not None else raw) / scale
        how = f"probability-weighted {weighted:.2f}" if weighted is not None else f"{raw:.0f}"
        return Score({"g_eval": final, "raw_score": raw, "parse_failure": 0.0},
                     f"{how}/{scale}: {str(value.get('reason', ''))[:200]}", {"steps": steps, "weighted": weighted})


# -- DAG ---------------------------------------------------------------------------------------------


def validate_dag(node: Any, max_score: float, path: str = "dag", depth: int = 0) -> None:
    """Raise ``ValueError`` naming the first malformed node by its path."""
    if depth > 30:
        raise ValueError(f"{path}: the DAG is deeper than 30 nodes (a cycle?)")
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        if not 0 <= node <= max_score:
            raise ValueError(f"{path}: a leaf score must be between 0 and max_score={max_score}; got {node}")
        return
    if not isinstance(node, Mapping):
        raise ValueError(f"{path}: expected a node (a mapping with 'judge' or 'task') or a leaf score; got {node!r:.60}")
    if "judge" in node:
        children = node.get("children")
        if not isinstance(node["judge"], str) or not isinstance(children, Mapping) or len(children) < 2:
            raise ValueError(f"{path}: a judgement node needs 'judge' (the criterion, a str) and 'children' (a mapping of at "
                             f"least two verdicts to a child node or a leaf score)")
        extra = set(node) - {"judge", "children"}
        if extra:
            raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(extra))} in a judgement node")
        labels = [str(v).strip().lower() for v in children]
        if len(set(labels)) != len(labels) or "" in labels:
            raise ValueError(f"{path}: verdict labels must be distinct and non-empty, ignoring case and spaces; got {list(children)}")
        for verdict, child in children.items():
            validate_dag(child, max_score, f"{path}.children[{verdict!r}]", depth + 1)
    elif "task" in node:
        if not isinstance(node["task"], str) or not isinstance(node.get("output"), str) or "then" not in node:
            raise ValueError(f"{path}: a task node needs 'task' (instructions, a str), 'output' (a label, a str) and 'then' (the next node)")
        extra = set(node) - {"task", "output", "then"}
        if extra:
            raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(extra))} in a task node")
        validate_dag(node["then"], max_score, f"{path}.then", depth + 1)
    else:
        raise ValueError(f"{path}: a node needs 'judge' (a judgement) or 'task' (a task); got keys {sorted(node)}")


_TASK = """Carry out the task on the case below. Reply with JSON only: {{"output": "<your result as text>"}}.

Task: {task}

{case}
"""

_JUDGEMENT = """Judge the case below on the criterion. Answer with exactly one of the verdicts: {verdicts}.
Reply with JSON only: {{"verdict": "<verdict>", "reason": "<one sentence>"}}.

Criterion: {criteria}

{case}
"""


class Dag(JudgeEvaluator):
    """A decision tree of judge verdicts with hard-coded leaf scores (more deterministic than one free score)."""

    name = "dag"
    helper = "assert_dag"
    extra = "judge"
    description = "A tree of judge verdicts with scores at the leaves (DAG metric)"
    requires = ("actual",)
    uses = ("question", "expected", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"dag": None, "max_score": 10}
    metrics = (MetricSpec("dag", "the leaf reached / max_score", threshold=0.5, primary=True), PARSE_FAILURE)

    def configure(self) -> None:
        require_number(self.name, "max_score", self.params["max_score"], low=1)
        if self.params["dag"] is None:
            raise ValueError(f"{self.name}: parameter 'dag' is required: a node such as "
                             "{'judge': 'Is the answer polite?', 'children': {'yes': 10, 'no': 0}}")
        validate_dag(self.params["dag"], self.params["max_score"])

    def score(self, case: Case) -> Score:
        node: Any = self.params["dag"]
        block = _case_block(case)
        path: list[str] = []
        outputs: list[str] = []
        try:
            while isinstance(node, Mapping):
                where = f"{self.name} node {'/'.join(path) or 'root'}"
                shown = block + "".join(f"\n{o}" for o in outputs)
                if "task" in node:
                    reply = self.ask(_TASK, what=where, schema={"type": "object", "properties": {"output": {"type": "string"}},
                                                                "required": ["output"]}, task=node["task"], case=shown)
                    outputs.append(f"{node['output']}: {reply['output']}")
                    path.append(f"{node['output']}")
                    node = node["then"]
                    continue
                labels = [str(k).strip().lower() for k in node["children"]]
                reply = self.ask(_JUDGEMENT, what=where, schema=verdict_schema(*labels), criteria=node["judge"],
                                 verdicts=", ".join(json.dumps(label) for label in labels), case=shown)
                verdict = reply["verdict"]
                path.append(f"{node['judge'][:40]} -> {verdict}")
                node = dict(zip(labels, node["children"].values()))[verdict]
        except JudgeParseError as exc:
            return self.unscored(["dag"], exc)
        value = float(node) / self.params["max_score"]
        return Score({"dag": value, "parse_failure": 0.0}, f"{' | '.join(path)} => {node}/{self.params['max_score']}", {"path": path})


# -- QAG summarization, task completion, SelfCheckGPT -------------------------------------------------------

_ALIGN = """Does the claim agree with the source text? Reply with JSON only: {{"verdict": "yes"}} (the source supports it),
{{"verdict": "no"}} (the source contradicts it) or {{"verdict": "idk"}} (the source does not say), plus a short "reason".

Source: {source}
Claim: {claim}
"""

_ASSESSMENT = """Write {n} closed questions that the source text answers with "yes", about its most important information.
Reply with JSON only: {{"questions": ["...", "..."]}}.

Source: {source}
"""

_ANSWER = """Answer the question from the text alone: "yes", "no", or "idk" when the text does not say.
Reply with JSON only: {{"verdict": "yes"}}, {{"verdict": "no"}} or {{"verdict": "idk"}}.

Text: {text}
Question: {question}
"""


class SummarizationQAG(JudgeEvaluator):
    """min(alignment, coverage) by question-answer generation; the source is the context."""

    name = "summarization_qag"
    version = "2"  # 2: the alignment question asks whether the claim agrees with the source, as its answer key reads
    helper = "assert_summary_qag"
    extra = "judge"
    description = "The summary is aligned with the source and covers it, by closed questions (LLM judge, QAG)"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"n": 5}
    metrics = (
        MetricSpec("summarization", "min(alignment, coverage)", threshold=0.5, primary=True),
        MetricSpec("alignment", "share of summary claims the source does not contradict", threshold=None),
        MetricSpec("coverage", "share of the source's yes-questions the summary also answers yes", threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        require_number(self.name, "n", self.params["n"], low=1, high=30, integer=True)

    def score(self, case: Case) -> Score:
        source = "\n\n".join(case.context)
        summary = case.actual or ""
        answers = ("yes", "no", "idk")
        try:
            claims = self.ask(_CLAIMS, what=f"{self.name} claims", schema=list_schema("claims"), answer=summary)["claims"]
            aligned = [self.ask(_ALIGN, what=f"{self.name} claim {i}", schema=verdict_schema(*answers), source=source, claim=c)["verdict"]
                       != "no" for i, c in enumerate(claims)]
            questions = self.ask(_ASSESSMENT, what=f"{self.name} questions", schema=list_schema("questions"), n=str(self.params["n"]),
                                 source=source)["questions"][: self.params["n"]]
            from_source = [self.ask(_ANSWER, what=f"{self.name} source answer {i}", schema=verdict_schema(*answers), text=source,
                                    question=q)["verdict"] for i, q in enumerate(questions)]
            from_summary = [self.ask(_ANSWER, what=f"{self.name} summary answer {i}", schema=verdict_schema(*answers), text=summary,
                                     question=q)["verdict"] for i, q in enumerate(questions)]
        except JudgeParseError as exc:
            return self.unscored(["summarization", "alignment", "coverage"], exc)
        asked = [b for a, b in zip(from_source, from_summary) if a == "yes"]
        if not aligned and not asked:
            return self.nothing_to_judge(["summarization", "alignment", "coverage"],
                                         "the judge found no claims in the summary and no question the source answers")
        # A part with nothing to judge (no claims; no question the source answers) is left out, not counted as 1.
        alignment = sum(aligned) / len(aligned) if aligned else None
        coverage = sum(b == "yes" for b in asked) / len(asked) if asked else None
        missed = [q for q, a, b in zip(questions, from_source, from_summary) if a == "yes" and b != "yes"]
        reason = (f"alignment {'n/a' if alignment is None else f'{alignment:.3f}'} ({sum(aligned)}/{len(aligned)} claims), "
                  f"coverage {'n/a' if coverage is None else f'{coverage:.3f}'} ({len(asked) - len(missed)}/{len(asked)} questions)")
        if missed:
            reason += f"; not covered: {missed[0][:100]!r}"
        overall = min(v for v in (alignment, coverage) if v is not None)
        return Score({"summarization": overall, "alignment": alignment, "coverage": coverage, "parse_failure": 0.0},
                     reason, {"claims": [{"claim": c, "aligned": a} for c, a in zip(claims, aligned)],
                              "questions": [{"question": q, "source": a, "summary": b} for q, a, b in zip(questions, from_source, from_summary)]})


_EXTRACT = """From the user's input, the agent's final output and the steps it took, state the task the user asked for and
the outcome the agent achieved. Reply with JSON only: {{"task": "...", "outcome": "..."}}.

Input: {question}
Steps and tool calls: {steps}
Final output: {actual}
"""

_COMPLETION = """How fully does the outcome achieve the task? Score from 0 (not at all) to 1 (completely); fractions allowed.
Reply with JSON only: {{"score": <0-1>, "reason": "<one sentence>"}}.

Task: {task}
Outcome: {outcome}
"""


class TaskCompletion(JudgeEvaluator):
    name = "task_completion"
    helper = "assert_task_completed"
    extra = "judge"
    description = "The agent's outcome achieves the task the user asked for (LLM judge)"
    requires = ("actual", "question")
    uses = ("context", "metadata")
    metrics = (MetricSpec("task_completion", "0 not at all .. 1 completely", threshold=0.5, primary=True), PARSE_FAILURE)

    def score(self, case: Case) -> Score:
        tools = (case.metadata or {}).get("tools_called")
        steps = json.dumps(tools, ensure_ascii=False, default=str) if tools else "\n".join(case.context or ()) or "(none given)"
        number = {"type": "object", "properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
                  "required": ["score"]}
        try:
            found = self.ask(_EXTRACT, what=f"{self.name} task and outcome", schema={
                "type": "object", "properties": {"task": {"type": "string"}, "outcome": {"type": "string"}}, "required": ["task", "outcome"]},
                question=case.question or "", steps=steps, actual=case.actual or "")
            reply = self.ask(_COMPLETION, what=f"{self.name} score", schema=number, task=found["task"], outcome=found["outcome"])
        except JudgeParseError as exc:
            return self.unscored(["task_completion"], exc)
        value = float(reply["score"])
        return Score({"task_completion": value, "parse_failure": 0.0}, f"{value:.2f}: {str(reply.get('reason', ''))[:200]}",
                     {"task": found["task"], "outcome": found["outcome"]})


_SUPPORTS = """Is the sentence supported by the context? Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}.

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
    description = "The answer's sentences agree with other sampled answers of the same model (LLM judge; lower is better)"
    requires = ("actual", "context")
    metrics = (
        MetricSpec("selfcheck", "mean share of samples not supporting a sentence", higher_is_better=False, threshold=0.5, primary=True),
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
                unsupported = [self.ask(_SUPPORTS, what=f"{self.name} sentence {i} sample {j}", schema=verdict_schema("yes", "no"),
                                        sample=sample, sentence=sentence)["verdict"] == "no" for j, sample in enumerate(case.context)]
                scores.append(sum(unsupported) / len(unsupported))
        except JudgeParseError as exc:
            return self.unscored(["selfcheck", "max_sentence"], exc)
        worst = max(range(len(scores)), key=scores.__getitem__)
        value = sum(scores) / len(scores)
        judged = f"{len(sentences)} sentences" if len(sentences) == len(every) else f"the first {len(sentences)} of {len(every)} sentences (max_sentences)"
        return Score({"selfcheck": value, "max_sentence": scores[worst], "parse_failure": 0.0},
                     f"{judged} against {len(case.context)} samples; least consistent ({scores[worst]:.2f}): "
                     f"{sentences[worst][:100]!r}",
                     {"sentences": [{"sentence": s[:300], "score": v} for s, v in zip(sentences[:100], scores)],
                      "sentences_judged": len(sentences), "sentences_total": len(every)})
