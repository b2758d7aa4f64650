"""The ``edit_distance`` check: Normalised Levenshtein similarity ``1 - distance / max(len)``; with several references,
the best."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from .rouge import Normalising

__all__ = ["assert_edit_distance", "EditDistance", "levenshtein"]


def assert_edit_distance(
    actual: str,
    expected: Any,
    *,
    ignore_case: bool = False,
    ignore_whitespace: bool = True,
    ignore_punctuation: bool = False,
    **kwargs: Any,
) -> Result:
    """Character-level similarity (1 - normalised Levenshtein distance) to the expected answer(s)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "ignore_case": ignore_case,
        "ignore_whitespace": ignore_whitespace,
        "ignore_punctuation": ignore_punctuation,
    }
    return check(EditDistance, actual=actual, expected=expected, params=params, **kwargs)


#: Above this many cells (len(a) x len(b)) the edit distance refuses, rather than hang.
MAX_EDIT_CELLS = 2_000_000_000


def levenshtein(a: str, b: str) -> int:
    """Levenshtein distance, bit-parallel (Hyyrö 2001) over Python integers.

    >>> levenshtein("kitten", "sitting")
    3
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    masks: dict[str, int] = {}
    for index, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << index)
    full = (1 << m) - 1
    last = 1 << (m - 1)
    vp, vn, distance = full, 0, m
    for ch in a:
        eq = masks.get(ch, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | (~(xh | vp) & full)
        hn = vp & xh
        if hp & last:
            distance += 1
        elif hn & last:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = hn | (~(xv | hp) & full)
        vn = hp & xv
    return distance


class EditDistance(Normalising):
    """Normalised Levenshtein similarity ``1 - distance / max(len)``; with several references, the best.

    Parameters: as `ExactMatch`.

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = EditDistance().evaluate([Case(actual="colour", expected="color")])
    >>> round(r.score, 3), r.metrics["edits"]
    (0.833, 1.0)
    """

    name = "edit_distance"
    helper = "assert_edit_distance"
    description = "Character-level similarity to the expected answer"
    metrics = (
        MetricSpec("similarity", "1 - normalised Levenshtein distance", primary=True, threshold=0.8),
        MetricSpec(
            "distance", "Levenshtein distance / length of the longer text", higher_is_better=False, threshold=0.2
        ),
        MetricSpec(
            "edits",
            "Levenshtein distance in characters",
            higher_is_better=False,
            range=(0.0, float("inf")),
            threshold=None,
        ),
    )

    def score(self, case: Case) -> Score:
        answer = self.norm(case.actual or "")
        best: tuple[float, int, int] | None = None
        for index, expected in enumerate(case.expected):
            reference = self.norm(expected)
            if len(answer) * len(reference) > MAX_EDIT_CELLS:
                raise ValueError(
                    f"{self.name}: 'actual' ({len(answer)} chars) and 'expected' ({len(reference)} chars) are too "
                    f"long to compare by edit distance; use rouge or bleu for long texts"
                )
            edits = levenshtein(answer, reference)
            longest = max(len(answer), len(reference))
            similarity = 1.0 if longest == 0 else 1.0 - edits / longest
            if best is None or similarity > best[0]:
                best = (similarity, edits, index)
        assert best is not None
        similarity, edits, index = best
        metrics = {"similarity": similarity, "distance": 1.0 - similarity, "edits": float(edits)}
        return Score(
            metrics, f"{edits} edit(s), similarity {similarity:.3f} to expected answer #{index}", {"reference": index}
        )
