"""Step alignment and completeness (catalog: Step Alignment and Completeness Evaluator).

Steps are extracted with regular expressions (numbered items ``1.`` / ``1)`` /
``Step 1:`` and bullets, on lines of their own or several in one line, and
``First, ... Then, ...`` sequences) from the retrieved
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

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number, require_type
from ...kit import Result
from ...kit.text import excerpt
from .base import EmbeddingEvaluator, cosine_matrix

__all__ = ["assert_steps_aligned", "StepAlignment", "extract_steps", "align_steps"]


def assert_steps_aligned(
    actual: str,
    context: Any,
    *,
    match_threshold: float = 0.7,
    sentence_level_metrics: bool = True,
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer gives the procedure of the retrieved context: all steps, in order (edits, 0.75: none allowed).

    ``sentence_level_metrics=False`` leaves the steps found out of the record.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_steps_aligned", scorer, embedding_model=embedding_model),
        "match_threshold": match_threshold,
        "sentence_level_metrics": sentence_level_metrics,
    }
    return check(StepAlignment, actual=actual, context=context, params=params, **kwargs)


_NUMBERED = re.compile(r"^\s*(?:step\s*)?(\d{1,3})\s*[.):]\s+(.+)$", re.IGNORECASE)


_BULLET = re.compile(r"^\s*[-*•+]\s+(.+)$")


# Markers inside a line (after a space or at the start): "3. ", "3) ", "Step 3: ", "- ", "• ".
# "2.5 GHz", "v1.2.3" and "Fig. 3 shows" hold none (no space after the dot, or no dot after the number).
_INLINE_NUMBER = re.compile(r"(?<!\S)(?:step[ \t]*(\d{1,3})[ \t]*[.):]|(\d{1,3})[.)])[ \t]+(?=\S)", re.IGNORECASE)


_INLINE_BULLET = re.compile(r"(?<!\S)([-*•+])[ \t]+(?=\S)")


_CLOSERS = "\"')]”’"


_SEQUENCE = re.compile(
    r"(?:^|(?<=[.;!?]\s))(?:first|second|third|next|then|after that|afterwards|finally|lastly),?\s+", re.IGNORECASE
)


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
        inline = _inline_steps(line)
        numbered = _NUMBERED.match(line)
        bullet = _BULLET.match(line)
        if inline:
            steps += inline
        elif numbered:
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
        piece = text[marker.end() : end].strip()
        if piece:
            pieces.append(piece)
    return pieces


def _opens(line: str, start: int, first: int) -> bool:
    """Whether a marker at ``start`` may open a list item: at the line start (``first`` is the
    index of its first character; after a bullet, if any) or after the end of a sentence or a
    colon, "To reset: 1. Unplug it. 2. Wait."."""
    j = start - 1
    while j >= 0 and line[j] in " \t":
        j -= 1
    if j < 0 or (j == first and line[j] in "-*•+"):
        return True
    while j > 0 and line[j] in _CLOSERS:
        j -= 1
    return line[j] in ".!?:;"


def _numbered_markers(line: str) -> list[re.Match[str]]:
    """The markers of the longest numbered list in ``line``: numbers counting up by one, each
    opening an item (see `_opens()`; a ``3)`` marker may also follow a word). A list of three
    or more may have items after the first that follow a word ("Do: 1. Open it 2. Tap Reset 3. Confirm")."""
    found = []
    first = len(line) - len(line.lstrip())
    for match in _INLINE_NUMBER.finditer(line):
        number = int(match.group(1) or match.group(2))
        opens = _opens(line, match.start(), first) or match.group(0).rstrip().endswith(")")
        found.append((number, opens, match))
    for strict, least in ((True, 2), (False, 3)):
        # ends[n]: (length, index into found) of the longest list seen so far ending with number n
        ends: dict[int, tuple[int, int]] = {}
        parent: dict[int, int] = {}
        for index, (number, opens, _) in enumerate(found):
            before = ends.get(number - 1)
            if before is not None and (opens or not strict):
                length = before[0] + 1
                parent[index] = before[1]
            elif opens:
                length = 1
            else:
                continue
            if length > ends.get(number, (0, -1))[0]:
                ends[number] = (length, index)
        length, last = max(ends.values(), key=lambda end: (end[0], -end[1]), default=(0, -1))
        if length >= least:
            chain = [last]
            while chain[-1] in parent:
                chain.append(parent[chain[-1]])
            return [found[i][2] for i in reversed(chain)]
    return []


def _bullet_markers(line: str) -> list[re.Match[str]]:
    """The bullets of a list in ``line``: each opening an item (a "•" anywhere); or, three or
    more of one kind, the first opening the list ("Do this: - unplug - wait - plug in")."""
    first = len(line) - len(line.lstrip())
    found = list(_INLINE_BULLET.finditer(line))
    strict = [m for m in found if m.group(1) == "•" or _opens(line, m.start(), first)]
    if len(strict) >= 2 or not strict:
        return strict
    loose = [m for m in found[found.index(strict[0]) :] if m.group(1) == strict[0].group(1)]
    return loose if len(loose) >= 3 else []


def _inline_steps(line: str) -> list[str]:
    """Two or more steps written on one line, else ``[]`` (a line holding one item is read whole).

    Text before the first marker is an introduction ("To reset:") and not a step.

    >>> _inline_steps("To reset: 1. Unplug the router. 2. Wait 30 seconds. 3. Plug it back in.")
    ['Unplug the router.', 'Wait 30 seconds.', 'Plug it back in.']
    >>> _inline_steps("Pack: • a charger • a cable")
    ['a charger', 'a cable']
    >>> _inline_steps("The 2.5 GHz band (see Fig. 3) reaches v1.2.3 devices. It costs 4. Really.")
    []
    """
    markers = _numbered_markers(line)
    if len(markers) < 2:
        markers = _bullet_markers(line)
    if len(markers) < 2:
        return []
    pieces = [
        line[m.end() : markers[i + 1].start() if i + 1 < len(markers) else len(line)].strip()
        for i, m in enumerate(markers)
    ]
    return [piece for piece in pieces if piece]


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

    Steps are found on lines of their own and inside a line ("1. Unplug it. 2. Wait.").

    Parameters:
        match_threshold: similarity at which two steps count as the same step.
        max_steps: steps per side at most (the alignment is quadratic).
        sentence_level_metrics: keep the steps found on each side in the details (default ``True``).
    """

    name = "step_alignment"
    version = "2"  # 2: steps inside a line ("1. Unplug it. 2. Wait.") are steps
    helper = "assert_steps_aligned"
    extra = "embeddings"
    description = "The answer's steps match the procedure in the retrieved context, in order"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "match_threshold": 0.7,
        "max_steps": 200,
        "sentence_level_metrics": True,
    }
    reporting = ("sentence_level_metrics",)
    metrics = (
        MetricSpec(
            "edits",
            "step insertions + deletions + mismatches",
            higher_is_better=False,
            range=(0.0, INF),
            threshold=0.75,
            primary=True,
        ),
        MetricSpec("insertions", "context steps missing from the answer", higher_is_better=False, range=(0.0, INF)),
        MetricSpec("deletions", "answer steps not in the context", higher_is_better=False, range=(0.0, INF)),
        MetricSpec(
            "mismatches", "answer steps in place of other context steps", higher_is_better=False, range=(0.0, INF)
        ),
        MetricSpec("context_steps", "steps found in the retrieved context", range=(0.0, INF), threshold=None),
        MetricSpec("answer_steps", "steps found in the answer", range=(0.0, INF), threshold=None),
    )

    def configure(self) -> None:
        super().configure()
        threshold = self.params["match_threshold"]
        require_number(self.name, "match_threshold", threshold, low=0, high=1)
        require_number(self.name, "max_steps", self.params["max_steps"], low=1, integer=True)
        require_type(self.name, "sentence_level_metrics", self.params["sentence_level_metrics"], bool, "True or False")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        limit = self.params["max_steps"]
        answers = [extract_steps(c.actual or "")[:limit] for c in cases]
        contexts = [extract_steps("\n".join(c.context))[:limit] for c in cases]
        encoded = self.encode_all([*answers, *contexts])
        out = []
        for index, (answer, context) in enumerate(zip(answers, contexts)):
            counts: dict[str, float | None] = {"context_steps": float(len(context)), "answer_steps": float(len(answer))}
            if not context:
                out.append(
                    Score(
                        {**counts, "edits": None, "insertions": None, "deletions": None, "mismatches": None},
                        "no steps found in the retrieved context",
                        {},
                    )
                )
                continue
            if answer:
                sims = cosine_matrix(encoded[index], encoded[len(cases) + index])
                matches = (sims >= self.params["match_threshold"]).tolist()
            else:
                matches = []
            aligned = (
                align_steps(matches)
                if answer
                else {"edits": len(context), "insertions": len(context), "deletions": 0, "mismatches": 0}
            )
            if not answer:
                reason = f"no steps found in the answer; the context has {len(context)}"
            else:
                reason = (
                    f"{aligned['edits']} edit(s): {aligned['insertions']} missing, {aligned['deletions']} extra, "
                    f"{aligned['mismatches']} mismatched ({len(answer)} answer steps vs {len(context)} context steps)"
                )
            details = (
                {"answer_steps": [excerpt(s, 120) for s in answer], "context_steps": [excerpt(s, 120) for s in context]}
                if self.params["sentence_level_metrics"]
                else {}
            )
            out.append(Score({**counts, **{k: float(v) for k, v in aligned.items()}}, reason, details))
        return out
