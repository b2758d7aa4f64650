"""BLEURT and MoverScore on tiny random models built here (no registry package ships their weights).

The scores of random models mean nothing: these tests check shapes, ranges, determinism,
the formulas (MoverScore against a re-implementation of ``moverscore_v2``'s computation,
BLEURT against the model run on each (reference, answer) pair), the plumbing through the
helpers and a pytest run, and the errors.
"""

from __future__ import annotations

import json
import math
import string
from collections import Counter, defaultdict

import pytest

pytest.importorskip("transformers")
pytest.importorskip("scipy")

import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402,F401  (imported before any in-process pytest run)
import torch  # noqa: E402

import pytest_llmeval.checks.language_model.learned  # noqa: E402,F401
from pytest_llmeval import Case, LLMEvalAssertionError, MissingInputError, Result
from pytest_llmeval.checks.language_model.bleurt import Bleurt
from pytest_llmeval.checks.language_model.moverscore import MoverScore, earth_movers_distance
from pytest_llmeval.models.cache import ModelCache, ModelLoadError

from tests.core.test_contract import check_contract  # noqa: E402

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "cat",
    "##s",
    "sat",
    "on",
    "mat",
    "dog",
    "ran",
    ".",
    ",",
    "a",
    "bird",
    "sings",
    "by",
    "window",
    "this",
    "is",
    "random",
    "sentence",
    "##ly",
]


def _tokenizer(folder):
    from transformers import BertTokenizer

    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)


def _config(**extra):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        **extra,
    )


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    """A 2-layer random BERT encoder (hidden size 32) with a word-piece vocabulary."""
    from transformers import BertModel

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("encoder")
    _tokenizer(folder)
    BertModel(_config()).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def regressor(tmp_path_factory):
    """A 2-layer random BERT with a one-output regression head: BLEURT's shape (weights large enough to tell pairs
    apart)."""
    from transformers import BertForSequenceClassification

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("bleurt")
    _tokenizer(folder)
    BertForSequenceClassification(_config(num_labels=1, initializer_range=0.5)).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def models():
    return ModelCache(device="cpu", cache_dir=None, announce=lambda line: None)


def build(cls, models, **params):
    evaluator = cls(**params)
    evaluator.bind(models)
    return evaluator


CASES = [
    Case(actual="the cat sat on the mat.", expected=("the cat sat on the mat.",)),
    Case(actual="the dog ran by the window", expected=("a bird sings by the window", "the cats sat, randomly.")),
    Case(actual="", expected=("this is a random sentence",)),
    Case(actual="the cats sat", expected=("the cat sat on the mat",)),
]

# -- moverscore_v2's computation (emnlp19-moverscore, moverscore 1.0.3), one pair at a time -------------------


def _reference_idf(tokenizer, texts):
    """``get_idf_dict``: a set of ids of ``[CLS] + tokenize(text) + [SEP]`` per text."""
    counts = Counter(
        i for t in texts for i in set(tokenizer.convert_tokens_to_ids(["[CLS]", *tokenizer.tokenize(t), "[SEP]"]))
    )
    table = defaultdict(lambda: math.log(len(texts) + 1))
    table.update({i: math.log((len(texts) + 1) / (c + 1)) for i, c in counts.items()})
    return table


def _dense_emd(c1, c2, dst):
    """The transport problem on the whole (N, N) matrix, as pyemd's ``emd_with_flow`` is called."""
    from scipy.optimize import linprog

    n = len(c1)
    rows = np.zeros((2 * n, n * n))
    for i in range(n):
        rows[i, i * n : (i + 1) * n] = 1
        rows[n + i, i::n] = 1
    result = linprog(dst.ravel(), A_eq=rows[:-1], b_eq=np.concatenate([c1, c2])[:-1], bounds=(0, None), method="highs")
    return result.fun


def reference_moverscore(folder, reference, answer, idf_ref=None, idf_hyp=None, stop_words=()):
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    idf_ref = idf_ref or defaultdict(lambda: 1.0)
    idf_hyp = idf_hyp or defaultdict(lambda: 1.0)

    def embed(text, idf):
        tokens = ["[CLS]", *tokenizer.tokenize(text), "[SEP]"]
        ids = tokenizer.convert_tokens_to_ids(tokens)
        with torch.no_grad():
            hidden = (
                model(
                    torch.tensor([ids]),
                    attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                    output_hidden_states=True,
                )
                .hidden_states[-1][0]
                .clone()
            )
        weights = torch.tensor([idf[i] for i in ids], dtype=torch.float64)
        removed = [k for k, w in enumerate(tokens) if w in stop_words or "##" in w or w in set(string.punctuation)]
        hidden[removed, :] = 0
        weights[removed] = 0
        return hidden, weights

    ref, ref_w = embed(reference, idf_ref)
    hyp, hyp_w = embed(answer, idf_hyp)
    raw = torch.cat([ref, hyp], 0).double()
    raw = raw / (raw.norm(dim=-1, keepdim=True) + 1e-30)
    dst = torch.cdist(raw, raw).numpy()
    c1, c2 = np.zeros(len(raw)), np.zeros(len(raw))
    c1[: len(ref)], c2[len(ref) :] = ref_w.numpy(), hyp_w.numpy()
    c1, c2 = c1 / (c1.sum() + 1e-30), c2 / (c2.sum() + 1e-30)
    return 1 - _dense_emd(c1, c2, dst)


PAIRS = [
    ("the cat sat on the mat.", "the dog ran by the window"),
    ("a bird sings, randomly", "the cats sat on a mat"),
    ("this is a random sentence", "this is a sentence"),
    ("the cat", "the dog ran by the window, the bird sings."),
]


@pytest.mark.parametrize("reference, answer", PAIRS)
def test_moverscore_equals_the_reference_computation(models, encoder, reference, answer):
    [result] = build(MoverScore, models, model=encoder).evaluate([Case(actual=answer, expected=(reference,))])
    assert result.metrics["moverscore"] == pytest.approx(reference_moverscore(encoder, reference, answer), abs=1e-6)
    assert result.metrics["distance"] == pytest.approx(1 - result.metrics["moverscore"], abs=1e-12)


def test_moverscore_stop_words_and_idf_equal_the_reference(models, encoder):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(encoder)
    answers, references = [p[1] for p in PAIRS], [p[0] for p in PAIRS]
    idf_ref, idf_hyp = _reference_idf(tokenizer, references), _reference_idf(tokenizer, answers)
    results = build(MoverScore, models, model=encoder, idf=True, stop_words=["the", "a"]).evaluate(
        [Case(actual=a, expected=(r,)) for a, r in zip(answers, references)]
    )
    for result, answer, reference in zip(results, answers, references):
        want = reference_moverscore(encoder, reference, answer, idf_ref, idf_hyp, stop_words=("the", "a"))
        assert result.metrics["moverscore"] == pytest.approx(want, abs=1e-6)
        assert result.details["idf_uniform"] is False


def test_moverscore_identical_text_scores_one_and_ranges_hold(models, encoder):
    results = build(MoverScore, models, model=encoder).evaluate(CASES)
    assert results[0].metrics == {"moverscore": 1.0, "distance": 0.0} and results[0].passed
    for result in results:
        assert -1.0 <= result.metrics["moverscore"] <= 1.0 and 0.0 <= result.metrics["distance"] <= 2.0
        assert result.reason.startswith("MoverScore ")
    # two references: the mean of the two distances (the reference's sentence_score), or the best
    mean, best = (
        build(MoverScore, models, model=encoder, aggregate=a).evaluate([CASES[1]])[0] for a in ("mean", "max")
    )
    assert mean.metrics["distance"] == pytest.approx(sum(mean.details["distances"]) / 2)
    assert best.metrics["distance"] == pytest.approx(min(mean.details["distances"]))
    assert best.metrics["moverscore"] >= mean.metrics["moverscore"]


def test_moverscore_is_deterministic_symmetric_and_batch_independent(encoder):
    first = build(MoverScore, ModelCache(device="cpu", announce=lambda line: None), model=encoder).evaluate(CASES)
    again = build(MoverScore, ModelCache(device="cpu", announce=lambda line: None), model=encoder).evaluate(CASES)
    assert first == again
    alone = [
        build(MoverScore, ModelCache(device="cpu", announce=lambda line: None), model=encoder).evaluate([c])[0]
        for c in CASES
    ]
    for batched, single in zip(first, alone):
        assert batched.metrics["moverscore"] == pytest.approx(single.metrics["moverscore"], abs=1e-6)
    swapped = build(MoverScore, ModelCache(device="cpu", announce=lambda line: None), model=encoder).evaluate(
        [Case(actual=r, expected=(a,)) for r, a in PAIRS]
    )
    for result, (reference, answer) in zip(swapped, PAIRS):
        [forward] = build(MoverScore, ModelCache(device="cpu", announce=lambda line: None), model=encoder).evaluate(
            [Case(actual=answer, expected=(reference,))]
        )
        assert result.metrics["moverscore"] == pytest.approx(forward.metrics["moverscore"], abs=1e-6)  # uniform weights


def test_moverscore_idf_with_one_text_falls_back_to_uniform(models, encoder):
    [result] = build(MoverScore, models, model=encoder, idf=True).evaluate([CASES[3]])
    assert result.details["idf_uniform"] is True and "IDF not applied" in result.reason
    [plain] = build(MoverScore, models, model=encoder).evaluate([CASES[3]])
    assert result.metrics["moverscore"] == pytest.approx(plain.metrics["moverscore"], abs=1e-9)


def test_moverscore_layer_and_signature(models, encoder):
    default, embeddings = (build(MoverScore, models, model=encoder, layer=layer) for layer in (-1, 0))
    assert default.evaluate([CASES[3]])[0].score != embeddings.evaluate([CASES[3]])[0].score
    assert default.signature().model.endswith("|fp32|layer -1") and "scipy" in default.signature().backend
    assert default.signature().params == {
        "aggregate": "mean",
        "idf": False,
        "layer": -1,
        "max_length": 512,
        "stop_words": (),
    }
    with pytest.raises(ValueError, match=r"moverscore: parameter 'layer' must be between -3 and 2 for this model"):
        build(MoverScore, models, model=encoder, layer=5).evaluate([CASES[3]])


def test_earth_movers_distance_is_exact():
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(7)
    for n in (2, 5, 9):
        cost = rng.random((n, n)) * 2
        rows, columns = linear_sum_assignment(cost)  # equal uniform weights: an optimal plan is a permutation
        uniform = np.full(n, 1 / n)
        assert earth_movers_distance(uniform, uniform, cost) == pytest.approx(cost[rows, columns].mean(), abs=1e-9)
    source, target = np.array([0.2, 0.3, 0.5]), np.array([1.0])
    assert earth_movers_distance(source, target, np.array([[1.0], [0.5], [0.0]])) == pytest.approx(0.35)
    assert earth_movers_distance(
        np.array([0.7, 0.3]), np.array([0.4, 0.6]), np.array([[0.0, 1.0], [1.0, 0.0]])
    ) == pytest.approx(0.3)


# -- BLEURT ------------------------------------------------------------------------------------------------


def _direct_bleurt(folder, reference, answer):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        # lists: a pair even where the answer is empty ([CLS] reference [SEP] [SEP], as BLEURT encodes it)
        return float(model(**tokenizer([reference], [answer], return_tensors="pt")).logits[0, 0])


def test_bleurt_scores_the_reference_answer_pair(models, regressor):
    results = build(Bleurt, models, model=regressor).evaluate(CASES)
    assert [set(r.metrics) for r in results] == [{"bleurt"}] * len(CASES)
    for case, result in zip(CASES, results):
        direct = [_direct_bleurt(regressor, reference, case.actual) for reference in case.expected]
        assert result.score == pytest.approx(max(direct), abs=1e-5)  # several references: the best
        assert result.details["reference"] == direct.index(max(direct))
        assert result.passed == (result.score >= 0.5) and result.reason.startswith("BLEURT ")
        assert -10.0 <= result.score <= 10.0
    # the reference is the first segment, the answer the second (the order changes the score)
    reference, answer = PAIRS[0]
    assert results[1].details["scores"] == pytest.approx(
        [_direct_bleurt(regressor, r, CASES[1].actual) for r in CASES[1].expected], abs=1e-5
    )
    assert _direct_bleurt(regressor, reference, answer) != pytest.approx(
        _direct_bleurt(regressor, answer, reference), abs=1e-6
    )


def test_bleurt_is_deterministic_and_cuts_long_pairs(regressor):
    fresh = [
        build(Bleurt, ModelCache(device="cpu", announce=lambda line: None), model=regressor).evaluate(CASES)
        for _ in range(2)
    ]
    assert fresh[0] == fresh[1]
    long = Case(actual=" ".join(["the cat sat on the mat"] * 40), expected=("the cat",))
    [result] = build(Bleurt, ModelCache(device="cpu", announce=lambda line: None), model=regressor).evaluate([long])
    assert result.details["truncated"] is True and "was cut" in result.reason  # 64 positions: cut to 64 tokens


def test_bleurt_signature(models, regressor):
    evaluator = build(Bleurt, models, model=regressor)
    assert evaluator.signature().params == {"max_length": 512} and evaluator.signature().model.endswith("|fp32")
    assert (
        Bleurt().model_name() == "lucadiliello/BLEURT-20-D12" and MoverScore().model_name() == "distilbert-base-uncased"
    )


# -- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls, role", [(Bleurt, "BLEURT model"), (MoverScore, "MoverScore encoder")])
def test_a_missing_folder_names_the_parameter_and_the_folder(models, tmp_path, monkeypatch, cls, role):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(ModelLoadError) as info:
        build(cls, models, model=missing).evaluate([CASES[3]])
    message = str(info.value)
    assert f"{cls.name}: the {role} folder {missing!r} does not exist" in message
    assert f"scorer= ({cls.helper})" in message and "HF_HUB_OFFLINE=1 is set" in message


@pytest.mark.parametrize("cls", [Bleurt, MoverScore])
def test_an_unreachable_hub_name_is_one_clear_error(models, monkeypatch, cls):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match=r"could not load the .* 'nobody/no-such-model'.*HF_HUB_OFFLINE=1 is set"):
        build(cls, models, model="nobody/no-such-model").evaluate([CASES[3]])


def test_bleurt_says_what_architecture_it_expected(models, tmp_path):
    from tests.conftest import tiny_classifier

    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "config.json").write_text(
        json.dumps({"model_type": "bleurt", "architectures": ["BleurtForSequenceClassification"]})
    )
    with pytest.raises(ModelLoadError) as info:
        build(Bleurt, models, model=str(custom)).evaluate([CASES[3]])
    message = str(info.value)
    assert "declares model_type 'bleurt'" in message and "BleurtForSequenceClassification" in message
    assert (
        "AutoModelForSequenceClassification" in message
        and "num_labels=1" in message
        and "pip install bleurt-pytorch" in message
    )
    (tmp_path / "nli").mkdir()
    three = tiny_classifier(tmp_path / "nli", ["contradiction", "entailment", "neutral"])
    with pytest.raises(ModelLoadError, match=r"head with 3 outputs .*BLEURT is a regression model with one output"):
        build(Bleurt, models, model=three).evaluate([CASES[3]])


def test_parameters_are_checked():
    with pytest.raises(TypeError, match="moverscore: parameter 'stop_words' must be a list of str"):
        MoverScore(stop_words="the")
    with pytest.raises(ValueError, match="moverscore: parameter 'aggregate' must be one of 'mean', 'max'"):
        MoverScore(aggregate="median")
    with pytest.raises(TypeError, match="moverscore: parameter 'idf' must be True or False"):
        MoverScore(idf="yes")
    with pytest.raises(TypeError, match="bleurt: parameter 'model' must be the hub name or local folder"):
        Bleurt(model=3)
    with pytest.raises(ValueError, match="bleurt: parameter 'max_length' must be at least 8"):
        Bleurt(max_length=2)


# -- the contract every evaluator keeps (tests/core/test_contract.py's checks, on these two classes) --------------


@pytest.fixture(params=[Bleurt, MoverScore], ids=["bleurt", "moverscore"])
def learned(request, models, regressor, encoder):
    cls = request.param
    return lambda **params: build(cls, models, model=regressor if cls is Bleurt else encoder, **params)


def test_contract(learned):
    evaluator = learned()
    check_contract(type(evaluator))
    good = Case(
        actual="Brazil revenue was 15,969 million in 2023.", expected=("Brazil revenue was 15,969 million in 2023.",)
    )
    cases = [
        good,
        Case(actual="Something else entirely.", expected=good.expected),
        Case(actual="", expected=good.expected),
    ]
    results = evaluator.evaluate(cases)
    for result in results:
        assert result.score is not None and result.reason
        for metric, value in result.metrics.items():
            low, high = evaluator.metric_specs()[metric].range
            assert value is None or (low <= value <= high and not math.isnan(value))
        assert Result.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert learned().evaluate(cases) == results
    with pytest.raises(MissingInputError, match=rf"{evaluator.name} requires 'expected'"):
        evaluator.evaluate([Case(actual="x")])
    primary = evaluator.active_primary().name
    low, _ = evaluator.metric_specs()[primary].range
    with pytest.raises(ValueError, match="outside its range"):
        evaluator.evaluate([good], thresholds={primary: low - 1})
    [off] = evaluator.evaluate([Case(actual="x y z", expected=("a",))], thresholds={primary: None})
    assert off.passed and off.thresholds == {}
    words = "the model answered a question about revenue in brazil".split()
    text = " ".join(words[i % len(words)] + str(i % 97) for i in range(120_000))[:1_000_000]
    [huge] = evaluator.evaluate([Case(actual=text, expected=("revenue in brazil",))])
    assert huge.score is not None and len(json.dumps(huge.to_dict())) < 20_000


# -- the helpers, and a whole pytest run -------------------------------------------------------------------


def test_helpers_pass_scorer_and_parameters(encoder, regressor):
    from pytest_llmeval.checks.language_model.bleurt import assert_bleurt
    from pytest_llmeval.checks.language_model.moverscore import assert_moverscore
    from pytest_llmeval.harness.registry import BUILTIN_EVALUATORS

    if "moverscore" not in BUILTIN_EVALUATORS:
        pytest.skip("not registered yet (pytest_llmeval/registry.py); the pytest run below registers them itself")
    result = assert_moverscore("the cat sat", "the cat sat", scorer=encoder)
    assert result.score == 1.0 and result.signature.params["layer"] == -1
    with pytest.raises(LLMEvalAssertionError, match="llmeval moverscore failed"):
        assert_moverscore("the dog ran", "a bird sings", scorer=encoder, threshold=0.99)
    assert assert_bleurt("the cat", "the cat", scorer=regressor, threshold=-10.0).evaluator == "bleurt"


def test_a_pytest_run_records_both_checks(pytester, encoder, regressor):
    pytester.makeconftest(
        """
def pytest_llmeval_register_evaluators(registry):
    registry.register("bleurt", "pytest_llmeval.checks.language_model.bleurt:Bleurt")
    registry.register("moverscore", "pytest_llmeval.checks.language_model.moverscore:MoverScore")
"""
    )
    pytester.makepyfile(
        f"""
from pytest_llmeval import assert_bleurt, assert_moverscore

ENCODER, BLEURT = {encoder!r}, {regressor!r}

def test_same_text():
    assert_moverscore("the cat sat on the mat", "the cat sat on the mat", scorer=ENCODER)

def test_other_text():
    assert_moverscore("the dog ran", ["a bird sings", "the cat"], scorer=ENCODER, threshold=0.99)

def test_bleurt_any_score():
    assert_bleurt("the cat sat", "the cat sat on the mat", scorer=BLEURT, threshold=-10.0)

def test_bleurt_missing_model():
    assert_bleurt("the cat", "the cat", scorer=BLEURT + "-missing")
"""
    )
    result = pytester.runpytest("--llmeval-report=r.json", "--llmeval-device=cpu", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*llmeval moverscore failed: moverscore * < threshold 0.990*",
            "*llmeval: bleurt: the BLEURT model folder * does not exist*scorer= (assert_bleurt)*",
        ]
    )
    records = json.loads((pytester.path / "r.json").read_text())["results"]
    by_check = sorted((r["evaluator"], r["passed"], r["metrics"][r["primary"]]) for r in records)
    assert [(name, passed) for name, passed, _ in by_check] == [
        ("bleurt", True),
        ("moverscore", False),
        ("moverscore", True),
    ]
    assert by_check[2][2] == 1.0 and all(isinstance(score, float) for _, _, score in by_check)
