"""Embeddings from a shared model server: any OpenAI-compatible ``/v1/embeddings`` endpoint.

With ``llmeval_embedding_url`` set (vLLM, text-embeddings-inference, Ollama, llama.cpp's
server, OpenAI), every xdist worker and CI shard asks one server for its vectors instead of
loading its own copy of the model: no torch in the test processes. The session's
`Embedder` keeps its cache, batching and disk store; only the
encoder changes, and so does the signature: ``<model>@server|remote|normalized``, where
``<model>`` is the name sent to the server (``llmeval_embedding_model``), so vectors of a
server and of an in-process model are never mixed. The URL is not part of it: shards that
reach the same model at different addresses share their cache.

The URL is the API's base, as for the judge: ``http://host:8080/v1`` posts to
``http://host:8080/v1/embeddings``; a URL without a path (``http://host:8080``) means
``/v1``; a URL that ends in ``/embeddings`` is used as it is.

Only the standard library is used. Connection faults, timeouts, 429 and 5xx are retried
with backoff, then fail with `EmbeddingServerError` (a ``ModelLoadError``) naming the
setting and the URL; once the server has failed so, later batches try once each. A reply
that is not one finite, non-zero vector per text, all of one length, is an error, never a
wrong vector. A server that returns one vector per token (llama-cpp-python's server with a
model without pooling) has them mean-pooled, and is sent one text per request from then on:
llama-cpp-python 0.3's server misplaces the token vectors of every text but the first of a
request (its first such batch is asked again, text by text). Vectors are L2-normalised here,
whatever the server did.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ..text.basics import replace_surrogates
from .config import ModelLoadError, endpoint

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EmbeddingServer", "EmbeddingClient", "EmbeddingServerError", "endpoint", "server_for", "SETTING"]


#: The setting every error names.
SETTING = "llmeval_embedding_url"


#: What the evaluators' signatures name as the backend of server vectors.
BACKEND = "openai-compatible /v1/embeddings"


class EmbeddingServerError(ModelLoadError):
    """The embedding server could not be reached or sent a reply that is not one vector per text."""


def _shown(url: str) -> str:
    """``url`` without a user name or password, for messages and reports."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


class EmbeddingServer:
    """Where the shared embedding model is served, and how to ask it.

    Args:
        url: the API's base URL (see `endpoint()`).
        api_key_env: the environment variable holding the API key, sent as a bearer token when set.
        timeout: seconds before one request gives up (and is retried).
        retries: further attempts after a transient fault (connection, timeout, 429, 5xx).
        backoff: seconds before the first retry, doubled each time (at most 8 s; a 429's
            ``Retry-After`` is honoured up to 30 s).
    """

    backend = BACKEND

    def __init__(
        self,
        url: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        retries: int = 4,
        backoff: float = 0.5,
    ) -> None:
        self.url = endpoint(url)
        self.shown = _shown(self.url)
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff

    def __repr__(self) -> str:
        return f"EmbeddingServer({self.shown!r})"

    def identity(self, model: str) -> str:
        """The model's identity in signatures and cache keys: never the same as an in-process model's."""
        return f"{model}@server"

    def client(self, model: str) -> EmbeddingClient:
        return EmbeddingClient(self, model)


def server_for(url: str | None, api_key_env: str) -> EmbeddingServer | None:
    """The session's embedding server at ``url`` (``llmeval_embedding_url``), or ``None`` when it is not set."""
    if not url:
        return None
    return EmbeddingServer(url, api_key_env=api_key_env)


class EmbeddingClient:
    """One model on an `EmbeddingServer`, encoding like a SentenceTransformer.

    Counts what it did: ``requests`` (HTTP requests, retries included), ``texts`` sent,
    ``retried`` faults and ``pooled`` texts whose per-token vectors were averaged;
    ``one_by_one`` says whether per-token replies made it send one text per request.
    """

    def __init__(self, server: EmbeddingServer, model: str) -> None:
        self.server = server
        self.model = model
        self.dimension: int | None = None
        self.requests = 0
        self.texts = 0
        self.retried = 0
        self.pooled = 0
        self.one_by_one = False
        self._per_token = False
        self._down = False  # failed after all its retries: later batches try once
        self._sleep: Callable[[float], None] = time.sleep

    def encode(
        self,
        sentences: str | Sequence[str],
        batch_size: int = 32,
        convert_to_numpy: bool = True,
        normalize_embeddings: bool = True,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """Vectors for ``sentences`` (float32 rows in order; one row for one string), ``batch_size`` texts a request.

        ``convert_to_numpy`` and ``show_progress_bar`` are accepted for compatibility: the
        result is always a numpy array, and nothing is drawn.
        """
        import numpy as np

        single = isinstance(sentences, str)
        texts = [sentences] if isinstance(sentences, str) else list(sentences)
        rows: list[np.ndarray] = []
        while len(rows) < len(texts):
            size = 1 if self.one_by_one else max(1, int(batch_size))
            rows.extend(self._batch(texts[len(rows) : len(rows) + size]))
        matrix = np.stack(rows) if rows else np.zeros((0, self.dimension or 0), dtype=np.float32)
        if normalize_embeddings and len(matrix):
            matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix.astype(np.float32)
        return matrix[0] if single else matrix

    # -- one request ---------------------------------------------------------------

    def _batch(self, texts: list[str]) -> list[np.ndarray]:
        # Lone surrogates (valid in a str, not in UTF-8 or in most servers' JSON) become U+FFFD;
        # the cache keys keep the text as it was. ensure_ascii: the body is plain ASCII.
        body = json.dumps({"model": self.model, "input": [replace_surrogates(t) for t in texts]}).encode("ascii")
        reply = self._post(body)
        self.texts += len(texts)
        vectors = self._vectors(reply, len(texts))
        if self._per_token and not self.one_by_one:
            # Per-token vectors of several texts in one reply cannot be trusted (see the module): one by one from now.
            self.one_by_one = True
            vectors[1:] = [vector for text in texts[1:] for vector in self._batch([text])]
        return vectors

    def _headers(self) -> dict[str, str]:
        from .config import CLIENT_HEADER

        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "pytest-llmeval",
            CLIENT_HEADER: "embedding",
        }
        key = os.environ.get(self.server.api_key_env, "") if self.server.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _fail(self, what: str) -> EmbeddingServerError:
        return EmbeddingServerError(
            f"the embedding server at {self.server.shown} ({SETTING}, model {self.model!r}) {what}"
        )

    def _redact(self, text: str) -> str:
        key = os.environ.get(self.server.api_key_env, "") if self.server.api_key_env else ""
        return text.replace(key, "[redacted]") if len(key) >= 4 else text

    def _post(self, body: bytes) -> Any:
        import http.client
        import urllib.error
        import urllib.request

        attempts = 1 if self._down else self.server.retries + 1
        last = ""
        for attempt in range(attempts):
            delay = min(8.0, self.server.backoff * 2**attempt)
            request = urllib.request.Request(self.server.url, data=body, headers=self._headers(), method="POST")
            self.requests += 1
            try:
                with urllib.request.urlopen(request, timeout=self.server.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                detail = self._redact(_detail(exc))
                if exc.code != 429 and exc.code < 500:
                    raise self._fail(f"refused the request: HTTP {exc.code}: {detail}") from None
                last = f"HTTP {exc.code}: {detail}"
                delay = max(delay, _retry_after(exc.headers.get("Retry-After") if exc.headers else None))
            except (OSError, http.client.HTTPException) as exc:  # refused, reset, timed out, cut short
                reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                last = f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__
            else:
                self._down = False
                return self._parse(raw)
            if attempt + 1 < attempts:
                self.retried += 1
                self._sleep(delay)
        self._down = True
        tries = f"after {attempts} attempts" if attempts > 1 else "(it failed before, so no retries)"
        raise self._fail(
            f"did not answer {tries}: {self._redact(last)}. Start the server, or fix or unset "
            f"{SETTING} (embedding.url, LLMEVAL_EMBEDDING_URL)"
        )

    # -- reading the reply -----------------------------------------------------------

    def _parse(self, raw: bytes) -> Any:
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            raise self._malformed(f"a body that is not JSON: {raw[:200]!r}") from None

    def _malformed(self, why: str) -> EmbeddingServerError:
        return self._fail(f"sent a malformed reply: {why}")

    def _vectors(self, reply: Any, count: int) -> list[np.ndarray]:
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list):
            error = reply.get("error") if isinstance(reply, dict) else None
            raise self._malformed(f"no 'data' list{f' (error: {self._redact(str(error))[:300]})' if error else ''}")
        if len(data) != count:
            raise self._malformed(f"{len(data)} embeddings for {count} texts")
        if not all(isinstance(item, dict) and "embedding" in item for item in data):
            raise self._malformed("an item without 'embedding'")
        indices = [item.get("index") for item in data]
        if all(index is None for index in indices):
            ordered = data  # no indices at all: in the order sent
        elif sorted(i for i in indices if type(i) is int) != list(range(count)):
            raise self._malformed(f"indices {indices[:10]} are not 0..{count - 1} once each")
        else:
            ordered = sorted(data, key=lambda item: int(item["index"]))
        return [self._vector(item["embedding"], position) for position, item in enumerate(ordered)]

    def _vector(self, embedding: Any, position: int) -> np.ndarray:
        import numpy as np

        where = f"embedding {position}"
        if not isinstance(embedding, list) or not embedding:
            raise self._malformed(f"{where} is not a list of numbers: {str(embedding)[:80]}")
        pooled = all(isinstance(row, list) for row in embedding)
        self._per_token = self._per_token or pooled
        rows = embedding if pooled else [embedding]
        if not all(row and all(type(x) in (int, float) for x in row) for row in rows):
            raise self._malformed(f"{where} holds something other than numbers: {str(embedding)[:80]}")
        if len({len(row) for row in rows}) != 1:
            raise self._malformed(f"{where}: per-token vectors of different lengths")
        try:
            matrix = np.array(rows, dtype=np.float64)
        except OverflowError:
            raise self._malformed(f"{where} holds a number too large for a float") from None
        if not np.isfinite(matrix).all():
            raise self._malformed(f"{where} holds NaN or infinity")
        vector = matrix.mean(axis=0)
        if pooled and len(rows) > 1:
            self.pooled += 1
        if self.dimension is None:
            self.dimension = int(vector.shape[0])
        if vector.shape[0] != self.dimension:
            raise self._malformed(f"{where} has {vector.shape[0]} dimensions, earlier ones {self.dimension}")
        if not float(np.linalg.norm(vector)) > 0.0:
            raise self._malformed(f"{where} is all zeros (no direction to compare)")
        result: np.ndarray = vector.astype(np.float32)  # numpy: Any
        return result


def _detail(error: Any) -> str:
    """The server's own words for an HTTP error (OpenAI's ``error.message``, else the body's start)."""
    try:
        raw = error.read()[:2000]
    except Exception:  # noqa: BLE001 - a body that cannot be read says nothing
        return str(getattr(error, "reason", "") or "")
    try:
        message = json.loads(raw)["error"]
        message = message.get("message", message) if isinstance(message, dict) else message
        return str(message)[:300]
    except Exception:  # noqa: BLE001 - not OpenAI's error shape: show the text
        return raw.decode("utf-8", "replace")[:300] or str(getattr(error, "reason", "") or "")


def _retry_after(value: str | None) -> float:
    try:
        return min(30.0, max(0.0, float(value))) if value else 0.0
    except ValueError:
        return 0.0
