"""Learned reference-based checks (pytest-llmeval[lm]): BLEURT and MoverScore."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..result import Result
from .core import _common, _scorer, assert_check

__all__ = ["assert_bleurt", "assert_moverscore"]


def assert_bleurt(actual: str, expected: Any, *, max_length: int = 512, scorer: str | None = None, **kwargs: Any) -> Result:
    """BLEURT's learned score of the answer against the expected answer(s) (the best of them; default threshold 0.5).

    ``scorer``: a PyTorch BLEURT checkpoint by hub name or local folder, with a one-output
    sequence-classification head (default lucadiliello/BLEURT-20-D12, which needs ``pip install
    bleurt-pytorch``). 0.5 is the middle of BLEURT-20's scale (about 0 unrelated, 1 perfect);
    older BLEURT checkpoints score on another scale: set ``threshold`` for them.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_bleurt", scorer), "max_length": max_length}
    return assert_check("bleurt", actual=actual, expected=expected, params=params, **kwargs)


def assert_moverscore(
    actual: str, expected: Any, *, idf: bool = False, layer: int = -1, stop_words: Sequence[str] = (),
    aggregate: str = "mean", max_length: int = 512, scorer: str | None = None, **kwargs: Any,
) -> Result:
    """MoverScore (1 - earth mover's distance of contextual token embeddings) against the expected answer(s) (0.5).

    ``scorer``: the encoder by hub name or local folder (default distilbert-base-uncased, the
    reference's); ``layer`` its hidden state (-1: the last); ``idf`` weighs tokens by inverse document
    frequency over the batch; ``aggregate`` is ``"mean"`` (the reference's) or ``"max"`` over several
    expected answers. The default threshold is not calibrated: measure on your own data.
    """
    __tracebackhide__ = True
    _common(kwargs)
    params = {"model": _scorer("assert_moverscore", scorer), "idf": idf, "layer": layer, "stop_words": stop_words,
              "aggregate": aggregate, "max_length": max_length}
    return assert_check("moverscore", actual=actual, expected=expected, params=params, **kwargs)
