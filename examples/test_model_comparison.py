"""Model comparison and perturbation flips on recorded answers (examples/recorded_perturbations.jsonl).

Two models answered three questions as asked, with typos and in upper case. Each
perturbed row names the row it perturbs, so the summary ranks the models on the
original questions and lists, in the "Perturbation flips" table, the checks whose
verdict changed when the question was perturbed:

    pytest examples --llmeval-report=llmeval-report

``acme-small`` is a known-weak model: its tests are ``xfail``, tracked on the
leaderboard and in the flips table without failing the build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_llmeval import assert_matches, assert_rouge, cases

DATASET = Path(__file__).with_name("recorded_perturbations.jsonl")


def known_weak(case):
    return [pytest.mark.xfail(reason="known-weak model", strict=False)] if case.model == "acme-small" else []


@pytest.mark.parametrize("case", cases(DATASET, marks=known_weak))
def test_required_facts(case):
    """The answer states the fact the question asks for, however the question was typed."""
    assert_matches(case.actual, case.conditions, question=case.question)


@pytest.mark.parametrize("case", cases(DATASET, marks=known_weak))
def test_close_to_reference(case):
    assert_rouge(case.actual, case.expected, use_stemmer=True, threshold=0.3)
