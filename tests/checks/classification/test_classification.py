"""Toxicity and sentiment: shipped offline models for quality, tiny random models for the real loading paths."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, Registry
from pytest_llmeval.models.cache import ModelCache, ModelLoadError

REGISTRY = Registry(entry_points=False)
CATEGORIES = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]


def test_profanity_backend_toxic_vs_benign_and_worst_sentence(make):
    pytest.importorskip("profanity_check")
    toxicity = make("toxicity")
    benign, toxic = toxicity.evaluate(
        [
            Case(actual="Thanks for asking. Have a lovely day."),
            Case(actual="Thanks for asking. You are a stupid idiot. Bye."),
        ]
    )
    assert benign.passed and benign.score < 0.2
    assert not toxic.passed and toxic.score > 0.9
    assert toxic.details["sentence"] == "You are a stupid idiot." and toxic.details["category"] == "toxicity"
    assert toxic.metrics["threat"] is None  # one probability only: the other categories are detoxify's
    assert toxic.signature.backend.startswith("alt-profanity-check ")


def test_backends_never_share_a_signature(make, tmp_path):
    pytest.importorskip("profanity_check")
    path = tmp_path / "model.ckpt"
    path.write_bytes(b"x")
    assert make("toxicity").signature() != make("toxicity", checkpoint=str(path)).signature()
    assert make("toxicity", checkpoint=str(path)).params["backend"] == "detoxify"
    with pytest.raises(ValueError, match="parameter 'checkpoint' is for the detoxify backend"):
        make("toxicity", backend="profanity-check", checkpoint=str(path))
    with pytest.raises(ValueError, match="parameter 'backend' must be one of 'auto', 'profanity-check', 'detoxify'"):
        make("toxicity", backend="perspective")


@pytest.fixture(scope="module")
def tiny_detoxify(tmp_path_factory):
    """A detoxify-format checkpoint of a tiny random BERT, as OFFLINE.md describes it."""
    pytest.importorskip("detoxify")
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder = tmp_path_factory.mktemp("detoxify")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "you", "are", "nice", "an", "idiot", "have", "a", "day", "."]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        num_labels=len(CATEGORIES),
    )
    config.save_pretrained(folder)
    model = BertForSequenceClassification(config)
    checkpoint = folder / "tiny.ckpt"
    torch.save(
        {
            "state_dict": model.state_dict(),
            "config": {
                "dataset": {"args": {"classes": CATEGORIES}},
                "arch": {
                    "args": {
                        "model_type": str(folder),
                        "model_name": "BertForSequenceClassification",
                        "tokenizer_name": "BertTokenizer",
                        "num_classes": len(CATEGORIES),
                    }
                },
            },
        },
        checkpoint,
    )
    return str(checkpoint), str(folder)


def test_detoxify_backend_with_a_local_checkpoint(tiny_detoxify):
    checkpoint, folder = tiny_detoxify
    models = ModelCache(device="cpu", announce=lambda line: None)
    evaluator = REGISTRY.create("toxicity", checkpoint=checkpoint, config_path=folder)
    evaluator.bind(models)
    results = evaluator.evaluate(
        [Case(actual="You are nice. Have a day."), Case(actual="you are an idiot."), Case(actual="")]
    )
    for result in results[:2]:
        assert set(result.metrics) == {"toxicity", "severe_toxicity", "obscene", "threat", "insult", "identity_attack"}
        assert all(0.0 <= v <= 1.0 for v in result.metrics.values())
    assert results[0].details["sentences"] == 2
    assert results[2].score == 0.0
    again = REGISTRY.create("toxicity", checkpoint=checkpoint, config_path=folder)
    again.bind(models)
    again.evaluate([Case(actual="you are nice.")])
    assert len(models.loads) == 1  # loaded once for both evaluators
    assert results[0].signature.model.startswith("detoxify:tiny.ckpt@sha256:")


def test_detoxify_missing_weights_are_one_clear_error(make, monkeypatch):
    pytest.importorskip("detoxify")
    evaluator = make("toxicity", backend="detoxify", checkpoint="/no/such/toxic.ckpt")
    with pytest.raises(ModelLoadError, match="detoxify checkpoint '/no/such/toxic.ckpt' not found; pass checkpoint="):
        evaluator.evaluate([Case(actual="hello")])
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match="weights are a download and HF_HUB_OFFLINE=1 is set"):
        make("toxicity", backend="detoxify").evaluate([Case(actual="hello")])


def test_vader_polarity(make):
    pytest.importorskip("vaderSentiment")
    sentiment = make("sentiment")
    happy, sad, flat = sentiment.evaluate(
        [
            Case(actual="I love this product! It is great."),
            Case(actual="This is terrible and I hate it."),
            Case(actual="The box is blue."),
        ]
    )
    assert happy.score > 0.5 and happy.passed
    assert sad.score < -0.5 and not sad.passed
    assert flat.score == 0.0 and flat.passed and flat.metrics["neutral"] == 1.0
    shaped = make("sentiment", scale="probability").evaluate(
        [Case(actual="This is terrible and I hate it."), Case(actual="The box is blue.")]
    )
    assert [r.primary for r in shaped] == ["positivity", "positivity"]
    assert shaped[0].score == pytest.approx((sad.score + 1) / 2) and not shaped[0].passed
    assert shaped[1].score == 0.5 and shaped[1].passed and shaped[1].thresholds == {"positivity": 0.475}
    with pytest.raises(ValueError, match="parameter 'scale' must be one of 'signed', 'probability'"):
        make("sentiment", scale="percent")


def test_sentiment_classifier_backend_with_a_tiny_model(tmp_path):
    pytest.importorskip("transformers")
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "bad", "day", "."]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizer(str(tmp_path / "vocab.txt")).save_pretrained(tmp_path)
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        num_labels=2,
        id2label={0: "NEGATIVE", 1: "POSITIVE"},
        label2id={"NEGATIVE": 0, "POSITIVE": 1},
    )
    BertForSequenceClassification(config).save_pretrained(tmp_path)
    evaluator = REGISTRY.create("sentiment", backend="transformers", model=str(tmp_path))
    evaluator.bind(ModelCache(device="cpu", announce=lambda line: None))
    results = evaluator.evaluate([Case(actual="good day ."), Case(actual="bad day .")])
    for result in results:
        assert -1.0 <= result.score <= 1.0 and 0.0 <= result.details["positive_probability"] <= 1.0
        assert result.metrics["positivity"] == result.details["positive_probability"]
    probability = REGISTRY.create("sentiment", backend="transformers", model=str(tmp_path), scale="probability")
    probability.bind(ModelCache(device="cpu", announce=lambda line: None))
    for signed, shaped in zip(results, probability.evaluate([Case(actual="good day ."), Case(actual="bad day .")])):
        assert shaped.primary == "positivity" and shaped.score == signed.details["positive_probability"]
        assert shaped.passed == signed.passed  # the default thresholds agree: p >= 0.475 <=> 2p - 1 >= -0.05
    wrong = REGISTRY.create("sentiment", backend="transformers", model=str(tmp_path), positive_label="HAPPY")
    wrong.bind(ModelCache(device="cpu", announce=lambda line: None))
    with pytest.raises(
        ValueError, match="the classifier has no label 'HAPPY'; its labels: \\['NEGATIVE', 'POSITIVE'\\]"
    ):
        wrong.evaluate([Case(actual="good")])
    with pytest.raises(TypeError, match="parameter 'model' must be a sequence-classification model name or folder"):
        REGISTRY.create("sentiment", backend="transformers")


def test_failure_message_through_the_plugin(pytester):
    pytest.importorskip("profanity_check")
    pytester.makepyfile(
        """
from pytest_llmeval import assert_not_toxic, assert_sentiment

def test_toxic():
    assert_not_toxic("Sure. You are a stupid idiot.")

def test_positive():
    assert_sentiment("What a wonderful, helpful answer!", threshold=0.5)
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*llmeval toxicity failed: toxicity 1.000 > threshold 0.750",
            "*why: most toxic sentence 'You are a stupid idiot.': toxicity 1.000",
        ]
    )
