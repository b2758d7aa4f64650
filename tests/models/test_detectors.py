"""The detector tier: tiny random models of each family's architecture, built here (no package ships such weights),
prove the input formats, the chunking of long contexts, the spans with character offsets and the batching; then a
detector decides groundedness's unverified answers in a pytest run, shown in the JSON record, the terminal and the
HTML report."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.conftest import WORDS, _vocab  # noqa: E402

from pytest_llmeval.models.cache import ModelCache  # noqa: E402
from pytest_llmeval.models.config import ModelLoadError  # noqa: E402
from pytest_llmeval.models.detectors import Detector, DetectorSpec, chunk_words, parse_detector  # noqa: E402

SMALL = {"hidden_size": 16, "num_attention_heads": 2, "intermediate_size": 32}


def _head(model, winner: int, classes: int):
    """Make the classifier's answer certain: zero weights, a bias towards class ``winner`` (one output: its sign)."""
    for name, parameter in model.named_parameters():
        if name.startswith(("classifier", "score", "classification_head", "head")) or ".out_proj." in name:
            with torch.no_grad():
                parameter.zero_()
    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.weight.zero_()
        bias = torch.full((classes,), -5.0)
        bias[0 if classes == 1 else winner] = 5.0 if classes > 1 or winner else -5.0
        last.bias.copy_(bias)


def token_model(folder, *, hallucinated: bool | None = None, modern: bool = False):
    """A 1-layer BERT (or ModernBERT) token classifier: class 1 is hallucinated (LettuceDetect's labels)."""
    folder.mkdir()
    _vocab(folder)
    labels = {"id2label": {0: "supported", 1: "hallucinated"}, "label2id": {"supported": 0, "hallucinated": 1}}
    if modern:
        from transformers import ModernBertConfig, ModernBertForTokenClassification

        config = ModernBertConfig(
            vocab_size=len(WORDS),
            num_hidden_layers=1,
            max_position_embeddings=128,
            pad_token_id=0,
            bos_token_id=2,
            eos_token_id=3,
            cls_token_id=2,
            sep_token_id=3,
            num_labels=2,
            **SMALL,
            **labels,
        )
        model = ModernBertForTokenClassification(config)
    else:
        from transformers import BertConfig, BertForTokenClassification

        model = BertForTokenClassification(
            BertConfig(
                vocab_size=len(WORDS), num_hidden_layers=1, max_position_embeddings=128, num_labels=2, **SMALL, **labels
            )
        )
    if hallucinated is not None:
        _head(model, 1 if hallucinated else 0, classes=2)  # class 1: hallucinated
    model.save_pretrained(folder)
    return str(folder)


def sequence_model(folder, kind: str, *, supported: bool | None = None, labels=("unsupported", "supported")):
    """A 1-layer sequence classifier of ``kind`` (roberta, deberta, t5, bert) with the word-piece tokenizer."""
    folder.mkdir()
    _vocab(folder)
    named = {
        "num_labels": len(labels),
        "id2label": dict(enumerate(labels)),
        "label2id": {n: i for i, n in enumerate(labels)},
    }
    if kind == "roberta":
        from transformers import RobertaConfig, RobertaForSequenceClassification

        model = RobertaForSequenceClassification(
            RobertaConfig(
                vocab_size=len(WORDS),
                num_hidden_layers=1,
                pad_token_id=0,
                max_position_embeddings=140,
                **SMALL,
                **named,
            )
        )
    elif kind == "deberta":
        from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

        model = DebertaV2ForSequenceClassification(
            DebertaV2Config(
                vocab_size=len(WORDS),
                num_hidden_layers=1,
                pad_token_id=0,
                max_position_embeddings=128,
                **SMALL,
                **named,
            )
        )
    elif kind == "t5":
        from transformers import T5Config, T5ForSequenceClassification

        model = T5ForSequenceClassification(
            T5Config(
                vocab_size=len(WORDS),
                d_model=16,
                d_kv=8,
                d_ff=32,
                num_layers=1,
                num_decoder_layers=1,
                num_heads=2,
                pad_token_id=0,
                eos_token_id=3,
                decoder_start_token_id=0,
                **named,
            )
        )
    else:
        from transformers import BertConfig, BertForSequenceClassification

        model = BertForSequenceClassification(
            BertConfig(vocab_size=len(WORDS), num_hidden_layers=1, max_position_embeddings=128, **SMALL, **named)
        )
    if supported is not None:  # the class named like support (the last of these label sets), or the one logit's sign
        _head(model, (len(labels) - 1 if labels[-1] != "neutral" else 1) if supported else 0, len(labels))
    model.save_pretrained(folder)
    return str(folder)


def counting(detector):
    """Batches and rows the detector's (real) model is called with, through a forward hook."""
    _, model, _, _ = detector._load()
    seen = []
    model.register_forward_hook(
        lambda module, args, kwargs, output: seen.append(int(kwargs["input_ids"].shape[0])), with_kwargs=True
    )
    return seen


CONTEXT = ["The cat sat on the mat.", "The dog ran."]


def test_the_family_is_read_from_the_spec_or_the_model_config(tmp_path):
    token = token_model(tmp_path / "tok")
    nli = sequence_model(tmp_path / "nli", "bert", labels=("contradiction", "entailment", "neutral"))
    seq = sequence_model(tmp_path / "seq", "roberta")
    assert [parse_detector(p).family for p in (token, nli, seq)] == ["token", "nli", "sequence"]
    assert parse_detector(f"sequence:{nli}").family == "sequence"  # the spec wins
    assert parse_detector("nli:org/model", band=(0.3, 0.7)).label == "nli:org/model band 0.3-0.7"
    with pytest.raises(ValueError, match="band must be 0 <= low <= high <= 1"):
        DetectorSpec("sequence", "m", low=0.8, high=0.2)
    with pytest.raises(ValueError, match="needs a model"):
        parse_detector("token:")


def test_chunks_follow_sentences_and_the_word_budget():
    sentences = [" ".join(["the"] * 150) + "."] * 7
    chunks = chunk_words(sentences, 400)
    assert [len(c.split()) for c in chunks] == [300, 300, 300, 150]
    assert chunk_words(["one very long sentence " * 200], 400) == [
        "one very long sentence " * 200
    ]  # never cut mid-sentence


@pytest.mark.parametrize("kind", ["roberta", "deberta", "t5", "bert"])
def test_sequence_classifiers_read_premise_and_claim_pairs_and_take_the_best_chunk(tmp_path, kind):
    detector = Detector(
        DetectorSpec("sequence", sequence_model(tmp_path / kind, kind, supported=True), chunk_words=5), ModelCache()
    )
    seen = counting(detector)
    long_context = ["The cat sat on the mat. The dog ran. The cat sat. The dog sat on the mat. The cat ran."]
    [found] = detector.detect([(long_context, None, "The cat sat. The dog ran.")])
    assert found.verdict == "pass" and found.support > 0.99 and not found.spans
    assert [claim for claim, _ in found.claims] == ["The cat sat.", "The dog ran."]  # one claim per sentence
    chunks = chunk_words(
        ["The cat sat on the mat.", "The dog ran.", "The cat sat.", "The dog sat on the mat.", "The cat ran."], 5
    )
    assert len(chunks) > 1 and sum(seen) == 2 * len(chunks)  # every claim against every chunk


def test_a_single_logit_is_read_through_a_sigmoid_and_an_unsupported_claim_is_a_span(tmp_path):
    detector = Detector(
        DetectorSpec("sequence", sequence_model(tmp_path / "hhem", "bert", supported=False, labels=("score",))),
        ModelCache(),
    )
    answer = "The cat sat. The dog ran."
    [found] = detector.detect([(CONTEXT, None, answer)])
    assert found.verdict == "fail" and found.support < 0.01
    [(start, end, text, score)] = found.spans
    assert answer[start:end] == text == "The cat sat." and score > 0.99
    assert found.to_dict()["spans"][0]["start"] == 0


def test_nli_reads_windows_of_two_sentences_and_needs_an_entailment_class(tmp_path):
    nli = Detector(
        DetectorSpec(
            "nli",
            sequence_model(tmp_path / "nli", "bert", supported=True, labels=("contradiction", "entailment", "neutral")),
        ),
        ModelCache(),
    )
    assert nli._premises(["A cat. A dog. A mat."]) == ["A cat. A dog.", "A dog. A mat."]
    [found] = nli.detect([(CONTEXT, None, "The cat sat.")])
    assert found.verdict == "pass"
    wrong = Detector(
        DetectorSpec("nli", sequence_model(tmp_path / "plain", "bert", labels=("no", "yes"))), ModelCache()
    )
    with pytest.raises(ModelLoadError, match="no class means support"):
        wrong.detect([(CONTEXT, None, "The cat sat.")])


@pytest.mark.parametrize("modern", [False, True], ids=["bert", "modernbert"])
def test_a_token_classifier_marks_spans_of_the_answer_with_character_offsets(tmp_path, modern):
    answer = "The dog sat on the mat."
    bad = Detector(DetectorSpec("token", token_model(tmp_path / "bad", hallucinated=True, modern=modern)), ModelCache())
    [found] = bad.detect([(CONTEXT, "the cat ?", answer)])
    assert found.verdict == "fail"
    [(start, end, text, score)] = found.spans  # every answer token hallucinated: one span over the answer, merged
    assert (start, end, text) == (0, len(answer), answer) and score > 0.99
    good = Detector(
        DetectorSpec("token", token_model(tmp_path / "good", hallucinated=False, modern=modern)), ModelCache()
    )
    [found] = good.detect([(CONTEXT, None, answer)])
    assert found.verdict == "pass" and found.spans == ()


def test_a_long_context_is_chunked_and_a_token_is_supported_by_its_best_chunk(tmp_path):
    detector = Detector(DetectorSpec("token", token_model(tmp_path / "tok"), chunk_words=4), ModelCache())
    seen = counting(detector)
    [found] = detector.detect(
        [(["The cat sat on the mat.", "The dog ran on the mat.", "The cat ran."], None, "The cat sat.")]
    )
    assert sum(seen) == 3  # three chunks of at most four words (whole sentences), each with the answer
    assert found.verdict in ("pass", "fail") and 0 <= found.support <= 1


def test_batches_give_the_answers_one_by_one_would(tmp_path):
    detector = Detector(DetectorSpec("sequence", sequence_model(tmp_path / "seq", "roberta")), ModelCache())
    detector.batch_size = 4
    seen = counting(detector)
    items = [(CONTEXT, None, ["The cat sat.", "The dog ran on the mat.", "The mat."][i % 3]) for i in range(9)]
    together = detector.detect(items)
    assert seen == [4, 4, 1]
    alone = [detector.detect([item])[0] for item in items]
    assert [round(d.support, 5) for d in together] == [round(d.support, 5) for d in alone]


def test_a_model_that_cannot_load_names_the_option(tmp_path):
    with pytest.raises(ModelLoadError, match="--llmeval-detector / detector= a local folder"):
        Detector(DetectorSpec("sequence", str(tmp_path / "missing")), ModelCache()).detect([(CONTEXT, None, "x.")])


REWORDED = "Youngsters under twelve are admitted at no cost."
MUSEUM = "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."


@pytest.mark.parametrize("supported", [True, False])
def test_a_detector_decides_groundedness_unverified_answers_in_a_run(pytester, tmp_path, supported):
    folder = sequence_model(tmp_path / "minicheck", "roberta", supported=supported)
    pytester.makepyfile(
        f"from pytest_llmeval import assert_grounded\n\n"
        f"def test_reworded():\n    assert_grounded({REWORDED!r}, [{MUSEUM!r}])\n\n"
        f"def test_per_call():\n    assert_grounded({REWORDED!r}, [{MUSEUM!r}], detector='sequence:{folder}')\n"
    )
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        f"--llmeval-detector=sequence:{folder}",
        "--llmeval-report=out.json",
        "--llmeval-report=out.html",
    )
    result.assert_outcomes(**({"passed": 2} if supported else {"failed": 2}))
    verdict = "pass" if supported else "fail"
    result.stdout.fnmatch_lines(
        [
            f"*answers the offline evidence left unverified went to the detector: 2 "
            f"{'passed' if supported else 'failed'}*"
        ]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    for record in report["results"]:
        assert record["verdict"] == verdict and record["decided_by"] == "detector"
        assert record["details"]["detector"]["model"].startswith("sequence:")
        assert record["signature"]["params"]["detector"].startswith("sequence:")
        if not supported:
            [span] = record["details"]["detector"]["spans"]
            assert REWORDED[span["start"] : span["end"]] == span["text"]
    assert "by detector" in (pytester.path / "out.html").read_text()
