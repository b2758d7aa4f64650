"""Hypothesis strategies built on the perturbators, for property-based robustness tests.

>>> from hypothesis import given
>>> from pytest_llmeval.strategies import perturbed
>>> # @given(perturbed("What was the revenue in Brazil?", names=["typos", "uppercase"]))
>>> # def test_robust(question): assert_similar(my_llm(question), "15,969 million")

Each example is the text under one perturbation drawn from ``names`` with a drawn
seed and, for the rate-based ones, a drawn rate; Hypothesis shrinks towards the
first name, seed 0 and the lowest rate, and the perturbation is reproducible from
what it prints. Needs ``hypothesis`` (``pip install hypothesis``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from .text.perturbators import PERTURBATORS, Perturbation, perturb

__all__ = ["perturbations", "perturbed", "RATE_BASED", "DEFAULT_NAMES"]


#: Perturbations that take a ``rate``.
RATE_BASED = ("typos", "char_swap", "char_delete", "whitespace", "punctuation", "ocr")


#: What ``perturbed`` draws from by default: meaning-preserving noise (no antonyms, no encodings).
DEFAULT_NAMES = (
    "typos",
    "char_swap",
    "char_delete",
    "uppercase",
    "lowercase",
    "titlecase",
    "whitespace",
    "punctuation",
    "ocr",
    "synonym",
)


def perturbations(names: Sequence[str] = DEFAULT_NAMES, *, max_rate: float = 0.2) -> st.SearchStrategy[Perturbation]:
    """A perturbation drawn from ``names``, with a rate up to ``max_rate`` where it takes one."""
    names = list(names)
    unknown = [n for n in names if n not in PERTURBATORS]
    if not names or unknown:
        raise ValueError(
            f"perturbations: argument 'names' must list perturbations from {', '.join(sorted(PERTURBATORS))}; "
            f"got {names!r}"
        )
    if not 0.01 <= max_rate <= 1:
        raise ValueError(f"perturbations: argument 'max_rate' must be between 0.01 and 1; got {max_rate!r}")

    def build(name: str) -> st.SearchStrategy[Perturbation]:
        if name in RATE_BASED:
            return st.floats(min_value=0.01, max_value=max_rate).map(
                lambda rate: Perturbation(name, {"rate": round(rate, 3)})
            )
        return st.just(Perturbation(name))

    return st.sampled_from(names).flatmap(build)


def perturbed(
    text: str | st.SearchStrategy[str], names: Sequence[str] = DEFAULT_NAMES, *, max_rate: float = 0.2
) -> st.SearchStrategy[str]:
    """``text`` (or a drawn text) under a drawn perturbation and seed."""
    texts: Any = text if isinstance(text, st.SearchStrategy) else st.just(text)
    return st.tuples(texts, perturbations(names, max_rate=max_rate), st.integers(min_value=0, max_value=2**31 - 1)).map(
        lambda drawn: perturb(drawn[0], drawn[1].name, seed=drawn[2], **drawn[1].params)
    )
