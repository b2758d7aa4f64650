"""Embeddings from a shared OpenAI-compatible server (llmeval_embedding_url), against a real loopback HTTP server."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

from pytest_llmeval.models.cache import ModelCache, ModelLoadError
from pytest_llmeval.models.server import EmbeddingServer, EmbeddingServerError, endpoint

from tests.embedding_server_stub import DIM, EmbeddingStub, bag_vector, word_vector


@pytest.fixture
def stub():
    running = EmbeddingStub().start()
    yield running
    running.stop()


def server(url: str, **kwargs) -> EmbeddingServer:
    return EmbeddingServer(url, backoff=kwargs.pop("backoff", 0.001), **kwargs)


def cache_for(url: str, directory=None, model: str = "stub-bow", **kwargs) -> ModelCache:
    return ModelCache(
        device="cpu",
        cache_dir=str(directory) if directory else None,
        embedding_model=model,
        announce=lambda line: None,
        embedding_server=server(url, **kwargs),
    )


def unit(vector) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    return (array / np.linalg.norm(array)).astype(np.float32)


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there any more: connection refused


# -- URLs and settings -------------------------------------------------------------------


def test_base_urls_with_or_without_v1():
    assert endpoint("http://h:1") == endpoint("http://h:1/") == endpoint("http://h:1/v1") == "http://h:1/v1/embeddings"
    assert endpoint("http://h:1/v1/embeddings") == "http://h:1/v1/embeddings"
    assert endpoint("https://h/openai/v1?api-version=2") == "https://h/openai/v1/embeddings?api-version=2"
    for bad in ("ftp://h/v1", "h:8080", "", "http:///v1"):
        with pytest.raises(ValueError, match="expected an http"):
            endpoint(bad)
    assert EmbeddingServer("http://user:secret@h:1").shown == "http://h:1/v1/embeddings"  # no password in reports


def test_a_bad_url_is_a_usage_error_naming_its_source(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("--override-ini=llmeval_embedding_url=ftp://nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected an http(s) URL*"])


# -- encoding ------------------------------------------------------------------------------


def test_encode_posts_batches_and_returns_unit_vectors_in_order(stub):
    texts = [f"text number {i} about cats" for i in range(10)]
    client = server(stub.base_url).client("stub-bow")
    matrix = client.encode(texts, batch_size=4)
    assert [len(r["input"]) for r in stub.requests] == [4, 4, 2]
    assert {r["model"] for r in stub.requests} == {"stub-bow"} and set(stub.paths) == {"/v1/embeddings"}
    assert matrix.dtype == np.float32 and matrix.shape == (10, DIM)
    np.testing.assert_allclose(matrix, np.stack([unit(bag_vector(t)) for t in texts]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)
    assert client.encode("one text").shape == (DIM,)  # one string, one row: as SentenceTransformer does
    assert client.encode([]).shape == (0, DIM)
    stub.reverse = True  # a server may send the data in any order: the index says whose vector it is
    np.testing.assert_allclose(client.encode(texts[:3]), np.stack([unit(bag_vector(t)) for t in texts[:3]]), atol=1e-6)


def test_a_base_url_without_v1_reaches_v1_embeddings(stub):
    client = server(stub.base_url.removesuffix("/v1")).client("m")
    client.encode(["a"])
    assert stub.paths == ["/v1/embeddings"]


def test_per_token_vectors_are_mean_pooled(stub):
    stub.token_level = True  # llama-cpp-python's server, for a model without pooling
    client = server(stub.base_url).client("m")
    vector = client.encode(["red green blue"])[0]
    tokens = [
        [a + (0.5 if i == DIM - 1 else 0.0) for i, a in enumerate(word_vector(w))] for w in ("red", "green", "blue")
    ]
    np.testing.assert_allclose(vector, unit(np.mean(tokens, axis=0)), atol=1e-6)
    assert client.pooled == 1


def pooled(text: str) -> np.ndarray:
    tokens = [[a + (0.5 if i == DIM - 1 else 0.0) for i, a in enumerate(word_vector(w))] for w in text.split()]
    return unit(np.mean(tokens, axis=0))


def test_per_token_replies_switch_to_one_text_a_request(stub):
    stub.token_level = stub.misplace = True  # llama-cpp-python 0.3: all but the first text get wrong token rows
    client = server(stub.base_url).client("m")
    texts = ["red green", "blue sky", "cold sea water"]
    np.testing.assert_allclose(client.encode(texts, batch_size=8), np.stack([pooled(t) for t in texts]), atol=1e-6)
    assert [r["input"] for r in stub.requests] == [texts, ["blue sky"], ["cold sea water"]] and client.one_by_one
    client.encode(["a b", "c d"], batch_size=8)
    assert [r["input"] for r in stub.requests[3:]] == [["a b"], ["c d"]]


def test_embedder_caches_in_memory_and_on_disk(stub, tmp_path):
    texts = ["the cat sat", "a dog ran", "the cat sat"]
    cache = cache_for(stub.base_url, tmp_path)
    embedder = cache.embedder()
    first = embedder.encode(texts)
    assert len(stub.requests) == 1 and stub.requests[0]["input"] == ["the cat sat", "a dog ran"]  # each text once
    assert embedder.encode(texts[:2]).shape == (2, DIM) and len(stub.requests) == 1  # from memory
    cache.flush()
    again = cache_for(stub.base_url, tmp_path).embedder()
    np.testing.assert_array_equal(again.encode(texts), first)
    assert len(stub.requests) == 1 and again.stats()["loaded"] is False  # from disk: no client, no request
    assert embedder.stats()["device"] == f"{stub.base_url}/embeddings"


def test_signature_names_the_server_model_and_never_matches_an_in_process_model(stub, tmp_path):
    from pytest_llmeval import Registry
    from pytest_llmeval.checks.embedding.base import model_family
    from pytest_llmeval.models.cache import DEFAULT_EMBEDDING_MODEL

    remote = cache_for(stub.base_url, tmp_path, model=DEFAULT_EMBEDDING_MODEL)
    local = ModelCache(device="cpu", cache_dir=str(tmp_path), announce=lambda line: None)
    served, loaded = remote.embedder(), local.embedder()  # neither loads anything
    assert served.signature == f"{DEFAULT_EMBEDDING_MODEL}@server|remote|normalized"
    assert served.signature != loaded.signature and served._store.directory != loaded._store.directory
    assert remote.embedder("bge-small").signature == "bge-small@server|remote|normalized"
    assert model_family(served.identity) == "all-minilm-l6-v2"  # the served model's calibrated thresholds apply
    for name in ("semantic_similarity", "groundedness"):
        evaluator = Registry(entry_points=False).create(name)
        evaluator.bind(remote)
        assert evaluator.signature().model == served.signature
    assert "torch" not in json.dumps(remote.stats())


# -- faults --------------------------------------------------------------------------------


def test_transient_faults_are_retried_then_succeed(stub):
    stub.script.extend([{"status": 500}, {"reset": True}, {"status": 429}, {"status": 503}])
    client = server(stub.base_url).client("m")
    np.testing.assert_allclose(client.encode(["retry me"])[0], unit(bag_vector("retry me")), atol=1e-6)
    assert len(stub.requests) == 5 and client.requests == 5 and client.retried == 4


def test_a_dead_url_fails_clearly_naming_the_setting_then_fast(stub):
    url = dead_url()
    client = server(url, retries=2).client("m")
    with pytest.raises(EmbeddingServerError) as caught:
        client.encode(["x"])
    message = str(caught.value)
    assert isinstance(caught.value, ModelLoadError)  # a one-line failure inside a test
    assert "llmeval_embedding_url" in message and f"{url}/embeddings" in message and "after 3 attempts" in message
    assert client.requests == 3
    with pytest.raises(EmbeddingServerError, match="no retries"):
        client.encode(["y"])  # a server that failed after its retries is asked once per batch
    assert client.requests == 4


def test_retries_run_out_on_a_server_that_keeps_failing(stub):
    stub.script.extend([{"status": 500, "message": "out of memory"}] * 3)
    with pytest.raises(EmbeddingServerError, match=r"after 3 attempts: HTTP 500: out of memory"):
        server(stub.base_url, retries=2).client("m").encode(["x"])


def test_a_client_error_is_not_retried_and_the_key_is_never_shown(stub, monkeypatch):
    monkeypatch.setenv("EMBED_KEY", "sk-secret-123456789")
    stub.script.append({"status": 401, "message": "Incorrect API key provided: sk-secret-123456789"})
    client = server(stub.base_url, api_key_env="EMBED_KEY").client("m")
    with pytest.raises(EmbeddingServerError, match="HTTP 401") as caught:
        client.encode(["x"])
    assert "sk-secret" not in str(caught.value) and "[redacted]" in str(caught.value)
    assert len(stub.requests) == 1 and stub.headers[0]["authorization"] == "Bearer sk-secret-123456789"
    monkeypatch.delenv("EMBED_KEY")
    client.encode(["x"])
    assert "authorization" not in stub.headers[1]  # no key, no header


def reply(*vectors, indices=None) -> str:
    return json.dumps(
        {"data": [{"index": i if indices is None else indices[i], "embedding": v} for i, v in enumerate(vectors)]}
    )


MALFORMED = [
    ("{not json", "not JSON"),
    ('{"object": "list"}', "no 'data' list"),
    ('{"error": {"message": "model not loaded"}}', "model not loaded"),
    (reply([1.0, 2.0]), "1 embeddings for 2 texts"),
    (reply([1.0, 2.0], [1.0, 2.0], [3.0, 4.0]), "3 embeddings for 2 texts"),
    ('{"data": [{"index": 0}, {"index": 1}]}', "without 'embedding'"),
    (reply([1.0, 2.0], [1.0, 2.0], indices=[0, 0]), "not 0..1 once each"),
    (reply([1.0, "2"], [1.0, 2.0]), "other than numbers"),
    (reply([1.0, True], [1.0, 2.0]), "other than numbers"),
    (reply([1.0, None], [1.0, 2.0]), "other than numbers"),
    (reply([], [1.0, 2.0]), "not a list of numbers"),
    (reply("AAAAAA==", [1.0, 2.0]), "not a list of numbers"),
    ('{"data": [{"index": 0, "embedding": [1.0, NaN]}, {"index": 1, "embedding": [1.0, 2.0]}]}', "NaN or infinity"),
    ('{"data": [{"index": 0, "embedding": [1.0, 1e999]}, {"index": 1, "embedding": [1.0, 2.0]}]}', "NaN or infinity"),
    (
        '{"data": [{"index": 0, "embedding": [1.0, 1' + "0" * 400 + ']}, {"index": 1, "embedding": [1.0, 2.0]}]}',
        "too large",
    ),
    (reply([0.0, 0.0], [1.0, 2.0]), "all zeros"),
    (reply([1.0, 2.0], [1.0, 2.0, 3.0]), "3 dimensions, earlier ones 2"),
    (reply([[1.0, 2.0], [1.0]], [1.0, 2.0]), "different lengths"),
    ("[" * 100000 + "]" * 100000, "not JSON"),
]


@pytest.mark.parametrize("body, why", MALFORMED, ids=[f"{i}-{why}" for i, (_, why) in enumerate(MALFORMED)])
def test_a_malformed_reply_is_a_clear_error_never_a_vector(stub, body, why):
    stub.script.append({"body": body})
    client = server(stub.base_url).client("m")
    with pytest.raises(EmbeddingServerError, match="malformed reply") as caught:
        client.encode(["a b", "c d"])
    assert why in str(caught.value) and "llmeval_embedding_url" in str(caught.value)
    assert len(stub.requests) == 1  # a wrong reply is not a transient fault: not retried


def test_any_str_is_sent_as_valid_json(stub):
    texts = [
        "lone \ud800 surrogate",
        "lone \ufffd surrogate",
        "nul \x00 inside",
        "",
        "emoji \U0001f600 ok",
        '"quotes" \\ and \n lines',
    ]
    embedder = cache_for(stub.base_url).embedder()
    matrix = embedder.encode(texts)
    assert matrix.shape == (len(texts), DIM) and np.isfinite(matrix).all()
    assert all(raw.isascii() for raw in stub.raw)  # escaped JSON: valid UTF-8 whatever the text
    assert stub.requests[0]["input"][0] == "lone \ufffd surrogate" and stub.requests[0]["input"][2] == "nul \x00 inside"
    assert embedder.encoded == len(texts)  # the surrogate and its replacement stay two cache keys


# -- through pytest ------------------------------------------------------------------------

SUITE = """
import os
import sys

import pytest

from pytest_llmeval import assert_grounded, assert_similar

HEAVY = ("torch", "sentence_transformers", "transformers")


@pytest.fixture(autouse=True)
def no_heavy_library():
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join({marks!r}, f"{{worker}}-{{os.getpid()}}"), "a") as handle:
        handle.write("x")
    loaded = [name for name in HEAVY if name in sys.modules]
    assert not loaded, loaded


@pytest.mark.parametrize("i", range(4))
def test_similar(i):
    assert_similar(f"The capital of France is Paris, says report {{i}}.", f"Paris is the capital of France, says \
report {{i}}.",
                   entities="rules")


@pytest.mark.parametrize("i", range(4))
def test_grounded(i):
    assert_grounded(f"Paris is the capital of France and has {{i}} museums.",
                    [f"France is a country in Europe. Paris is the capital of France and has {{i}} museums."], \
entities="rules")


def test_dissimilar_fails():
    with pytest.raises(AssertionError):
        assert_similar("Bananas grow in warm places.", "The stock market fell sharply today.", entities="rules")
"""


def run_suite(pytester, stub, *args):
    marks = pytester.path / "marks"
    marks.mkdir()
    pytester.makepyfile(SUITE.format(marks=str(marks)))
    result = pytester.runpytest_subprocess(
        "-p",
        "no:randomly",
        "-p",
        "no:deepeval",
        f"--override-ini=llmeval_embedding_url={stub.base_url}",
        "--override-ini=llmeval_embedding_model=stub-bow",
        "--llmeval-report=out",
        *args,
    )
    result.assert_outcomes(passed=9)
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    records = report["results"]
    assert set(report["tests"]) == {r["nodeid"] for r in records} and len(report["tests"]) == 9
    assert {r["signature"]["model"] for r in records} == {"stub-bow@server|remote|normalized"}
    assert stub.requests and {r["model"] for r in stub.requests} == {"stub-bow"}
    return result, report, sorted(p.name for p in marks.iterdir())


@pytest.mark.subprocess
def test_a_pytest_run_scores_through_the_server_without_torch(pytester, stub):
    result, report, marks = run_suite(pytester, stub)
    assert len(marks) == 1
    result.stdout.fnmatch_lines([f"*llmeval models: stub-bow on {stub.base_url}/embeddings*"])
    before = len(stub.requests)
    second = pytester.runpytest_subprocess(
        "-p",
        "no:randomly",
        "-p",
        "no:deepeval",
        f"--override-ini=llmeval_embedding_url={stub.base_url}",
        "--override-ini=llmeval_embedding_model=stub-bow",
    )
    second.assert_outcomes(passed=9)
    assert len(stub.requests) == before  # the disk cache answered everything


@pytest.mark.subprocess
def test_two_xdist_workers_share_one_server(pytester, stub):
    pytest.importorskip("xdist")
    _, report, marks = run_suite(pytester, stub, "-n", "2")
    assert {m.split("-")[0] for m in marks} == {"gw0", "gw1"}  # both workers ran checks (and imported no torch)
    workers = report["models"]["workers"]
    assert len(workers) == 2
    for stats in workers.values():
        (embedder,) = stats["embedders"]
        assert embedder["device"] == f"{stub.base_url}/embeddings" and embedder["encoded"] > 0


def test_a_server_that_refuses_fails_the_test_in_one_line(pytester, stub):
    stub.script.append({"status": 404, "message": "model 'nope' not found"})
    pytester.makepyfile(
        "from pytest_llmeval import assert_similar\n\n"
        "def test_x():\n    assert_similar('a cat', 'a cat', entities='rules')\n"
    )
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        f"--override-ini=llmeval_embedding_url={stub.base_url}",
        "--override-ini=llmeval_embedding_model=nope",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*llmeval: the embedding server at {stub.base_url}/embeddings (llmeval_embedding_url, "
            "model 'nope') refused the request: HTTP 404: model 'nope' not found*"
        ]
    )
