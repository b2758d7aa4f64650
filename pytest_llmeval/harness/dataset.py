"""Parametrized test cases from a dataset file.

>>> import pytest
>>> from pytest_llmeval import cases
>>> # @pytest.mark.parametrize("case", cases("qa.jsonl"))
>>> # def test_qa(case): ...

Each row becomes a ``pytest.param`` with a readable id (the row's model and id, or
``row<line>``) and an ``llmeval`` marker carrying the model, the case id and the
row's ``category`` and ``difficulty``; a row that perturbs another (``perturbation_of``
and ``perturbation``) is tagged with the original's case id and the perturbation, so
its results are compared with the original's in the flips table. Bad rows, duplicate
ids and references to missing rows fail collection with the file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..core.case import Case, CaseFileError, beside_caller, read_cases

__all__ = ["cases"]


_UNSAFE = re.compile(r"[^\w.,:;+=@#%~-]+")


def _id_part(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("_")[:60] or "_"


def cases(
    path: str | os.PathLike[str],
    *,
    select: Callable[[Case], bool] | None = None,
    marks: Callable[[Case], Sequence[Any]] | None = None,
    tags: Sequence[str] = ("category", "difficulty"),
) -> list[Any]:
    """``pytest.param(case, id=..., marks=[llmeval(...)])`` for each row of a JSONL, JSON, CSV or YAML file.

    Args:
        path: The dataset file. A relative path that does not exist from the working
            directory is looked up beside the calling test file, so
            ``cases("qa.jsonl")`` works wherever pytest is started from
            (``Path(__file__).with_name("qa.jsonl")`` says the same explicitly).
        select: Keep only the cases for which this returns true.
        marks: Extra marks for a case (``pytest.mark.xfail`` for a known-weak model, say).
        tags: Metadata keys copied to the ``llmeval`` marker (and so into every result).
    """
    import pytest

    rows = read_cases(beside_caller(path))
    ids: dict[tuple[str | None, str], str] = {}
    # What a perturbed row may point at: an original (unperturbed) row of the same model.
    originals = {
        (case.model, case.case_id)
        for _, case in rows
        if case.case_id is not None and "perturbation_of" not in case.metadata
    }
    params = []
    for where, case in rows:
        original = case.metadata.get("perturbation_of")
        perturbation = case.metadata.get("perturbation")
        if original is not None and (case.model, original) not in originals:
            whose = f" for model {case.model!r}" if case.model else ""
            raise CaseFileError(
                f"{where}: perturbation_of {original!r} names no original (unperturbed) row{whose} of "
                f"{os.fspath(path)} (ids are the rows' 'id')"
            )
        if original is not None and original == case.case_id:
            raise CaseFileError(f"{where}: a row cannot be a perturbation of itself ({original!r})")
        own = case.case_id or (
            f"{original}-{perturbation}" if original else "row" + where.rsplit(":", 1)[-1].replace("row", "").strip()
        )
        key = (case.model, own if original is None else f"{original}\x1f{perturbation}")
        if key in ids:
            raise CaseFileError(
                f"{where}: duplicate case {own!r}"
                + (f" for model {case.model!r}" if case.model else "")
                + f" (first at {ids[key]})"
            )
        ids[key] = where
        if select is not None and not select(case):
            continue
        marker_kwargs: dict[str, Any] = {"case": original or own}
        if case.model:
            marker_kwargs["model"] = case.model
        if perturbation:
            marker_kwargs["perturbation"] = perturbation
        for tag in tags:
            value = case.metadata.get(tag)
            if value is not None and tag not in marker_kwargs:
                marker_kwargs[tag] = value
        test_id = "-".join(_id_part(p) for p in ([case.model] if case.model else []) + [own])
        extra = list(marks(case)) if marks is not None else []
        params.append(
            pytest.param(
                case.replace(case_id=original or own), id=test_id, marks=[pytest.mark.llmeval(**marker_kwargs), *extra]
            )
        )
    return params
