"""GPTScore family: continuation likelihoods under a tiny random causal LM (and a tiny T5), built here."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("transformers")

from pytest_llmeval import Case, Registry
from pytest_llmeval.checks.language_model.perplexity import continuation_nll
from pytest_llmeval.models.cache import ModelCache

from tests.conftest import WORDS, _vocab, tiny_causal_lm  # noqa: E402

REGISTRY = Registry(entry_points=False)


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return tiny_causal_lm(tmp_path_factory.mktemp("lm"))


@pytest.fixture
def models():
    return ModelCache(device="cpu", announce=lambda line: None)


def build(name, models, **params):
    evaluator = REGISTRY.create(name, **params)
    evaluator.bind(models)
    return evaluator


def test_continuation_nll_matches_a_manual_computation(lm, models):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    evaluator = build("gptscore_summary", models, model=lm)
    value = continuation_nll(evaluator, lm, "the cat sat on", " the mat .")
    tokenizer, model = AutoTokenizer.from_pretrained(lm), AutoModelForCausalLM.from_pretrained(lm).eval()
    prefix = tokenizer("the cat sat on", add_special_tokens=False)["input_ids"]
    target = tokenizer(" the mat .", add_special_tokens=False)["input_ids"]
    ids = torch.tensor([prefix + target])
    with torch.no_grad():
        logits = model(ids).logits[0]
    log_probs = torch.log_softmax(logits, dim=-1)
    expected = -sum(float(log_probs[len(prefix) + i - 1, t]) for i, t in enumerate(target)) / len(target)
    assert value == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize(
    "name, fields, aspects, directions",
    [
        ("gptscore_summary_ref", {"actual": "the cat sat .", "expected": "the cat sat on the mat ."}, 6, 2),
        ("gptscore_summary", {"actual": "the cat sat .", "question": "the cat sat on the mat . the dog ran ."}, 7, 1),
        ("gptscore_translation", {"actual": "the dog ran .", "expected": "the dog ran on the mat ."}, 3, 2),
        (
            "gptscore_qa",
            {
                "actual": "the cat sat on the mat .",
                "question": "the cat ?",
                "history": [
                    {"role": "user", "content": "the dog ?"},
                    {"role": "assistant", "content": "the dog ran ."},
                ],
            },
            8,
            1,
        ),
    ],
)
def test_each_family_member(lm, models, name, fields, aspects, directions):
    [result] = build(name, models, model=lm).evaluate([Case(**fields)])
    assert len(result.metrics) == aspects
    assert all(0.0 <= v < math.inf for v in result.metrics.values())
    assert result.details["directions"] == directions
    assert result.passed and result.thresholds == {}  # the catalog's threshold is infinite: nothing gated by default
    [gated] = build(name, models, model=lm).evaluate([Case(**fields)], thresholds={result.primary: 1e-6})
    assert not gated.passed
    assert len(models.loads) == 1


def test_seq2seq_scoring_model(tmp_path, models):
    from transformers import T5Config, T5ForConditionalGeneration

    _vocab(tmp_path)
    T5ForConditionalGeneration(
        T5Config(
            vocab_size=len(WORDS),
            d_model=16,
            d_kv=8,
            d_ff=32,
            num_layers=1,
            num_heads=2,
            decoder_start_token_id=0,
            pad_token_id=0,
        )
    ).save_pretrained(tmp_path)
    [result] = build("gptscore_translation", models, model=str(tmp_path)).evaluate(
        [Case(actual="the dog ran .", expected="the dog ran .")]
    )
    assert all(0.0 <= v < math.inf for v in result.metrics.values())


def test_batched_scores_equal_one_at_a_time(lm, models):
    from pytest_llmeval.checks.language_model.perplexity import continuation_nlls

    evaluator = build("gptscore_summary", models, model=lm)
    pairs = [
        ("the cat sat on", " the mat ."),
        ("the dog", " ran ."),
        ("", " the cat sat on the mat on the mat ."),
        ("the", ""),
    ]
    batched = continuation_nlls(evaluator, lm, pairs)
    single = [continuation_nll(evaluator, lm, p, c) for p, c in pairs]
    assert batched == pytest.approx(single, rel=1e-4)
    assert batched[3] == 0.0
