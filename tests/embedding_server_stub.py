"""A real HTTP server speaking OpenAI's ``/v1/embeddings``, with deterministic vectors and scripted faults.

Each text's vector is a hashed bag of its words (plus a constant component, so no text has a
zero vector), not normalised: texts with the same words point the same way, texts sharing no
word are nearly orthogonal. Tests queue faults (an HTTP status, a connection closed without
a reply, a raw body) or set ``token_level`` (one vector per word, as llama-cpp-python's server
sends for a model without pooling; with ``misplace``, every text but the first of a request gets
the first one's, as llama-cpp-python 0.3's server does) or ``reverse`` (the data in reverse order, with indices).
Every request is recorded. Loopback only; ``stop()`` ends it.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 64


def word_vector(word: str) -> list[float]:
    digest = hashlib.sha256(word.encode("utf-8", "surrogatepass")).digest()
    vector = [0.0] * DIM
    vector[digest[0] % (DIM - 1)] = 3.0 if digest[1] & 1 else -3.0
    return vector


def bag_vector(text: str) -> list[float]:
    """The stub's vector of ``text`` (before normalisation)."""
    vector = [0.0] * DIM
    vector[DIM - 1] = 0.5
    for word in re.findall(r"\w+", text.lower()):
        vector = [a + b for a, b in zip(vector, word_vector(word))]
    return vector


class EmbeddingStub:
    def __init__(self) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.raw: list[bytes] = []
        self.token_level = False
        self.misplace = False
        self.reverse = False
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.loads(raw or b"{}")
                with stub._lock:
                    stub.raw.append(raw)
                    stub.requests.append(body)
                    stub.paths.append(self.path)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                    step = stub.script.popleft() if stub.script else {}
                if step.get("delay"):
                    time.sleep(step["delay"])
                if step.get("reset"):
                    self.close_connection = True
                    return  # the connection closes with no reply at all
                if "status" in step:
                    message = step.get("message", f"scripted {step['status']}")
                    self._send(
                        step["status"], json.dumps({"error": {"message": message}}).encode(), {"Retry-After": "0.01"}
                    )
                    return
                if "body" in step:
                    self._send(200, step["body"].encode())
                    return
                if not self.path.endswith("/embeddings"):
                    self._send(404, b'{"error": {"message": "no such route"}}')
                    return
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = []
                for index, text in enumerate(texts):
                    if stub.token_level:
                        words = re.findall(r"\w+", (texts[0] if stub.misplace else text).lower()) or [""]
                        embedding: Any = [
                            [a + (0.5 if i == DIM - 1 else 0.0) for i, a in enumerate(word_vector(w))] for w in words
                        ]
                    else:
                        embedding = bag_vector(text)
                    data.append({"object": "embedding", "index": index, "embedding": embedding})
                if stub.reverse:
                    data.reverse()
                self._send(
                    200,
                    json.dumps(
                        {
                            "object": "list",
                            "model": body.get("model"),
                            "data": data,
                            "usage": {"prompt_tokens": 1, "total_tokens": 1},
                        }
                    ).encode(),
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def texts(self) -> int:
        return sum(len(r["input"]) for r in self.requests if isinstance(r.get("input"), list))

    def start(self) -> EmbeddingStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
