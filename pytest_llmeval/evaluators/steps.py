"""Step alignment and completeness (catalog: Step Alignment and Completeness Evaluator).

Steps are extracted with regular expressions (numbered items ``1.`` / ``1)`` /
``Step 1:``, bullets, and ``First, ... Then, ...`` sequences) from the retrieved
context (the ground truth) and from the answer. The two step sequences are
aligned by dynamic programming, an edit distance whose substitution is free when
the two steps are semantically the same (embedding similarity at least
``match_threshold``). It reports the edits needed to turn the answer's steps into
the context's: insertions (context steps the answer lacks), deletions (answer
steps not in the context) and mismatches (a step in place of another).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..text import excerpt
from .base import MetricSpec, Score, require_number
from .embedding import EmbeddingEvaluator, _similarity

__all__ = ["StepAlignment", "extract_steps", "align_steps"]

_NUMBERED = re.compile(r"^\s*(?:step\s*)?(\d{1,3})\s*[.):]\s+(.+)$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*[-*•+]\s+(.+)$")
_SEQUENCE = re.compile(r"(?:^|(?<=[.;!?]\s))(?:first|second|third|next|then|after that|afterwards|finally|lastly),?\s+", re.IGNORECASE)

INF = float("inf")


def extract_steps(text: str) -> list[str]:
    """The steps of a procedure in ``text``: numbered or bulleted lines, else a First/Then/Finally sequence.

    >>> extract_steps("To reset:\\n1. Open Settings.\\n2) Tap Reset.\\nStep 3: Confirm.")
    ['Open Settings.', 'Tap Reset.', 'Confirm.']
    >>> extract_steps("First, unplug it. Then wait ten seconds. Finally, plug it back in.")
    ['unplug it.', 'wait ten seconds.', 'plug it back in.']
    """
    steps = []
    for line in text.splitlines():
        numbered = _NUMBERED.match(line)
        bullet = _BULLET.match(line)
        if numbered:
            steps.append(numbered.group(2).strip())
        elif bullet:
            steps.append(bullet.group(1).strip())
    if steps:
        return steps
    markers = list(_SEQUENCE.finditer(text))
    if len(markers) < 2:
        return []
    pieces = []
    for index, marker in enumerate(markers):
        end = markers[index + 1].start() if index + 1 < len(markers) else len(text)
        piece = text[marker.end():end].strip()
        if piece:
            pieces.append(piece)
    return pieces


def align_steps(matches: Sequence[Sequence[bool]]) -> dict[str, int]:
    """Edit distance between two step sequences given which pairs match.

    ``matches[i][j]`` says whether answer step ``i`` is context step ``j``.
    Returns the counts of the cheapest alignment.

    >>> align_steps([[True, False, False], [False, False, True]])
    {'edits': 1, 'insertions': 1, 'deletions': 0, 'mismatches': 0}
    """
    rows = len(matches)
    cols = len(matches[0]) if rows else 0
    # cost[i][j] = (edits, insertions, deletions, mismatches) to align answer[:i] with context[:j]
    cost: list[list[tuple[int, int, int, int]]] = [[(0, 0, 0, 0)] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        cost[i][0] = (i, 0, i, 0)
    for j in range(1, cols + 1):
        cost[0][j] = (j, j, 0, 0)
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            e, ins, dele, mis = cost[i - 1][j - 1]
            diagonal = (e, ins, dele, mis) if matches[i - 1][j - 1] else (e + 1, ins, dele, mis + 1)
            e, ins, dele, mis = cost[i - 1][j]
            delete = (e + 1, ins, dele + 1, mis)
            e, ins, dele, mis = cost[i][j - 1]
            insert = (e + 1, ins + 1, dele, mis)
            cost[i][j] = min(diagonal, delete, insert)
    edits, insertions, deletions, mismatches = cost[rows][cols]
    return {"edits": edits, "insertions": insertions, "deletions": deletions, "mismatches": mismatches}


class StepAlignment(EmbeddingEvaluator):
    """Does the answer give the context's procedure, all steps, in order?

    Parameters:
        match_threshold: similarity at which two steps count as the same step.
        max_steps: steps per side at most (the alignment is quadratic).
    """

    name = "step_alignment"
    helper = "assert_steps_aligned"
    extra = "embeddings"
    description = "The answer's steps match the procedure in the retrieved context, in order"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "match_threshold": 0.7, "max_steps": 200}
    metrics = (
        MetricSpec("edits", "step insertions + deletions + mismatches", higher_is_better=False, range=(0.0, INF), threshold=0.75, primary=True),
        MetricSpec("insertions", "context steps missing from the answer", higher_is_better=False, range=(0.0, INF)),
        MetricSpec("deletions", "answer steps not in the context", higher_is_better=False, range=(0.0, INF)),
        MetricSpec("mismatches", "answer steps in place of other context steps", higher_is_better=False, range=(0.0, INF)),
        MetricSpec("context_steps", "steps found in the retrieved context", range=(0.0, INF), threshold=None),
        MetricSpec("answer_steps", "steps found in the answer", range=(0.0, INF), threshold=None),
    )

    def configure(self) -> None:
        super().configure()
        threshold = self.params["match_threshold"]
        require_number(self.name, "match_threshold", threshold, low=0, high=1)
        require_number(self.name, "max_steps", self.params["max_steps"], low=1, integer=True)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        limit = self.params["max_steps"]
        answers = [extract_steps(c.actual or "")[:limit] for c in cases]
        contexts = [extract_steps("\n".join(c.context))[:limit] for c in cases]
        encoded = self.encode_all([*answers, *contexts])
        out = []
        for index, (answer, context) in enumerate(zip(answers, contexts)):
            counts: dict[str, float | None] = {"context_steps": float(len(context)), "answer_steps": float(len(answer))}
            if not context:
                out.append(Score({**counts, "edits": None, "insertions": None, "deletions": None, "mismatches": None},
                                 "no steps found in the retrieved context", {}))
                continue
            if answer:
                sims = _similarity(encoded[index], encoded[len(cases) + index])
                matches = (sims >= self.params["match_threshold"]).tolist()
            else:
                matches = []
            aligned = align_steps(matches) if answer else {"edits": len(context), "insertions": len(context), "deletions": 0, "mismatches": 0}
            if not answer:
                reason = f"no steps found in the answer; the context has {len(context)}"
            else:
                reason = (f"{aligned['edits']} edit(s): {aligned['insertions']} missing, {aligned['deletions']} extra, "
                          f"{aligned['mismatches']} mismatched ({len(answer)} answer steps vs {len(context)} context steps)")
            details = {"answer_steps": [excerpt(s, 120) for s in answer], "context_steps": [excerpt(s, 120) for s in context]}
            out.append(Score({**counts, **{k: float(v) for k, v in aligned.items()}}, reason, details))
        return out
