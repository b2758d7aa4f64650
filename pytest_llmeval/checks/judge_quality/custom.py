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

from collections.abc import Sequence

from ...kit import Case

__all__ = ["FIELD_LABELS", "case_block"]

FIELD_LABELS = {"question": "Input", "actual": "Actual output", "expected": "Expected output", "context": "Context"}


def case_block(case: Case, fields: Sequence[str] | None = None) -> str:
    values = {
        "question": case.question,
        "actual": case.actual,
        "expected": "\n".join(case.expected) if case.expected else None,
        "context": "\n\n".join(case.context) if case.context else None,
    }
    names = fields or [name for name, value in values.items() if value]
    return "\n".join(f"{FIELD_LABELS[name]}: {values[name] or ''}" for name in names)
